#!/usr/bin/python3
"""Times Python's Jinja2 on promptkit's benchmark workloads.

Each template is compiled once (Environment with StrictUndefined, no
autoescape), its output is checked byte for byte against the golden file,
and then it is rendered many times, each render encoded to UTF-8 bytes as a
host would before sending it. One JSON object per workload goes to stdout:
the median ns per render over several timed rounds.

    /usr/bin/python3 bench/jinja2_bench.py [--dir manager/testdata/bench]
    /usr/bin/python3 bench/jinja2_bench.py --write-golden   # regenerate *.golden

Uses Debian's python3-jinja2 (apt-get install python3-jinja2).
"""

import argparse
import json
import os
import statistics
import sys
import time

import jinja2

WORKLOADS = ("prompt", "tiny")
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(HERE, "..", "manager", "testdata", "bench"))
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per timed round")
    ap.add_argument("--write-golden", action="store_true", help="write NAME.golden and exit")
    args = ap.parse_args()

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    with open(os.path.join(args.dir, "vars.json"), encoding="utf-8") as f:
        all_vars = json.load(f)

    for name in WORKLOADS:
        with open(os.path.join(args.dir, name + ".jinja"), encoding="utf-8") as f:
            tpl = env.from_string(f.read())
        kwargs = all_vars[name]
        out = tpl.render(**kwargs)
        golden_path = os.path.join(args.dir, name + ".golden")
        if args.write_golden:
            with open(golden_path, "w", encoding="utf-8", newline="") as f:
                f.write(out)
            continue
        with open(golden_path, encoding="utf-8", newline="") as f:
            golden = f.read()
        if out != golden:
            sys.exit(f"jinja2 {name}: output differs from {golden_path}")

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
