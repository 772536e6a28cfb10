#!/usr/bin/env python3
"""Rebuild testdata/corpus/sources/<chat|framework>/ from the read_file answers in sources/read/.

Every template of the corpus is named in manifest/chat.json or manifest/framework.json by
repository, path, commit and an extraction rule. Its source file was read from the public code
index with the `read_file` look-up (repository + path, paged by offset), and each answer is kept
as sources/read/<owner>+<name>/<path>@<offset>.json:

  {"repo": ..., "path": ..., "commit": ..., "id": ..., "offset": 0, "total_chars": N,
   "text": "<the page, exactly as read_file returned it>"}

For program files (Python, JavaScript) only the passages holding the template are kept: the same
object with "excerpts": ["<passage>", ...] in place of "text", each passage copied exactly from the
page read at that offset (a whole top-level statement, or for a dict rule one or more whole
"key": value entries of the dict; a passage may run on into the next page read). sources/ is not committed (see README.md). read_file gives a
file's text with CRLF line ends as LF, while its offsets and total_chars count the stored file;
where the difference shows that every line end was CRLF, extract.py restores them.

This script writes each template text, byte for byte, to sources/<chat|framework>/<id>.jinja and
reports every template whose source commit or sha256 differs from the manifest; --update writes
the read commit and the new sha256 into the manifest (then regenerate with generate.py).

    python3 testdata/corpus/extract.py [--update] [--only SUBSTRING]

Extraction rules ("extract" in a manifest entry):
  {"kind": "file"}                                 the whole file
  {"kind": "json", "path": ["a", 0, "b"]}          a string inside a JSON file
  {"kind": "python", "name": "X"}                  a module-level X = "..." (literals joined by +
                                                   or juxtaposition; nothing else is evaluated)
  {"kind": "python", "dict": "D", "key": "k"}      the value of key k in a module-level dict D
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
import glob
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
READ = os.path.join(HERE, "sources", "read")

# Prompty's front-matter split (microsoft/prompty runtime/python/prompty/prompty/core/utils.py).
PROMPTY_RE = re.compile(r"^\s*" + r"(?:---|\+\+\+)" + r"(.*?)" + r"(?:---|\+\+\+)" + r"\s*(.+)$", re.S | re.M)


def restore_crlf(text, total):
    """read_file returns a file's text with CRLF line ends as LF, while total_chars counts the
    stored file. When the text plus one character per line end makes exactly total_chars, every
    line end of the file was CRLF: give them back, so the template is the file byte for byte.
    Any other difference in length is refused."""
    if len(text) != total and len(text) + text.count("\n") == total and "\r" not in text:
        return text.replace("\n", "\r\n")
    if len(text) != total:
        # Not all-CRLF (e.g. lone CR line ends, which read_file drops), or a page copied wrong:
        # either way not the stored file, byte for byte.
        raise ValueError(f"the pages read hold {len(text)} characters, the stored file {total}")
    return text


class Source:
    """What read_file returned for one file: whole pages and/or excerpts, at one commit."""

    def __init__(self, repo, path):
        self.repo, self.path = repo, path
        pattern = os.path.join(READ, repo.replace("/", "+"), glob.escape(path) + "@*.json")
        answers = []
        for name in glob.glob(pattern):
            with open(name, encoding="utf-8") as f:
                a = json.load(f)
            if a.get("repo") != repo or a.get("path") != path:
                raise ValueError(f"{name}: answer is for {a.get('repo')}:{a.get('path')}")
            answers.append(a)
        if not answers:
            raise FileNotFoundError(f"not read: {repo}:{path} (no {os.path.relpath(pattern, HERE)})")
        commits = {a["commit"] for a in answers}
        if len(commits) != 1:
            raise ValueError(f"{repo}:{path}: pages of different commits {sorted(commits)}")
        self.commit = commits.pop()
        self.total = answers[0]["total_chars"]
        answers.sort(key=lambda a: a["offset"])
        self.pages = [a for a in answers if "text" in a]
        self.excerpts = [x for a in answers for x in a.get("excerpts", [])]

    def whole(self):
        """The file's text, when the pages read cover it: the first at offset 0, each next one at
        the previous answer's next_offset, the last without a next_offset. (Offsets count the
        stored file's characters; the text read_file returns has CRLF line ends as LF, so a
        CRLF file's text is shorter than its total_chars.)"""
        at, parts = 0, []
        for p in self.pages:
            if p["offset"] != at:
                return None
            parts.append(p["text"])
            if "next_offset" not in p:
                return restore_crlf("".join(parts), self.total)
            at = p["next_offset"]
        return None

    def passages(self):
        text = self.whole()
        return [text] if text is not None else self.excerpts


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
    return found


def dict_value(d, key):
    found = None
    for k, v in zip(d.keys, d.values):
        if isinstance(k, ast.Constant) and k.value == key:
            found = v  # a repeated key: the last one wins, as in Python
    return found


def from_python(passages, rule):
    """The rule's string from the first passage that holds it: a module (or statements of one),
    or, for a dict rule, entries of the dict's literal."""
    for text in passages:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = None
        if tree is not None:
            if "dict" in rule:
                d = py_assignment(tree, rule["dict"])
                if d is not None:
                    if not isinstance(d, ast.Dict):
                        raise ValueError(f"{rule['dict']} is not a dict literal")
                    v = dict_value(d, rule["key"])
                    if v is None:
                        raise KeyError(f"{rule['dict']} has no key {rule['key']!r}")
                    return py_string(v)
            else:
                v = py_assignment(tree, rule["name"])
                if v is not None:
                    return py_string(v)
        if "dict" in rule:
            try:
                d = ast.parse("{\n" + text + "\n}", mode="eval").body
            except SyntaxError:
                continue
            v = dict_value(d, rule["key"])
            if v is not None:
                return py_string(v)
    raise KeyError(f"no passage holds {rule.get('name') or rule['dict'] + '[' + repr(rule['key']) + ']'}")


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


def from_js(passages, rule):
    """Entry K of TEST_CUSTOM_TEMPLATES: '\\t"K": {' followed by '\\n\\t\\tchat_template: <literals>,'."""
    for text in passages:
        entries = list(re.finditer(r'(?:^|\n)\t"([^"]+)": \{', text))
        for k, m in enumerate(entries):
            if m.group(1) != rule["key"]:
                continue
            end = entries[k + 1].start() if k + 1 < len(entries) else len(text)
            mm = re.search(r"\n\t\tchat_template:", text[m.end():end])
            if not mm:
                raise KeyError(f"entry {rule['key']!r} has no chat_template")
            return js_concat(text, m.end() + mm.end())
    raise KeyError(f"no passage holds entry {rule['key']!r}")


def extract(src, rule):
    kind = rule["kind"]
    if kind in ("file", "json", "prompty"):
        text = src.whole()
        if text is None:
            raise ValueError(f"the pages read do not cover all {src.total} characters")
        if kind == "file":
            out = text
        elif kind == "json":
            v = json.loads(text)
            for p in rule["path"]:
                v = v[p]
            if not isinstance(v, str):
                raise ValueError("JSON path does not lead to a string")
            out = v
        else:
            m = PROMPTY_RE.search(text)
            if not m:
                raise ValueError("no front matter")
            out = m.group(2)
    elif kind == "python":
        out = from_python(src.passages(), rule)
    elif kind == "js":
        out = from_js(src.passages(), rule)
    else:
        raise ValueError(f"unknown extraction kind {kind!r}")
    return out.encode("utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--update", action="store_true",
                    help="write the read commit and the new sha256 into the manifest")
    ap.add_argument("--only", help="extract only ids containing this string")
    args = ap.parse_args()
    failures, changed = 0, 0
    cache = {}
    for kind in ("chat", "framework"):
        mpath = os.path.join(HERE, "manifest", kind + ".json")
        with open(mpath, encoding="utf-8") as f:
            manifest = json.load(f)
        for e in manifest["templates"]:
            ident = f"{kind}/{e['id']}"
            if args.only and args.only not in ident:
                continue
            s = e["source"]
            try:
                key = (s["repo"], s["path"])
                if key not in cache:
                    cache[key] = Source(*key)
                src = cache[key]
                data = extract(src, s.get("extract", {"kind": "file"}))
            except Exception as exc:  # report every failure, then fail
                print(f"{ident}: {type(exc).__name__}: {exc}", file=sys.stderr)
                failures += 1
                continue
            out = os.path.join(HERE, "sources", ident + ".jinja")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(data)
            sha = hashlib.sha256(data).hexdigest()
            if src.commit != s["commit"] or sha != e["sha256"]:
                changed += 1
                what = "same text" if sha == e["sha256"] else f"text changed ({len(data)} bytes)"
                print(f"{ident}: commit {s['commit'][:10]} -> {src.commit[:10]}, {what}")
                s["commit"], e["sha256"] = src.commit, sha
        if args.update:
            with open(mpath, "w", encoding="utf-8") as f:
                f.write(json.dumps(manifest, ensure_ascii=False, indent=1))
    if changed:
        print(f"{changed} templates differ from the manifest" + (" (manifest updated)" if args.update else " (--update writes them)"))
    if failures:
        sys.exit(f"{failures} templates could not be extracted")


if __name__ == "__main__":
    main()
