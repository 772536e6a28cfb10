"""Prints what Python's Jinja2 makes of templates, for oracle_test.go.

Reads a JSON list of {"src", "trim", "lstrip"} on stdin and writes one JSON
object per template on stdout: {"ok": false} when Jinja2's parser refuses
it, else {"ok": true, "tree": …, "texts": […]}: the tree as an
s-expression (the same notation oracle_test.go prints promptkit's trees
in) and the template text the lexer keeps, whitespace control applied.
Runs with Jinja2 3.1 on any Python 3.
"""
import json
import sys

from jinja2 import Environment, nodes as N

BINOPS = {N.Add: "+", N.Sub: "-", N.Mul: "*", N.Div: "/", N.FloorDiv: "//", N.Mod: "%", N.Pow: "**",
          N.And: "and", N.Or: "or"}
CMPOPS = {"eq": "==", "ne": "!=", "lt": "<", "lteq": "<=", "gt": ">", "gteq": ">=", "in": "in", "notin": "notin"}


def exprs(xs):
    return "[" + " ".join(sx(x) for x in xs) + "]"


def keywords(ks):
    return "{" + " ".join(k.key + "=" + sx(k.value) for k in ks) + "}"


def call_args(x):
    return exprs(x.args) + " " + keywords(x.kwargs) + " " + sx(x.dyn_args) + " " + sx(x.dyn_kwargs)


def sx(x):
    if x is None:
        return "_"
    t = type(x)
    if t is N.Name:
        return "$" + x.name
    if t is N.NSRef:
        return "(getattr $" + x.name + " " + x.attr + ")"
    if t is N.Const:
        v = x.value
        if v is None or isinstance(v, bool):
            return str(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return format(v, ".17g")
        return "?const"
    if t is N.Tuple:
        return "(tuple " + exprs(x.items) + ")"
    if t is N.List:
        return "(list " + exprs(x.items) + ")"
    if t is N.Dict:
        return "(dict " + " ".join(sx(p.key) + ":" + sx(p.value) for p in x.items) + ")"
    if t is N.Getattr:
        return "(getattr " + sx(x.node) + " " + x.attr + ")"
    if t is N.Getitem:
        return "(getitem " + sx(x.node) + " " + sx(x.arg) + ")"
    if t is N.Slice:
        return "(slice " + sx(x.start) + " " + sx(x.stop) + " " + sx(x.step) + ")"
    if t is N.Call:
        return "(call " + sx(x.node) + " " + call_args(x) + ")"
    if t is N.Filter:
        return "(filter " + x.name + " " + sx(x.node) + " " + call_args(x) + ")"
    if t is N.Test:
        return "(test " + x.name + " " + sx(x.node) + " " + call_args(x) + ")"
    if t is N.Not:
        return "(not " + sx(x.node) + ")"
    if t is N.Neg:
        return "(neg " + sx(x.node) + ")"
    if t is N.Pos:
        return "(pos " + sx(x.node) + ")"
    if t in BINOPS:
        return "(" + BINOPS[t] + " " + sx(x.left) + " " + sx(x.right) + ")"
    if t is N.Concat:
        return "(concat " + exprs(x.nodes) + ")"
    if t is N.Compare:
        return "(cmp " + sx(x.expr) + " " + " ".join(CMPOPS[o.op] + " " + sx(o.expr) for o in x.ops) + ")"
    if t is N.CondExpr:
        return "(cond " + sx(x.test) + " " + sx(x.expr1) + " " + sx(x.expr2) + ")"
    return "?" + t.__name__


def body(ns):
    return "[" + " ".join(st(n) for n in ns) + "]"


def ctx(b):
    return "ctx" if b else "noctx"


def filter_chain(f):
    # Jinja nests the filters of a block: the last applies to the others.
    fs = []
    while f is not None:
        fs.append(f)
        f, fs[-1].node = f.node, None
    return "[" + " ".join(sx(f) for f in reversed(fs)) + "]"


def params(n):
    k = len(n.args) - len(n.defaults)
    return "[" + " ".join(a.name if i < k else a.name + "=" + sx(n.defaults[i - k]) for i, a in enumerate(n.args)) + "]"


def st(n):
    t = type(n)
    if t is N.Output:
        return " ".join("(text %s)" % json.dumps(x.data) if type(x) is N.TemplateData else "(print " + sx(x) + ")"
                        for x in n.nodes)
    if t is N.If:
        s = "(if [" + sx(n.test) + " " + body(n.body) + "]"
        for e in n.elif_:
            s += " [" + sx(e.test) + " " + body(e.body) + "]"
        if n.else_:
            s += " else " + body(n.else_)
        return s + ")"
    if t is N.For:
        return ("(for " + sx(n.target) + " " + sx(n.iter) + " " + sx(n.test) + " " + str(n.recursive) + " "
                + body(n.body) + " " + body(n.else_) + ")")
    if t is N.Assign:
        return "(set " + sx(n.target) + " " + sx(n.node) + ")"
    if t is N.AssignBlock:
        return "(setblock " + sx(n.target) + " " + filter_chain(n.filter) + " " + body(n.body) + ")"
    if t is N.With:
        return "(with [" + " ".join(sx(a) + "=" + sx(b) for a, b in zip(n.targets, n.values)) + "] " + body(n.body) + ")"
    if t is N.Include:
        return "(include " + sx(n.template) + " " + str(n.ignore_missing) + " " + ctx(n.with_context) + ")"
    if t is N.Import:
        return "(import " + sx(n.template) + " " + n.target + " " + ctx(n.with_context) + ")"
    if t is N.FromImport:
        names = [x[0] + " as " + x[1] if isinstance(x, tuple) else x for x in n.names]
        return "(from " + sx(n.template) + " [" + " ".join(names) + "] " + ctx(n.with_context) + ")"
    if t is N.Extends:
        return "(extends " + sx(n.template) + ")"
    if t is N.Block:
        return "(block " + n.name + " " + str(n.scoped) + " " + str(n.required) + " " + body(n.body) + ")"
    if t is N.Macro:
        return "(macro " + n.name + " " + params(n) + " " + body(n.body) + ")"
    if t is N.CallBlock:
        return "(call " + sx(n.call) + " " + params(n) + " " + body(n.body) + ")"
    if t is N.FilterBlock:
        return "(filterblock " + filter_chain(n.filter) + " " + body(n.body) + ")"
    if t is N.Scope and len(n.body) == 1 and type(n.body[0]) is N.ScopedEvalContextModifier:
        return "(autoescape " + sx(n.body[0].options[0].value) + " " + body(n.body[0].body) + ")"
    if t is N.Break:
        return "(break)"
    if t is N.Continue:
        return "(continue)"
    return "?" + t.__name__


def main():
    out = []
    for c in json.load(sys.stdin):
        env = Environment(trim_blocks=c["trim"], lstrip_blocks=c["lstrip"], extensions=["jinja2.ext.loopcontrols"])
        try:
            tree = env.parse(c["src"])
            texts = [v for (_, typ, v) in env.lex(env.preprocess(c["src"])) if typ == "data"]
        except Exception:
            out.append({"ok": False})
            continue
        out.append({"ok": True, "tree": body(tree.body), "texts": texts})
    json.dump(out, sys.stdout)


main()
