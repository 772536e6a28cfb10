"""Python's Jinja2 as an oracle: one render per JSON line.

Reads JSON lines on stdin, each
    {"template": "...", "vars": {...}, "env": {...}}
and writes one JSON line per input on stdout:
    {"output": "..."}  or  {"error": "<ExceptionType>: message"}

env (every key optional):
    "hf":        false: a stock jinja2.Environment() (autoescape off, default
                 Undefined, keep_trailing_newline off). true: the environment
                 Hugging Face's transformers renders chat templates in
                 (ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks,
                 the loop controls and {% generation %}; its tojson;
                 raise_exception and strftime_now as globals).
    "now":       the clock of strftime_now, ISO 8601 ("2024-07-26T09:30:00").
    "sort_keys": true (the default): every mapping of vars reaches Jinja2
                 with its keys sorted, the order in which promptkit iterates a
                 Go map (which has none). false: keys keep the order of the
                 JSON text (promptkit's order-keeping values).
    "strict":    true: undefined values are jinja2.StrictUndefined (printing,
                 iterating, testing the truth of, comparing or concatenating
                 one raises UndefinedError), in either environment.
    "timeout":   seconds one render may take (default 5); then TimeoutError.

Standard library and jinja2 only; runs with any Python 3.7+ and Jinja2 3.1
(pyenv's python3 or Debian's /usr/bin/python3 with python3-jinja2). On start
it writes one line {"ready": true, "jinja2": "<version>", "python": "<version>"}.
"""
import datetime
import json
import signal
import sys

import jinja2
import jinja2.ext
import jinja2.sandbox


class RenderTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise RenderTimeout("the render took longer than its timeout")


def sorted_maps(value):
    if isinstance(value, dict):
        return {k: sorted_maps(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_maps(v) for v in value]
    return value


def stock_env(strict):
    if strict:
        return jinja2.Environment(undefined=jinja2.StrictUndefined)
    return jinja2.Environment()


class AssistantTracker(jinja2.ext.Extension):
    """transformers' {% generation %}…{% endgeneration %}: the block renders
    as its body (transformers also records where, for assistant masks)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        call = self.call_method("_render", [])
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def hf_env(now, strict):
    # As transformers' _compile_jinja_template builds it.
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return now.strftime(format)

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[AssistantTracker, jinja2.ext.loopcontrols],
        undefined=jinja2.StrictUndefined if strict else jinja2.Undefined)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


_envs = {}


def environment(opts):
    hf = bool(opts.get("hf"))
    now = opts.get("now") or "2024-07-26T09:30:00"
    strict = bool(opts.get("strict"))
    key = (hf, now, strict)
    if key not in _envs:
        _envs[key] = hf_env(datetime.datetime.fromisoformat(now), strict) if hf else stock_env(strict)
    return _envs[key]


def render(req):
    opts = req.get("env") or {}
    env = environment(opts)
    variables = req.get("vars") or {}
    if opts.get("sort_keys", True):
        variables = sorted_maps(variables)
    timeout = float(opts.get("timeout", 5))
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return {"output": env.from_string(req["template"]).render(**variables)}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def limit_memory(limit):
    """Bounds the oracle's address space, so that a template building a huge
    value fails with MemoryError instead of exhausting the machine."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass


def main():
    limit_memory(2 << 30)
    signal.signal(signal.SIGALRM, _alarm)
    sys.setrecursionlimit(10000)
    out = sys.stdout
    out.write(json.dumps({"ready": True, "jinja2": jinja2.__version__, "python": sys.version.split()[0]}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = render(json.loads(line))
        except RecursionError as e:
            answer = {"error": "RecursionError: " + str(e)}
        except MemoryError:
            answer = {"error": "MemoryError: out of memory"}
        except BaseException as e:  # every failure is an answer, never the end of the oracle
            if isinstance(e, KeyboardInterrupt):
                raise
            answer = {"error": "%s: %s" % (type(e).__name__, e)}
        try:
            text = json.dumps(answer, ensure_ascii=True)
        except (ValueError, TypeError) as e:
            text = json.dumps({"error": "%s: %s" % (type(e).__name__, e)})
        out.write(text + "\n")
        out.flush()


if __name__ == "__main__":
    main()
