#!/usr/bin/env python3
"""Rebuild testdata/corpus/sources/ from local git snapshots of the source repositories.

Every template of the corpus is named in manifest/chat.json or manifest/framework.json by
repository, path, commit and an extraction rule. This script reads that file at that commit from
a bare snapshot of the repository (MIRRORS/<owner>+<name>/repo, the layout this project's
snapshot tool leaves) and writes the template text, byte for byte, to
sources/<chat|framework>/<group>/<name>.jinja.

    python3 testdata/corpus/extract.py --mirrors /work/.mirror

Extraction rules ("extract" in a manifest entry):
  {"kind": "file"}                                 the whole file
  {"kind": "json", "path": ["a", 0, "b"]}          a string inside a JSON file
  {"kind": "python", "name": "X"}                  a module-level X = "..." (literals joined by +
                                                   or juxtaposition; nothing else is evaluated)
  {"kind": "python", "dict": "D", "key": "k"}      the value of key k in a module-level dict D
  {"kind": "ipynb", "cell": 3, "name": "X"}        X = "..." in code cell 3 of a notebook
  {"kind": "js", "key": "K"}                       the chat_template of entry K of
                                                   huggingface.js's TEST_CUSTOM_TEMPLATES (JS
                                                   string literals joined by +)
  {"kind": "prompty"}                              the body after the YAML front matter, split
                                                   with Prompty's own regular expression
                                                   (runtime/python/prompty/prompty/core/utils.py)

No code of a source repository is run: Python and JavaScript sources are parsed, and only string
literals are read.
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Prompty's front-matter split (microsoft/prompty runtime/python/prompty/prompty/core/utils.py).
PROMPTY_RE = re.compile(r"^\s*" + r"(?:---|\+\+\+)" + r"(.*?)" + r"(?:---|\+\+\+)" + r"\s*(.+)$", re.S | re.M)


def git_show(mirrors, repo, commit, path):
    gitdir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    return subprocess.run(["git", "-C", gitdir, "show", f"{commit}:{path}"], check=True, capture_output=True).stdout


def py_string(node):
    """The value of an expression made only of string literals and +."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return py_string(node.left) + py_string(node.right)
    raise ValueError(f"line {getattr(node, 'lineno', '?')}: not a plain string expression: {ast.dump(node)[:80]}")


def py_assignment(tree, name):
    found = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == name:
                found = node.value  # the last assignment wins, as when the module runs
    if found is None:
        raise KeyError(f"no module-level assignment to {name}")
    return found


def from_python(src, rule):
    tree = ast.parse(src)
    if "dict" in rule:
        d = py_assignment(tree, rule["dict"])
        if not isinstance(d, ast.Dict):
            raise ValueError(f"{rule['dict']} is not a dict literal")
        for k, v in zip(d.keys, d.values):
            if isinstance(k, ast.Constant) and k.value == rule["key"]:
                return py_string(v)
        raise KeyError(f"{rule['dict']} has no key {rule['key']!r}")
    return py_string(py_assignment(tree, rule["name"]))


JS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0",
              "\\": "\\", "`": "`", "$": "$", "'": "'", '"': '"'}


def js_literal(s, i):
    quote = s[i]
    i += 1
    out = []
    while True:
        c = s[i]
        if c == quote:
            return "".join(out), i + 1
        if quote == "`" and c == "$" and s[i + 1] == "{":
            raise ValueError("template literal with interpolation")
        if quote != "`" and c == "\n":
            raise ValueError("newline inside a quoted string")
        if c == "\\":
            n = s[i + 1]
            if n in JS_ESCAPES:
                out.append(JS_ESCAPES[n])
                i += 2
            elif n == "x":
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
            elif n == "u" and s[i + 2] == "{":
                j = s.index("}", i)
                out.append(chr(int(s[i + 3:j], 16)))
                i = j + 1
            elif n == "u":
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
            elif n == "\n":
                i += 2  # line continuation
            else:
                out.append(n)  # identity escape
                i += 2
            continue
        out.append(c)
        i += 1


def js_concat(s, i):
    parts = []
    while True:
        while s[i] in " \t\r\n":
            i += 1
        if s[i] not in "`\"'":
            raise ValueError(f"not a string literal at {s[i:i + 20]!r}")
        v, i = js_literal(s, i)
        parts.append(v)
        j = i
        while s[j] in " \t\r\n":
            j += 1
        if s[j] == "+":
            i = j + 1
            continue
        if s[j] == ",":
            return "".join(parts)
        raise ValueError(f"unexpected {s[j:j + 20]!r} after a string literal")


def from_js(src, rule):
    start = src.index("const TEST_CUSTOM_TEMPLATES")
    keys = list(re.finditer(r'\n\t"([^"]+)": \{', src[start:]))
    for k, m in enumerate(keys):
        if m.group(1) != rule["key"]:
            continue
        a = start + m.end()
        b = start + keys[k + 1].start() if k + 1 < len(keys) else len(src)
        mm = re.search(r"\n\t\tchat_template:", src[a:b])
        if not mm:
            raise KeyError(f"entry {rule['key']!r} has no chat_template")
        return js_concat(src, a + mm.end())
    raise KeyError(f"no entry {rule['key']!r}")


def extract(raw, rule):
    kind = rule["kind"]
    if kind == "file":
        return raw
    text = raw.decode("utf-8")
    if kind == "json":
        v = json.loads(text)
        for p in rule["path"]:
            v = v[p]
        if not isinstance(v, str):
            raise ValueError("JSON path does not lead to a string")
        out = v
    elif kind == "python":
        out = from_python(text, rule)
    elif kind == "ipynb":
        cell = json.loads(text)["cells"][rule["cell"]]
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        out = from_python(src, rule)
    elif kind == "js":
        out = from_js(text, rule)
    elif kind == "prompty":
        m = PROMPTY_RE.search(text)
        if not m:
            raise ValueError("no front matter")
        out = m.group(2)
    else:
        raise ValueError(f"unknown extraction kind {kind!r}")
    return out.encode("utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", required=True, help="directory holding <owner>+<name>/repo git snapshots")
    ap.add_argument("--only", help="extract only ids containing this string")
    args = ap.parse_args()
    failures = 0
    for kind in ("chat", "framework"):
        with open(os.path.join(HERE, "manifest", kind + ".json"), encoding="utf-8") as f:
            entries = json.load(f)["templates"]
        for e in entries:
            ident = f"{kind}/{e['id']}"
            if args.only and args.only not in ident:
                continue
            s = e["source"]
            try:
                data = extract(git_show(args.mirrors, s["repo"], s["commit"], s["path"]), s.get("extract", {"kind": "file"}))
            except Exception as exc:  # report every failure, then fail
                print(f"{ident}: {exc}", file=sys.stderr)
                failures += 1
                continue
            out = os.path.join(HERE, "sources", ident + ".jinja")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(data)
    if failures:
        sys.exit(f"{failures} templates could not be extracted")


if __name__ == "__main__":
    main()
