#!/usr/bin/env python3
"""Render every corpus case with Python's Jinja2 and write the case files.

    python3 testdata/corpus/generate.py            # writes chat/, framework/, ATTRIBUTION.md
    python3 testdata/corpus/generate.py --check    # renders, compares with the files, writes nothing

Inputs: manifest/chat.json, manifest/framework.json (what to render, with which variables, from
which source), manifest/fixtures.json (the shared conversations, tools and documents) and
sources/ (the template texts; extract.py builds them from the read_file answers in sources/read/).
Without sources/ (it is not committed), each template text is taken from its committed case file,
checked against the manifest's sha256, so --check runs on a fresh checkout.

Chat templates render as transformers' apply_chat_template renders them (see render_chat);
framework templates with the environment their framework's own loader builds (see
render_framework). A case whose template calls raise_exception records the message as "error";
any other exception is Jinja2 refusing the template or the inputs, and generate.py refuses the
case: it prints every such case and exits non-zero without writing anything.

Runs with Jinja2 3.1.x under any Python 3 from 3.7 (pyenv's python3 or Debian's
/usr/bin/python3 with python3-jinja2).
"""
import argparse
import copy
import datetime
import hashlib
import json
import os
import sys

import jinja2
import jinja2.sandbox

HERE = os.path.dirname(os.path.abspath(__file__))

# The fixed clock behind strftime_now: 2026-01-15 09:30:00, local time, no time zone.
CLOCK = datetime.datetime(2026, 1, 15, 9, 30, 0)


class TemplateRaised(jinja2.exceptions.TemplateError):
    """What raise_exception raises: transformers raises TemplateError(message)."""


def raise_exception(message):
    raise TemplateRaised(message)


def strftime_now(fmt):
    return CLOCK.strftime(fmt)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers replaces Jinja's tojson (which HTML-escapes and sorts keys) with this.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def chat_environment():
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


ENVIRONMENTS = {
    "Environment": jinja2.Environment,
    "SandboxedEnvironment": jinja2.sandbox.SandboxedEnvironment,
    "ImmutableSandboxedEnvironment": jinja2.sandbox.ImmutableSandboxedEnvironment,
}
UNDEFINED = {"Undefined": jinja2.Undefined, "StrictUndefined": jinja2.StrictUndefined}


def framework_environment(spec):
    """spec: {"class": "...", "undefined": "...", other Environment keyword arguments}."""
    spec = dict(spec or {})
    cls = ENVIRONMENTS[spec.pop("class", "Environment")]
    if "undefined" in spec:
        spec["undefined"] = UNDEFINED[spec["undefined"]]
    return cls(**spec)


def load_json(*parts):
    with open(os.path.join(HERE, *parts), encoding="utf-8") as f:
        return json.load(f)


def read_source(kind, ident, sha256):
    """The template text: sources/<kind>/<id>.jinja as extract.py wrote it or, where sources/ is
    absent (a fresh checkout: sources/ is not committed), the text the committed case file
    <kind>/<id>.json already holds. Either way it must match the manifest's sha256."""
    path = os.path.join(HERE, "sources", kind, ident + ".jinja")
    if os.path.exists(path):
        with open(path, "rb") as f:
            data = f.read()
    else:
        path = os.path.join(HERE, kind, ident + ".json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)["template"].encode("utf-8")
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise ValueError(f"{path}: sha256 {got}, the manifest says {sha256}")
    return data.decode("utf-8")


def expand_messages(fixtures, spec, entry):
    """The messages of a chat case: a fixture conversation, adapted to what the template reads.

    entry["tool_style"] says how the assistant's tool-call messages look to this template:
    "arguments": "string" passes function.arguments as a JSON string instead of an object (for
    templates that concatenate it), "content": "null" passes content None instead of "", and
    "extra" adds fields (e.g. Cohere's tool_plan)."""
    msgs = copy.deepcopy(fixtures["conversations"][spec["conversation"]])
    style = entry.get("tool_style", {})
    for m in msgs:
        if "tool_calls" in m:
            if style.get("arguments") == "string":
                for tc in m["tool_calls"]:
                    tc["function"]["arguments"] = json.dumps(tc["function"]["arguments"], ensure_ascii=False)
            if style.get("content") == "null":
                m["content"] = None
            m.update(copy.deepcopy(style.get("extra", {})))
    for extra in entry.get("insert_messages", []):
        # A message the template requires at the head of the conversation (after the system
        # message, if any), e.g. firefunction-v1's "functions" message.
        at = 1 if msgs and msgs[0]["role"] == "system" else 0
        msgs.insert(at, copy.deepcopy(extra))
    return msgs


def chat_case_inputs(fixtures, entry, spec):
    case = {"name": spec["name"], "messages": expand_messages(fixtures, spec, entry)}
    tools = spec.get("tools")
    case["tools"] = copy.deepcopy(fixtures["tools"][tools]) if tools else None
    case["documents"] = copy.deepcopy(fixtures["documents"]) if spec.get("documents") else None
    case["add_generation_prompt"] = spec["add_generation_prompt"]
    case["vars"] = copy.deepcopy(spec.get("vars", {}))
    return case


def render_chat(env, template, entry, case):
    """transformers: template.render(messages=, tools=, documents=, add_generation_prompt=,
    **special_tokens, **kwargs). tools and documents are None when the caller gives none; a
    special token that the tokenizer does not have is not passed at all."""
    kwargs = {"messages": case["messages"], "tools": case["tools"], "documents": case["documents"],
              "add_generation_prompt": case["add_generation_prompt"]}
    for tok in ("bos_token", "eos_token"):
        if entry.get(tok) is not None:
            kwargs[tok] = entry[tok]
    kwargs.update(case["vars"])
    return env.from_string(template).render(**copy.deepcopy(kwargs))


def render_framework(entry, template, case):
    env = framework_environment(entry.get("env"))
    return env.from_string(template).render(**copy.deepcopy(case["vars"]))


def source_block(entry):
    s = entry["source"]
    out = {"repo": s["repo"], "path": s["path"], "commit": s["commit"], "license": s["license"]}
    if s.get("extract", {"kind": "file"}) != {"kind": "file"}:
        out["extract"] = s["extract"]
    return out


def build(refusals):
    fixtures = load_json("manifest", "fixtures.json")
    files = {}
    chat_env = chat_environment()
    for entry in load_json("manifest", "chat.json")["templates"]:
        ident = entry["id"]
        template = read_source("chat", ident, entry["sha256"])
        doc = {"source": source_block(entry), "model": entry["model"], "template": template,
               "sha256": entry["sha256"], "bos_token": entry.get("bos_token"),
               "eos_token": entry.get("eos_token")}
        if entry.get("note"):
            doc["note"] = entry["note"]
        doc["cases"] = []
        for spec in entry["cases"]:
            case = chat_case_inputs(fixtures, entry, spec)
            try:
                case["expected"] = render_chat(chat_env, template, entry, case)
            except TemplateRaised as e:
                case["error"] = e.message
            except Exception as e:  # Jinja2 refused: the case cannot stand
                refusals.append(f"chat/{ident} [{spec['name']}]: {type(e).__name__}: {e}")
                continue
            doc["cases"].append(case)
        files[os.path.join("chat", ident + ".json")] = doc
    for entry in load_json("manifest", "framework.json")["templates"]:
        ident = entry["id"]
        template = read_source("framework", ident, entry["sha256"])
        doc = {"source": source_block(entry), "framework": entry["framework"], "template": template,
               "sha256": entry["sha256"]}
        if entry.get("env"):
            doc["env"] = entry["env"]
        if entry.get("note"):
            doc["note"] = entry["note"]
        doc["cases"] = []
        for spec in entry["cases"]:
            case = {"name": spec["name"], "vars": copy.deepcopy(spec["vars"])}
            try:
                case["expected"] = render_framework(entry, template, case)
            except Exception as e:
                refusals.append(f"framework/{ident} [{spec['name']}]: {type(e).__name__}: {e}")
                continue
            doc["cases"].append(case)
        files[os.path.join("framework", ident + ".json")] = doc
    return files


def attribution(files, repos):
    lines = ["# Attribution", "",
             "Every template in this corpus is a copy of a file (or, for program files, of a string",
             "literal in one) in a public repository, as the public code index's read_file look-up",
             "returns it at the commit named below, under that repository's licence. (read_file gives",
             "CRLF line ends as LF; where a file's length shows that all its line ends were CRLF,",
             "extract.py restores them.) The chat templates were written by the model makers named in",
             "the `model` column and published with their models; the repositories listed here carry",
             "copies of them. Inputs (conversations, tools, documents, variables) are this project's own;",
             "every expected output was produced by Python's Jinja2 (generate.py).", ""]
    by_repo = {}
    for path, doc in sorted(files.items()):
        by_repo.setdefault(doc["source"]["repo"], []).append((path, doc))
    lines.append("| repository | licence | licence file | templates | commits |")
    lines.append("|---|---|---|---|---|")
    for repo, docs in sorted(by_repo.items()):
        r = repos[repo]
        commits = len({d["source"]["commit"] for _, d in docs})
        lines.append(f"| [{repo}](https://github.com/{repo}) | {r['license']} | "
                     f"`{r['license_file']}` | {len(docs)} | {commits} |")
    lines.append("")
    for repo, docs in sorted(by_repo.items()):
        r = repos[repo]
        lines.append(f"## {repo}")
        lines.append("")
        note = f" ({r['note']})" if r.get("note") else ""
        lines.append(f"Licence: {r['license']}, stated in `{r['license_file']}`{note}.")
        lines.append("")
        lines.append("| corpus file | source path | commit | extracted | model / framework |")
        lines.append("|---|---|---|---|---|")
        for path, doc in docs:
            s = doc["source"]
            ex = s.get("extract")
            how = "whole file"
            if ex:
                params = ", ".join(f"{k}={v}" for k, v in ex.items() if k != "kind")
                how = ex["kind"] + (": " + params if params else "")
            who = doc.get("model") or doc.get("framework")
            lines.append(f"| `{path}` | `{s['path']}` | `{s['commit'][:12]}` | {how} | {who} |")
        lines.append("")
    return "\n".join(lines)


def check_licences(files, repos, refusals):
    """Every source names its repository's licence, and the repository has a licence file."""
    for path, doc in sorted(files.items()):
        s = doc["source"]
        r = repos.get(s["repo"])
        if r is None or not r.get("license_file"):
            refusals.append(f"{path}: {s['repo']} has no licence file in manifest/repositories.json")
        elif r["license"] != s["license"]:
            refusals.append(f"{path}: licence {s['license']}, manifest/repositories.json says {r['license']}")


def dump(doc):
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    args = ap.parse_args()
    refusals = []
    files = build(refusals)
    repos = load_json("manifest", "repositories.json")["repositories"]
    check_licences(files, repos, refusals)
    if refusals:
        print("Refused (Jinja2 refused the case, or a licence is missing; fix or drop it):", file=sys.stderr)
        for r in refusals:
            print("  " + r, file=sys.stderr)
        sys.exit(1)
    outputs = {p: dump(d) for p, d in files.items()}
    outputs["ATTRIBUTION.md"] = attribution(files, repos)
    if args.check:
        stale = []
        for p, text in sorted(outputs.items()):
            try:
                with open(os.path.join(HERE, p), encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(p)
            except FileNotFoundError:
                stale.append(p)
        if stale:
            sys.exit("out of date: " + ", ".join(stale))
        print(f"{len(outputs)} files up to date (Jinja2 {jinja2.__version__})")
        return
    for sub in ("chat", "framework"):
        d = os.path.join(HERE, sub)
        for root, _, names in os.walk(d):
            for n in names:
                if n.endswith(".json") and os.path.relpath(os.path.join(root, n), HERE) not in outputs:
                    os.remove(os.path.join(root, n))
    for p, text in outputs.items():
        full = os.path.join(HERE, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    n_cases = sum(len(d["cases"]) for d in files.values())
    print(f"wrote {len(files)} template files, {n_cases} cases (Jinja2 {jinja2.__version__})")


if __name__ == "__main__":
    main()
