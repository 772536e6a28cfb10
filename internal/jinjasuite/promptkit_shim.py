"""pytest plugin: Jinja2's own test suite, its rendering done by promptkit.

Loaded with ``-p promptkit_shim`` by TestJinjaSuite (suite_test.go). Every template a
test compiles (Environment.from_string, Template(...), get_template and
select_template through the environment's loader) is compiled by promptkit
too, and every render (Template.render) is promptkit's: the template, the
loader's other templates, the environment's options and the context go as
JSON to a promptkit process ($PROMPTKIT_JINJASUITE_SERVER, one process for
the session, serving renders over its stdin and stdout: server.go), whose
output the test then checks, or whose error it sees as the exception Jinja2
raises for it.

A test that needs what promptkit cannot be given (an environment option it
does not have, a filter written in Python, a value that is not data, a
template rendered by Jinja2's own machinery: streaming, a template's module,
compile_expression…) stops with NotApplicable, naming why. Each test's
outcome, whether it compiled or rendered anything, and its reasons are
written to $PROMPTKIT_JINJASUITE_RESULTS as JSON when the session ends.
"""

import builtins
import collections
import collections.abc
import json
import math
import os
import subprocess
import sys

import pytest

import jinja2
from jinja2 import meta
from jinja2 import nodes
from jinja2.defaults import DEFAULT_FILTERS
from jinja2.defaults import DEFAULT_POLICIES
from jinja2.defaults import DEFAULT_TESTS
from jinja2.environment import Environment
from jinja2.environment import Template
from jinja2.exceptions import TemplateAssertionError
from jinja2.exceptions import TemplateNotFound
from jinja2.exceptions import TemplateRuntimeError
from jinja2.exceptions import TemplateSyntaxError
from jinja2.exceptions import UndefinedError
from jinja2.loaders import ChoiceLoader
from jinja2.loaders import ModuleLoader
from jinja2.loaders import PrefixLoader
from jinja2.runtime import StrictUndefined, Undefined
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup


class NotApplicable(BaseException):
    """A test needs what promptkit cannot be given.

    A BaseException, so that no ``pytest.raises(Exception)`` of the test
    swallows it.
    """


class PromptkitError(Exception):
    """An error of promptkit's that stands for no Jinja2 exception."""


# --- the promptkit process -------------------------------------------------


class Server:
    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the promptkit server ended")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


SERVER = None


# --- what each test did ----------------------------------------------------


class Record:
    def __init__(self, nodeid):
        self.nodeid = nodeid
        self.rendered = False  # compiled or rendered a template
        self.reasons = []  # why it is not applicable: [category, detail] pairs
        self.outcome = "passed"
        self.message = ""
        self.errors = []  # promptkit's errors the test saw, as "kind: message"

    def not_applicable(self, category, detail=""):
        if [category, detail] not in self.reasons:
            self.reasons.append([category, detail])
        raise NotApplicable(f"{category}: {detail}" if detail else category)


RECORDS = []
CURRENT = None


def current():
    global CURRENT
    if CURRENT is None:  # module-level code: nobody's test
        CURRENT = Record("")
    return CURRENT


# --- the environment -------------------------------------------------------

# Why a test is not applicable: the categories the figures count, each
# with the detail of the test.
SYNTAX = "custom delimiters, line statements or a newline_sequence: promptkit reads and writes Jinja's default syntax"
AUTOESCAPE = "autoescape: promptkit never HTML-escapes"
SANDBOX = (
    "a sandboxed environment: its rules are Python's (what is unsafe, str.format through the sandbox);"
    " promptkit renders as a stock Environment, within limits of its own (SECURITY.md)"
)
RUNTIME = "Jinja2's own runtime: a template's module, make_module, compile_expression, a template made from a syntax tree"
MODULES = "a ModuleLoader: templates compiled to Python modules, without their source"
PYTHON = (
    "Python code in the environment: finalize, filters and tests written in Python, an Environment subclass,"
    " an undefined class, a policy"
)
VALUES = "a value that is not data (a Python function, an object with methods, a complex number): promptkit's values are data"
STREAM = "streaming (generate, stream): promptkit renders a template whole"
ASYNC = "asynchronous rendering: promptkit renders synchronously"
EXTENSIONS = "an extension: promptkit has no extensions (loop controls are built in)"
NAMES = "a template name that is not a path"

DEFAULTS = Environment()
ALLOWED_EXTENSIONS = {"jinja2.ext.LoopControlExtension"}
SYNTAX_OPTIONS = (
    "block_start_string",
    "block_end_string",
    "variable_start_string",
    "variable_end_string",
    "comment_start_string",
    "comment_end_string",
)


def environment_reason(env):
    """Why promptkit cannot render for env, as (category, detail), or
    None if it can."""
    if isinstance(env, SandboxedEnvironment):
        return SANDBOX, type(env).__name__
    if type(env) is not Environment:
        return PYTHON, f"an Environment subclass ({type(env).__name__})"
    if any(isinstance(x, ModuleLoader) for x in loaders(env.loader)):
        return MODULES, ""
    if env.is_async:
        return ASYNC, "enable_async"
    for opt in SYNTAX_OPTIONS:
        if getattr(env, opt) != getattr(DEFAULTS, opt):
            return SYNTAX, opt
    if env.line_statement_prefix is not None or env.line_comment_prefix is not None:
        return SYNTAX, "line statements"
    if env.newline_sequence != "\n":
        return SYNTAX, "newline_sequence"
    for name in env.extensions:
        if name not in ALLOWED_EXTENSIONS:
            return EXTENSIONS, name
    if env.autoescape is not False:
        return AUTOESCAPE, ""
    if env.finalize is not None:
        return PYTHON, "finalize"
    if env.undefined not in (Undefined, StrictUndefined):
        return PYTHON, f"undefined={env.undefined.__name__}"
    return None


def loaders(loader):
    """loader and the loaders it delegates to."""
    if loader is None:
        return []
    out = [loader]
    if isinstance(loader, ChoiceLoader):
        for x in loader.loaders:
            out += loaders(x)
    if isinstance(loader, PrefixLoader):
        for x in loader.mapping.values():
            out += loaders(x)
    return out


def options(env):
    return {
        "trim_blocks": env.trim_blocks,
        "lstrip_blocks": env.lstrip_blocks,
        "keep_trailing_newline": env.keep_trailing_newline,
        # Jinja2's default Undefined is promptkit's lenient mode; its
        # StrictUndefined, promptkit's default.
        "undefined": "strict" if env.undefined is StrictUndefined else "lenient",
    }


def uses_reason(env, sources):
    """Why the templates' use of env's filters, tests and policies is not
    promptkit's, as (category, detail), or None if it is."""
    filters, tests = set(), set()
    for source in sources:
        try:
            ast = env.parse(source)
        except Exception:  # noqa: BLE001 (Jinja2's parser has bugs: 'Block' object has no attribute 'nodes')
            continue
        filters.update(n.name for n in ast.find_all(nodes.Filter))
        tests.update(n.name for n in ast.find_all(nodes.Test))
    for name in sorted(filters):
        if name in env.filters and env.filters[name] is not DEFAULT_FILTERS.get(name):
            return PYTHON, f"the filter {name}"
    for name in sorted(tests):
        if name in env.tests and env.tests[name] is not DEFAULT_TESTS.get(name):
            return PYTHON, f"the test {name}"
    for key, value in env.policies.items():
        if DEFAULT_POLICIES.get(key, object()) == value:
            continue
        area = key.split(".")[0]
        if area in ("urlize", "truncate") and area in filters:
            return PYTHON, f"the policy {key}"
        if area == "json" and "tojson" in filters:
            return PYTHON, f"the policy {key}"
    return None


# --- the template set ------------------------------------------------------

STRING_PATH = "<string>"


def valid_path(name):
    if not isinstance(name, str) or not name or name.startswith("/"):
        return False
    parts = name.split("/")
    return "\\" not in name and all(p not in ("", ".", "..") for p in parts)


def loader_files(env, sources):
    """The loader's templates, by name: all it lists, or those the
    sources reach when it cannot list them."""
    loader = env.loader
    if loader is None:
        return {}
    try:
        names = list(loader.list_templates())
    except TypeError:
        names = None
    files = {}
    if names is not None:
        for name in names:
            if valid_path(name):
                try:
                    files[name] = loader.get_source(env, name)[0]
                except TemplateNotFound:
                    pass
        return files
    todo = list(sources)
    while todo:
        try:
            ast = env.parse(todo.pop())
        except Exception:  # noqa: BLE001
            continue
        for name in meta.find_referenced_templates(ast):
            if name is None or name in files or not valid_path(name):
                continue
            try:
                files[name] = loader.get_source(env, name)[0]
            except TemplateNotFound:
                continue
            todo.append(files[name])
    return files


def template_set(env, info):
    """The files and entry path of the template info describes."""
    source, name = info["source"], info["name"]
    if source is None:
        files = loader_files(env, [])
        if name not in files:
            files.update(loader_files_for(env, name))
    else:
        files = loader_files(env, [source])
        name = STRING_PATH
        files[name] = source
    return files, name


def loader_files_for(env, name):
    files = {}
    try:
        files[name] = env.loader.get_source(env, name)[0]
    except TemplateNotFound:
        return files
    files.update(loader_files(env, [files[name]]))
    return files


# --- values ----------------------------------------------------------------

PLAIN_CLASS_KEYS = {
    "__module__",
    "__qualname__",
    "__doc__",
    "__dict__",
    "__weakref__",
    "__init__",
    "__annotations__",
}


class Unsendable(Exception):
    """A value promptkit cannot be given; the message says why."""


BASES = (str, int, float, list, tuple, dict)


def encode(value):
    """value as the tagged JSON of values.go; Unsendable if promptkit
    cannot be given it."""
    t = type(value)
    if t not in BASES and t is not Markup and plain_subclass(t, BASES):
        t = next(b for b in BASES if issubclass(t, b))
    if value is None or t is bool:
        return value
    if t is str:
        return str(value)
    if t is int:
        if -(2**63) <= value < 2**63:
            return int(value)
        return {"$bigint": str(value)}
    if t is float:
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        if math.isnan(value):
            return {"$float": "nan"}
        return float(value)
    if t is Markup:
        return {"$markup": str(value)}
    if t is list:
        return [encode(v) for v in value]
    if t is tuple:
        return {"$tuple": [encode(v) for v in value]}
    if namedtuple_class(t):
        return {"$namedtuple": [[k, encode(v)] for k, v in zip(t._fields, value)]}
    if t is range or isinstance(value, collections.abc.Iterator) and t.__module__ in ("builtins", "itertools"):
        # A lazy value: promptkit's are lists (the difference "Lazy
        # values print as the list they make").
        return [encode(v) for v in value]
    if t is dict:
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if plain_object(value):
        attrs = {}
        for klass in reversed(t.__mro__[:-1]):
            for k, v in vars(klass).items():
                if k not in PLAIN_CLASS_KEYS and k != "__str__":
                    attrs[k] = v
        attrs.update(vars(value))
        obj = {"$object": [[k, encode(v)] for k, v in attrs.items()]}
        if "__str__" in attrs_of(t):
            obj["$str"] = str(value)
        return obj
    if isinstance(value, Undefined):
        kind = "an Undefined"
    elif callable(value):
        kind = f"a Python callable ({t.__name__})"
    else:
        kind = f"a {t.__module__}.{t.__qualname__}"
    raise Unsendable(kind)


def plain_subclass(t, bases):
    """t subclasses one of bases and adds nothing to it."""
    if not issubclass(t, bases):
        return False
    for klass in t.__mro__:
        if klass in bases or klass is object:
            break
        if any(k not in PLAIN_CLASS_KEYS for k in vars(klass)):
            return False
    return True


def attrs_of(t):
    out = {}
    for klass in t.__mro__[:-1]:
        out.update(vars(klass))
    return out


def namedtuple_class(t):
    """t is a class collections.namedtuple made, with nothing added."""
    fields = getattr(t, "_fields", None)
    if not issubclass(t, tuple) or t.__bases__ != (tuple,) or not isinstance(fields, tuple):
        return False
    return set(vars(t)) == set(vars(collections.namedtuple(t.__name__, fields)))


def plain_object(value):
    """value is an instance of a class of the test's own whose attributes
    are data: no methods, properties or special methods but __str__
    (which gives the printed form)."""
    t = type(value)
    if t.__module__ == "builtins" or not hasattr(value, "__dict__"):
        return False
    for klass in t.__mro__[:-1]:
        if klass.__module__ == "builtins":
            return False
        for k, v in vars(klass).items():
            if k in PLAIN_CLASS_KEYS or k == "__str__":
                continue
            if callable(v) or isinstance(v, (property, staticmethod, classmethod)):
                return False
    return all(not callable(v) for v in vars(value).values())


# --- errors ----------------------------------------------------------------


def exception(err):
    kind, msg = err["kind"], err["message"]
    current().errors.append(f"{kind}: {msg}")
    name, line = err.get("name"), err.get("line") or 1
    if kind == "NotApplicable":
        current().not_applicable(VALUES, msg)
    if kind == "HarnessError":
        raise RuntimeError("promptkit harness: " + msg)
    if kind == "TemplateSyntaxError":
        return TemplateSyntaxError(msg, line, name)
    if kind == "TemplateAssertionError":
        return TemplateAssertionError(msg, line, name)
    if kind == "TemplateNotFound":
        return TemplateNotFound(name, msg)
    if kind == "UndefinedError":
        return UndefinedError(msg)
    if kind == "TemplateRuntimeError":
        return TemplateRuntimeError(msg)
    cls = getattr(builtins, kind, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls(msg)
    return PromptkitError(msg)


# --- the patches -----------------------------------------------------------

orig_from_string = Environment.from_string
orig_load_template = Environment._load_template


def check_environment(env):
    reason = environment_reason(env)
    if reason:
        current().not_applicable(*reason)


def check_uses(env, sources):
    reason = uses_reason(env, sources)
    if reason:
        current().not_applicable(*reason)


def compile_(env, info):
    """Compiles the template through promptkit: its error, or None."""
    rec = current()
    rec.rendered = True
    check_environment(env)
    files, entry = template_set(env, info)
    check_uses(env, files.values())
    resp = SERVER.ask(
        {"op": "compile", "files": files, "entry": entry, "options": options(env)}
    )
    return resp.get("error")


# Where Jinja2 raises when it compiles a template, the test sees promptkit's
# error instead; where promptkit cannot even parse a template Jinja2
# compiles, at once. Any other error of promptkit's (a missing include, a
# check) comes when the template renders: promptkit finds it when it loads
# a set, but what a test checks is that a render fails, and Jinja2 raises
# many of them only then.


def from_string(self, source, globals=None, template_class=None):
    if not isinstance(source, str):
        current().rendered = True
        current().not_applicable(RUNTIME, "a template given as a syntax tree")
    info = {"source": source, "name": None}
    err = compile_(self, info)
    if err is not None and err.get("parse"):
        raise exception(err)
    try:
        t = orig_from_string(self, source, globals, template_class)
    except TemplateSyntaxError:
        if err is not None:
            raise exception(err) from None
        # promptkit compiles what Jinja2 refuses: a template whose
        # renders are promptkit's alone.
        t = orig_from_string(self, "", globals, template_class)
    t._pk = info
    return t


def load_template(self, name, globals):
    if isinstance(name, Undefined) or self.loader is None:
        return orig_load_template(self, name, globals)
    info = {"source": None, "name": name}
    if not valid_path(name):
        current().rendered = True
        current().not_applicable(NAMES, repr(name))
    err = compile_(self, info)
    if err is not None and err.get("parse"):
        raise exception(err)
    try:
        t = orig_load_template(self, name, globals)
    except (TemplateSyntaxError, TemplateNotFound):
        if err is not None:
            raise exception(err) from None
        t = orig_from_string(self, "", globals)
        t.name = name
    t._pk = info
    return t


def render(self, *args, **kwargs):
    rec = current()
    rec.rendered = True
    info = getattr(self, "_pk", None)
    if info is None:
        rec.not_applicable(RUNTIME, "a template Jinja2 compiled outside from_string and the loader")
    env = self.environment
    check_environment(env)
    defaults = DEFAULTS.globals
    context = {}
    for k, v in self.globals.items():
        if k in defaults and defaults[k] is v:
            continue
        context[k] = v
    # The environment's and the template's globals are values the host
    # gives every template: promptkit's are the variables of the template
    # rendered (an imported template sees them only with context).
    context.update(dict(*args, **kwargs))
    files, entry = template_set(env, info)
    check_uses(env, files.values())
    encoded = {}
    for k, v in context.items():
        try:
            encoded[k] = encode(v)
        except Unsendable as e:
            # promptkit says so if the template reads it.
            encoded[k] = {"$na": f"the variable {k} is {e}"}
    resp = SERVER.ask(
        {
            "op": "render",
            "files": files,
            "entry": entry,
            "options": options(env),
            "context": encoded,
        }
    )
    if "error" in resp:
        raise exception(resp["error"])
    return resp.get("output", "")


def generate(self, *args, **kwargs):
    current().rendered = True
    current().not_applicable(STREAM)


def render_async(self, *args, **kwargs):
    current().rendered = True
    current().not_applicable(ASYNC, "render_async")


def new_context(self, *args, **kwargs):
    rec = current()
    rec.rendered = True
    rec.not_applicable(RUNTIME)


def install():
    Environment.from_string = from_string
    Environment._load_template = load_template
    Template.render = render
    Template.generate = generate
    Template.stream = generate
    Template.render_async = render_async
    Template.generate_async = render_async
    Template.new_context = new_context


# --- pytest hooks ----------------------------------------------------------


def pytest_configure(config):
    global SERVER
    argv = json.loads(os.environ["PROMPTKIT_JINJASUITE_SERVER"])
    SERVER = Server(argv)
    install()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global CURRENT
    CURRENT = Record(item.nodeid)
    yield
    RECORDS.append(CURRENT)
    CURRENT = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    rec = CURRENT
    if rec is None:
        return
    if report.skipped and rec.outcome == "passed":
        rec.outcome = "skipped"
    elif report.failed:
        rec.outcome = "failed"
        if not rec.message:
            if call.excinfo is not None:
                rec.message = call.excinfo.exconly()[:2000]
            else:
                rec.message = str(report.longrepr)[:2000]


def pytest_sessionfinish(session, exitstatus):
    if SERVER is not None:
        SERVER.close()
    path = os.environ.get("PROMPTKIT_JINJASUITE_RESULTS")
    if not path:
        return
    out = [
        {
            "test": r.nodeid,
            "rendered": r.rendered,
            "not_applicable": r.reasons,
            "outcome": r.outcome,
            "message": r.message,
            "promptkit_errors": r.errors,
        }
        for r in RECORDS
    ]
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"jinja2": jinja2.__version__, "python": sys.version.split()[0], "tests": out}, f, indent=1)
