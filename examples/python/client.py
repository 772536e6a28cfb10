#!/usr/bin/env python3
"""A client of `promptkit serve`, with Python's standard library only.

    from client import PromptKit, PromptError

    pk = PromptKit("http://127.0.0.1:8080")      # PROMPTKIT_TOKEN is sent if set
    p = pk.render("title", {"intent": "查询明天的天气"})
    print(p.text)                                 # exactly the prompt a Go host gets
    log.info("prompt %s from set %s", p.template_hash, p.digest)
    msgs = pk.messages("NAME", {...})             # a chat template's messages, for a chat API
    text = pk.build("title", data={"intent": "…"})

Variables are a dict; keyword arguments are merged into it, and any name
works as a variable, "name" and "variables" included (the template's name
and the dict are positional-only): pk.render("greet", name="Ada").

A problem of the set or of the variables raises PromptError, with the fields
of the Go *manager.Error: kind, template, path, line, column, variables,
message.

Run it as a script against `go run ./cmd/promptkit serve` for a demo:

    python3 examples/python/client.py [--url http://127.0.0.1:8080] [--intent TEXT]
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field


class PromptError(Exception):
    """An error answer of the server: a JSON problem."""

    def __init__(self, status, problem):
        super().__init__(problem.get("error") or problem.get("message") or "HTTP %d" % status)
        self.status = status
        self.kind = problem.get("kind", "other")
        self.template = problem.get("template", "")
        self.path = problem.get("path", "")
        self.line = problem.get("line", 0)
        self.column = problem.get("column", 0)
        self.variables = problem.get("variables", [])
        self.message = problem.get("message", "")
        # Every problem of the set, when it does not load (status 503).
        self.problems = problem.get("problems", [])


@dataclass
class Rendered:
    """What the server rendered, and which set and template rendered it."""

    text: str = ""
    messages: list = field(default_factory=list)
    digest: str = ""
    generation: int = 0
    template_hash: str = ""


class PromptKit:
    def __init__(self, url="http://127.0.0.1:8080", token=None, timeout=10.0):
        self.url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get("PROMPTKIT_TOKEN")
        self.timeout = timeout

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                problem = json.loads(raw)
            except ValueError:
                problem = {"message": raw.decode("utf-8", "replace")}
            raise PromptError(e.code, problem) from None

    @staticmethod
    def _rendered(headers, **kw):
        return Rendered(
            digest=headers.get("Promptkit-Digest", ""),
            generation=int(headers.get("Promptkit-Generation", "0")),
            template_hash=headers.get("Promptkit-Template-Hash", ""),
            **kw,
        )

    def templates(self):
        """The set's digest, generation and every template's declaration."""
        _, _, raw = self._call("GET", "/v1/templates")
        return json.loads(raw)

    def schema_file(self, path):
        """A schema file that a variable's schema $refs, by its path in the set, parsed."""
        _, _, raw = self._call("GET", "/v1/schemas/" + urllib.parse.quote(path))
        return json.loads(raw)

    def render(self, name, variables=None, /, **more):
        """The prompt of a text template, exactly.

        variables is a dict of the template's variables; keyword arguments
        are more of them (a name given both ways is a TypeError)."""
        body = _variables(variables, more)
        _, headers, raw = self._call("POST", "/v1/templates/%s:render" % urllib.parse.quote(name), body)
        return self._rendered(headers, text=raw.decode("utf-8"))

    def messages(self, name, variables=None, /, **more):
        """The chat messages of a template, as the Chat Completions API takes
        them: [{"role": …, "content": …}, …]. Variables as for render."""
        body = _variables(variables, more)
        _, headers, raw = self._call("POST", "/v1/templates/%s:messages" % urllib.parse.quote(name), body)
        return self._rendered(headers, messages=json.loads(raw))

    def build(self, builder, task=None, data=None):
        """A builder's prompt, as `promptkit build` makes it: text, or messages for message builders."""
        body = {}
        if task is not None:
            body["task"] = task
        if data is not None:
            body["data"] = data
        _, headers, raw = self._call("POST", "/v1/builders/%s:build" % urllib.parse.quote(builder), body)
        if headers.get("Content-Type", "").startswith("application/json"):
            return self._rendered(headers, messages=json.loads(raw))
        return self._rendered(headers, text=raw.decode("utf-8"))


def _variables(variables, more):
    """One dict of the variables given as a dict and as keyword arguments."""
    if variables is None:
        variables = {}
    if not isinstance(variables, dict):
        raise TypeError("variables must be a dict, not %s" % type(variables).__name__)
    twice = sorted(set(variables) & set(more))
    if twice:
        raise TypeError("variables given twice: %s" % ", ".join(twice))
    return {**variables, **more}


def _first_ref(schema):
    """The first $ref that names a file, in a schema as JSON decodes it."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            return ref.split("#")[0]
        items = schema.values()
    elif isinstance(schema, list):
        items = schema
    else:
        return None
    for it in items:
        ref = _first_ref(it)
        if ref:
            return ref
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description="Render a prompt through promptkit serve.")
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--intent", default="查询明天北京的天气")
    args = ap.parse_args(argv)
    out = sys.stdout.buffer  # the prompt's bytes, whatever the locale

    pk = PromptKit(args.url)
    listing = pk.templates()
    out.write(("serving %s (generation %d, %d templates)\n"
               % (listing["digest"], listing["generation"], len(listing["templates"]))).encode("utf-8"))

    # A typed variable's schema, with the files it $refs, validates values
    # before they are sent.
    typed = [(t["name"], v) for t in listing["templates"] for v in t["variables"] if "$ref" in json.dumps(v.get("schema", {}))]
    if typed:
        name, var = typed[0]
        ref = _first_ref(var["schema"])
        required = pk.schema_file(ref).get("required", [])
        out.write(("%s.%s: %s requires %s\n" % (name, var["name"], ref, ", ".join(required))).encode("utf-8"))

    p = pk.render("title", {"intent": args.intent})
    out.write(p.text.encode("utf-8") + b"\n")

    try:
        pk.render("title")  # the required variable is missing
    except PromptError as e:
        out.write(("%s %s %s %s\n" % (e.status, e.kind, e.path, ",".join(e.variables))).encode("utf-8"))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
