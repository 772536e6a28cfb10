#!/usr/bin/python3
"""Times Python's Jinja2 applying six models' chat templates, as transformers does.

The workload is ../manager/testdata/bench/chat (templates.json, conversation.json): each
template of the corpus (testdata/corpus/chat/CASE.json) is compiled once in transformers'
environment (the corpus's generate.py: ImmutableSandboxedEnvironment with trim_blocks,
lstrip_blocks and loopcontrols, transformers' tojson, raise_exception, strftime_now) and applied
to a ten-message conversation with three tools, tool calls and results, add_generation_prompt
true. Its output is checked byte for byte against NAME.golden before anything is timed.

Two ways are timed, each in process CPU time (time.process_time_ns), several renders a sample:
  jinja2        render(messages=…, tools=…) from Python values decoded once, as a Python server
                that already holds them would;
  jinja2-json   json.loads of the messages and tools JSON, then the render, as a server that
                receives them as JSON would.
One JSON object per template and way goes to stdout: the median ns per application over the
samples.

    /usr/bin/python3 bench/chat_bench.py [--samples 5] [--min-time 0.2] [--only qwen3]
    /usr/bin/python3 bench/chat_bench.py --write-golden   # regenerate NAME.golden

Uses Debian's python3-jinja2 (apt-get install python3-jinja2), as jinja2_bench.py does.
"""

import argparse
import json
import os
import statistics
import sys
import time

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
WORKLOAD = os.path.join(ROOT, "manager", "testdata", "bench", "chat")
sys.path.insert(0, os.path.join(ROOT, "testdata", "corpus"))
import generate  # noqa: E402  the corpus's transformers environment, one definition of it


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2, help="CPU seconds per sample")
    ap.add_argument("--only", help="time only this template")
    ap.add_argument("--write-golden", action="store_true", help="write NAME.golden and exit")
    args = ap.parse_args()

    spec = read_json(os.path.join(WORKLOAD, "templates.json"))
    conv_text = read(os.path.join(WORKLOAD, "conversation.json"))
    conv = json.loads(conv_text)
    messages_json = json.dumps(conv["messages"], ensure_ascii=False)
    tools_json = json.dumps(conv["tools"], ensure_ascii=False)
    env = generate.chat_environment()
    version = "Jinja2 " + jinja2.__version__ + ", Python " + sys.version.split()[0]
    for t in spec["templates"]:
        if args.only and t["name"] != args.only:
            continue
        case = read_json(os.path.join(ROOT, "testdata", "corpus", "chat", t["case"] + ".json"))
        tpl = env.from_string(case["template"])
        tokens = {k: case[k] for k in ("bos_token", "eos_token") if case.get(k) is not None}

        def from_values(messages=conv["messages"], tools=conv["tools"]):
            return tpl.render(messages=messages, tools=tools, documents=None,
                              add_generation_prompt=True, **tokens)

        def from_json():
            return from_values(json.loads(messages_json), json.loads(tools_json))

        golden = os.path.join(WORKLOAD, t["name"] + ".golden")
        out = from_values()
        if args.write_golden:
            with open(golden, "w", encoding="utf-8", newline="") as f:
                f.write(out)
            continue
        if out != read(golden) or from_json() != out:
            sys.exit(f"jinja2 {t['name']}: output differs from {golden}")
        for engine, fn in (("jinja2", from_values), ("jinja2-json", from_json)):
            def run(n):
                start = time.process_time_ns()
                for _ in range(n):
                    fn()
                return time.process_time_ns() - start

            n = 1
            while run(n) < args.min_time * 1e9 / 10:
                n *= 2
            n = max(1, int(n * args.min_time * 1e9 / max(run(n), 1)))
            samples = [run(n) / n for _ in range(args.samples)]
            print(json.dumps({"engine": engine, "template": t["name"],
                              "ns_per_op": statistics.median(samples),
                              "samples_ns_per_op": samples, "ops_per_sample": n,
                              "version": version}), flush=True)


if __name__ == "__main__":
    main()
