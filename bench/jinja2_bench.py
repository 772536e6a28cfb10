#!/usr/bin/python3
"""Times Python's Jinja2 on promptkit's benchmark workloads.

Each template is compiled once (Environment with StrictUndefined, no
autoescape), its output is checked byte for byte against the golden file,
and then it is rendered many times, each render encoded to UTF-8 bytes as a
host would before sending it. One JSON object per timed workload goes to
stdout: the median ns per render over several timed rounds.

    /usr/bin/python3 bench/jinja2_bench.py [--rounds 6] [--only large]
    /usr/bin/python3 bench/jinja2_bench.py --write-golden   # regenerate the golden files

--write-golden writes NAME.golden (the render of NAME.jinja) for every
workload and, for the workloads in bench/testdata, NAME_messages.golden:
each {% chat role="…" %} block of NAME_chat.jinja rendered on its own and
trimmed, one "role: text" line per message, as promptkit's RenderMessages
must give them. Jinja2 knows no chat tag, so the blocks are cut out of the
file; a chat file there holds nothing but its blocks.

Uses Debian's python3-jinja2 (apt-get install python3-jinja2).
"""

import argparse
import json
import os
import re
import statistics
import sys
import time

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))
MANAGER = os.path.join(HERE, "..", "manager", "testdata", "bench")
# name, directory, timed here, has a messages golden
WORKLOADS = (
    ("prompt", MANAGER, True, False),
    ("tiny", MANAGER, True, False),
    ("large", os.path.join(HERE, "testdata", "large"), True, True),
    ("fewshot", os.path.join(HERE, "testdata", "fewshot"), False, True),
)
CHAT_BLOCK = re.compile(r'\{%\s*chat\s+role="(\w+)"\s*%\}(.*?)\{%\s*endchat\s*%\}', re.S)


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def messages(env, chat_source, kwargs):
    """The messages of a chat template, as "role: text" lines."""
    rest = CHAT_BLOCK.sub("", chat_source)
    if rest.strip():
        sys.exit(f"chat template has text outside its blocks: {rest.strip()[:60]!r}")
    return "".join(f"{role}: {env.from_string(body).render(**kwargs).strip()}\n"
                   for role, body in CHAT_BLOCK.findall(chat_source))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per timed round")
    ap.add_argument("--only", help="time only this workload")
    ap.add_argument("--write-golden", action="store_true", help="write the golden files and exit")
    args = ap.parse_args()

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    all_vars = {}
    for name, wdir, timed, has_messages in WORKLOADS:
        if args.only and name != args.only:
            continue
        if wdir not in all_vars:
            with open(os.path.join(wdir, "vars.json"), encoding="utf-8") as f:
                all_vars[wdir] = json.load(f)
        kwargs = all_vars[wdir][name]
        tpl = env.from_string(read(os.path.join(wdir, name + ".jinja")))
        out = tpl.render(**kwargs)
        golden_path = os.path.join(wdir, name + ".golden")
        msgs_path = os.path.join(wdir, name + "_messages.golden")
        if args.write_golden:
            write(golden_path, out)
            if has_messages:
                write(msgs_path, messages(env, read(os.path.join(wdir, name + "_chat.jinja")), kwargs))
            continue
        if out != read(golden_path):
            sys.exit(f"jinja2 {name}: output differs from {golden_path}")
        if has_messages and messages(env, read(os.path.join(wdir, name + "_chat.jinja")), kwargs) != read(msgs_path):
            sys.exit(f"jinja2 {name}: messages differ from {msgs_path}")
        if not timed:
            continue

        def run(n):
            start = time.perf_counter_ns()
            for _ in range(n):
                tpl.render(**kwargs).encode("utf-8")
            return time.perf_counter_ns() - start

        n = 1
        while run(n) < args.min_time * 1e9 / 10:
            n *= 2
        n *= 10
        rounds = [run(n) / n for _ in range(args.rounds)]
        print(json.dumps({
            "engine": "jinja2", "workload": name, "ns_per_op": statistics.median(rounds),
            "rounds_ns_per_op": rounds, "renders_per_round": n,
            "version": "Jinja2 " + jinja2.__version__ + ", Python " + sys.version.split()[0],
        }))


if __name__ == "__main__":
    main()
