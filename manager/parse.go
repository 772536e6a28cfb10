//promptkit:allow-inline the template engine's parser: error messages quote template syntax
package manager

import (
	"fmt"
)

// unsupportedTags names the Jinja and pongo2 tags promptkit refuses, with
// the supported alternative the error message suggests. Some read files
// outside the set (ssi), keep state between renders and so race (cycle,
// ifchanged), or cannot be checked statically (extends, import, macro).
var unsupportedTags = map[string]string{
	"macro":       "a {% set %} variable or an {% include %} of a shared file",
	"call":        "an {% include %} of a shared file",
	"extends":     "{% include %} of the shared parts",
	"block":       "{% include %} of the shared parts",
	"import":      "{% include %}",
	"from":        "{% include %}",
	"filter":      "a filter in an expression: {{ x | upper }}",
	"autoescape":  "an explicit escape in the builder; promptkit output is never escaped",
	"ssi":         "{% include %} of a file inside the template root",
	"cycle":       "loop.index with a condition",
	"ifchanged":   "a condition on loop.previtem's value computed by the caller",
	"verbatim":    "{% raw %}…{% endraw %}",
	"spaceless":   "whitespace control: {%- … -%}",
	"lorem":       "literal text",
	"now":         "a variable passed by the caller",
	"firstof":     "{{ a or b }} written as {% if a %}{{ a }}{% else %}{{ b }}{% endif %}",
	"templatetag": "{% raw %}…{% endraw %}",
	"widthratio":  "arithmetic in an expression",
	"ifequal":     "{% if a == b %}",
	"ifnotequal":  "{% if a != b %}",
	"do":          "{% set %}",
	"break":       "a condition inside the loop",
	"continue":    "a condition inside the loop",
	"trans":       "literal text (templates are not translated)",
}

// parser turns segments into a tree.
type parser struct {
	segs  []segment
	i     int
	depth int // bodies being parsed, the top level included
}

func parseTemplate(src string) ([]node, error) {
	segs, err := scan(src)
	if err != nil {
		return nil, err
	}
	p := &parser{segs: segs}
	nodes, end, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	if end != nil {
		return nil, errAt(end.p, "unexpected {%% %s %%} with no open block", end.toks[0].s)
	}
	return nodes, nil
}

// parseBody parses nodes until a statement it does not own (an end or
// else tag), which it returns unconsumed (nil at the end of the source).
func (p *parser) parseBody() ([]node, *segment, error) {
	// The parser recurses once per block: refuse deep nesting here, before
	// a few million nested blocks overflow the goroutine stack (a fatal
	// error, not a panic). checkDepth applies the same limit across
	// includes.
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNestingDepth+1 && p.i > 0 {
		return nil, nil, errAt(p.segs[p.i-1].p, "blocks nested deeper than %d", maxNestingDepth)
	}
	var nodes []node
	for p.i < len(p.segs) {
		seg := &p.segs[p.i]
		switch seg.kind {
		case segText:
			nodes = append(nodes, &textNode{p: seg.p, text: seg.text})
			p.i++
		case segOutput:
			ts := &tokens{toks: seg.toks}
			x, err := ts.parseExpr()
			if err != nil {
				return nil, nil, err
			}
			if err := ts.expectEnd("}}"); err != nil {
				return nil, nil, err
			}
			nodes = append(nodes, &outputNode{p: seg.p, x: x})
			p.i++
		case segStmt:
			if len(seg.toks) == 0 || seg.toks[0].kind != tokName {
				return nil, nil, errAt(seg.p, "expected a tag name after {%%")
			}
			name := seg.toks[0].s
			switch name {
			case "endif", "elif", "else", "endfor", "endset", "endwith", "endraw", "endchat":
				return nodes, seg, nil
			}
			n, err := p.parseStmt(seg, name)
			if err != nil {
				return nil, nil, err
			}
			if n != nil {
				nodes = append(nodes, n)
			}
		}
	}
	return nodes, nil, nil
}

func (p *parser) parseStmt(seg *segment, name string) (node, error) {
	ts := &tokens{toks: seg.toks, i: 1}
	p.i++
	switch name {
	case "if":
		return p.parseIf(seg, ts)
	case "for":
		return p.parseFor(seg, ts)
	case "set":
		return p.parseSet(seg, ts)
	case "with":
		return p.parseWith(seg, ts)
	case "chat":
		return p.parseChat(seg, ts)
	case "include":
		t := ts.next()
		if t.kind != tokString {
			return nil, &syntaxError{p: t.p, kind: ErrUnsupported, msg: "include takes a literal path string, such as {% include \"parts/rules.md\" %}: dynamic includes cannot be checked at load"}
		}
		for ts.peek().kind == tokName && (ts.peek().s == "ignore" || ts.peek().s == "missing" || ts.peek().s == "with" || ts.peek().s == "without" || ts.peek().s == "context") {
			return nil, &syntaxError{p: ts.peek().p, kind: ErrUnsupported, msg: fmt.Sprintf("include modifier %q is not supported; write {%% include \"path\" %%}", ts.peek().s)}
		}
		if err := ts.expectEnd("%}"); err != nil {
			return nil, err
		}
		return &includeNode{p: seg.p, path: t.s}, nil
	}
	if alt, ok := unsupportedTags[name]; ok {
		return nil, &syntaxError{p: seg.p, kind: ErrUnsupported, msg: fmt.Sprintf("tag %q is not supported; use %s", name, alt)}
	}
	return nil, &syntaxError{p: seg.p, kind: ErrUnsupported, msg: fmt.Sprintf("unknown tag %q; supported tags: if, elif, else, for, set, with, include, raw, chat", name)}
}

func (p *parser) parseIf(seg *segment, ts *tokens) (node, error) {
	n := &ifNode{p: seg.p}
	cond, err := ts.parseExpr()
	if err != nil {
		return nil, err
	}
	if err := ts.expectEnd("%}"); err != nil {
		return nil, err
	}
	for {
		body, end, err := p.parseBody()
		if err != nil {
			return nil, err
		}
		if end == nil {
			return nil, errAt(seg.p, "{%% if %%} is never closed: missing {%% endif %%}")
		}
		n.conds = append(n.conds, cond)
		n.bodies = append(n.bodies, body)
		p.i++
		ets := &tokens{toks: end.toks, i: 1}
		switch end.toks[0].s {
		case "elif":
			cond, err = ets.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := ets.expectEnd("%}"); err != nil {
				return nil, err
			}
		case "else":
			if err := ets.expectEnd("%}"); err != nil {
				return nil, err
			}
			body, end2, err := p.parseBody()
			if err != nil {
				return nil, err
			}
			if end2 == nil || end2.toks[0].s != "endif" {
				return nil, errAt(seg.p, "{%% if %%} is never closed: missing {%% endif %%}")
			}
			p.i++
			if body == nil {
				body = []node{}
			}
			n.elseBody = body
			return n, (&tokens{toks: end2.toks, i: 1}).expectEnd("%}")
		case "endif":
			return n, ets.expectEnd("%}")
		default:
			return nil, errAt(end.p, "unexpected {%% %s %%} inside {%% if %%} opened at line %d", end.toks[0].s, seg.p.line)
		}
	}
}

func (p *parser) parseFor(seg *segment, ts *tokens) (node, error) {
	n := &forNode{p: seg.p}
	t := ts.next()
	if t.kind != tokName {
		return nil, errAt(t.p, "expected a loop variable name after for, found %s", t)
	}
	n.targetP = t.p
	n.targets = append(n.targets, t.s)
	if ts.peekOp(",") {
		ts.next()
		t2 := ts.next()
		if t2.kind != tokName {
			return nil, errAt(t2.p, "expected a second loop variable name, found %s", t2)
		}
		n.targets = append(n.targets, t2.s)
		if ts.peekOp(",") {
			return nil, &syntaxError{p: ts.peek().p, kind: ErrUnsupported, msg: "at most two loop variables are supported: {% for k, v in d.items() %}"}
		}
	}
	for _, name := range n.targets {
		if reservedName(name) {
			return nil, errAt(t.p, "%q cannot be a loop variable", name)
		}
	}
	if in := ts.next(); in.kind != tokName || in.s != "in" {
		return nil, errAt(in.p, "expected \"in\" after the loop variable, found %s", in)
	}
	iter, err := ts.parseOr() // not parseExpr: "x if c" would swallow a loop filter
	if err != nil {
		return nil, err
	}
	// d.items() loops over key and value.
	if c, ok := iter.(*callExpr); ok && len(c.args) == 0 && len(c.kwargs) == 0 {
		if a, ok := c.fn.(*attrExpr); ok && a.name == "items" {
			if len(n.targets) != 2 {
				return nil, errAt(n.targetP, "loop over .items() needs two variables: {%% for k, v in d.items() %%}")
			}
			n.iter, n.items = a.x, true
		}
	}
	if !n.items {
		if len(n.targets) == 2 {
			return nil, &syntaxError{p: n.targetP, kind: ErrUnsupported, msg: "two loop variables are supported only over a mapping's .items(): {% for k, v in d.items() %}"}
		}
		n.iter = iter
	}
	if tk := ts.peek(); tk.kind == tokName && (tk.s == "if" || tk.s == "recursive") {
		return nil, &syntaxError{p: tk.p, kind: ErrUnsupported, msg: fmt.Sprintf("for … %s is not supported; put an {%% if %%} inside the loop", tk.s)}
	}
	if err := ts.expectEnd("%}"); err != nil {
		return nil, err
	}
	body, end, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	if end == nil {
		return nil, errAt(seg.p, "{%% for %%} is never closed: missing {%% endfor %%}")
	}
	p.i++
	n.body = body
	switch end.toks[0].s {
	case "else":
		if err := (&tokens{toks: end.toks, i: 1}).expectEnd("%}"); err != nil {
			return nil, err
		}
		eb, end2, err := p.parseBody()
		if err != nil {
			return nil, err
		}
		if end2 == nil || end2.toks[0].s != "endfor" {
			return nil, errAt(seg.p, "{%% for %%} is never closed: missing {%% endfor %%}")
		}
		p.i++
		if eb == nil {
			eb = []node{}
		}
		n.elseBody = eb
		return n, (&tokens{toks: end2.toks, i: 1}).expectEnd("%}")
	case "endfor":
		return n, (&tokens{toks: end.toks, i: 1}).expectEnd("%}")
	}
	return nil, errAt(end.p, "unexpected {%% %s %%} inside {%% for %%} opened at line %d", end.toks[0].s, seg.p.line)
}

func (p *parser) parseSet(seg *segment, ts *tokens) (node, error) {
	t := ts.next()
	if t.kind != tokName || reservedName(t.s) {
		return nil, errAt(t.p, "expected a variable name after set, found %s", t)
	}
	if ts.peekOp(",") || ts.peekOp(".") || ts.peekOp("[") {
		return nil, &syntaxError{p: ts.peek().p, kind: ErrUnsupported, msg: "set assigns one name: {% set name = value %}"}
	}
	n := &setNode{p: seg.p, name: t.s}
	if ts.peekOp("=") {
		ts.next()
		x, err := ts.parseExpr()
		if err != nil {
			return nil, err
		}
		n.x = x
		return n, ts.expectEnd("%}")
	}
	if err := ts.expectEnd("%}"); err != nil {
		return nil, err
	}
	body, end, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	if end == nil || end.toks[0].s != "endset" {
		return nil, errAt(seg.p, "{%% set %s %%} block is never closed: missing {%% endset %%}", t.s)
	}
	p.i++
	if body == nil {
		body = []node{}
	}
	n.body = body
	return n, (&tokens{toks: end.toks, i: 1}).expectEnd("%}")
}

func (p *parser) parseWith(seg *segment, ts *tokens) (node, error) {
	n := &withNode{p: seg.p}
	for ts.peek().kind != tokEOF {
		t := ts.next()
		if t.kind != tokName || reservedName(t.s) {
			return nil, errAt(t.p, "expected name = value in {%% with %%}, found %s", t)
		}
		if !ts.peekOp("=") {
			return nil, errAt(ts.peek().p, "expected \"=\" after %q in {%% with %%}", t.s)
		}
		ts.next()
		x, err := ts.parseExpr()
		if err != nil {
			return nil, err
		}
		n.names = append(n.names, t.s)
		n.xs = append(n.xs, x)
		if ts.peekOp(",") {
			ts.next()
		}
	}
	body, end, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	if end == nil || end.toks[0].s != "endwith" {
		return nil, errAt(seg.p, "{%% with %%} is never closed: missing {%% endwith %%}")
	}
	p.i++
	n.body = body
	return n, (&tokens{toks: end.toks, i: 1}).expectEnd("%}")
}

// tokens is a cursor over the tokens of one tag.
type tokens struct {
	toks  []token
	i     int
	depth int // nesting of the expression being parsed (see deeper)
}

// maxExprDepth bounds the nesting of one expression.
const maxExprDepth = 64

// deeper enters one level of expression nesting: parentheses, list and
// dict items, arguments, unary operators, and each link of a chain of
// operators, filters or attributes (a chain builds a tree one level deeper
// per link). Past maxExprDepth the expression is refused: the parser, the
// translation and pongo2 all recurse per level, so an unbounded depth
// could exhaust the stack or take quadratic time. Callers restore the
// depth they started with: defer ts.restore(ts.depth).
func (ts *tokens) deeper() error {
	ts.depth++
	if ts.depth > maxExprDepth {
		return &syntaxError{p: ts.peek().p, kind: ErrTemplate, msg: fmt.Sprintf("expression nested deeper than %d levels", maxExprDepth)}
	}
	return nil
}

func (ts *tokens) restore(depth int) { ts.depth = depth }

func (ts *tokens) peek() token {
	if ts.i < len(ts.toks) {
		return ts.toks[ts.i]
	}
	return ts.toks[len(ts.toks)-1]
}

func (ts *tokens) next() token {
	t := ts.peek()
	if ts.i < len(ts.toks)-1 {
		ts.i++
	}
	return t
}

func (ts *tokens) peekOp(op string) bool {
	t := ts.peek()
	return t.kind == tokOp && t.s == op
}

func (ts *tokens) peekName(name string) bool {
	t := ts.peek()
	return t.kind == tokName && t.s == name
}

func (ts *tokens) expectOp(op string) (token, error) {
	t := ts.next()
	if t.kind != tokOp || t.s != op {
		return t, errAt(t.p, "expected %q, found %s", op, t)
	}
	return t, nil
}

func (ts *tokens) expectEnd(closer string) error {
	if t := ts.peek(); t.kind != tokEOF {
		return errAt(t.p, "unexpected %s, expected %q", t, closer)
	}
	return nil
}

func isReserved(name string) bool {
	switch name {
	case "and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False", "None":
		return true
	}
	return false
}

// Expressions, by Jinja's precedence (lowest first): conditional, or, and,
// not, comparison (== != < <= > >= in, not in), + -, ~, * / // %, **,
// unary minus, then postfix (attribute, subscript, call), filters and tests.

func (ts *tokens) parseExpr() (expr, error) {
	defer ts.restore(ts.depth)
	if err := ts.deeper(); err != nil {
		return nil, err
	}
	x, err := ts.parseOr()
	if err != nil {
		return nil, err
	}
	for ts.peekName("if") {
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		t := ts.next()
		cond, err := ts.parseOr()
		if err != nil {
			return nil, err
		}
		c := &condExpr{p: t.p, cond: cond, then: x}
		if ts.peekName("else") {
			ts.next()
			if c.els_, err = ts.parseExpr(); err != nil {
				return nil, err
			}
		}
		x = c
	}
	return x, nil
}

func (ts *tokens) parseOr() (expr, error) {
	defer ts.restore(ts.depth)
	l, err := ts.parseAnd()
	if err != nil {
		return nil, err
	}
	for ts.peekName("or") {
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		t := ts.next()
		r, err := ts.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{p: t.p, op: "or", l: l, r: r}
	}
	return l, nil
}

func (ts *tokens) parseAnd() (expr, error) {
	defer ts.restore(ts.depth)
	l, err := ts.parseNot()
	if err != nil {
		return nil, err
	}
	for ts.peekName("and") {
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		t := ts.next()
		r, err := ts.parseNot()
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{p: t.p, op: "and", l: l, r: r}
	}
	return l, nil
}

func (ts *tokens) parseNot() (expr, error) {
	defer ts.restore(ts.depth)
	if ts.peekName("not") {
		t := ts.next()
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		x, err := ts.parseNot()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{p: t.p, op: "not", x: x}, nil
	}
	return ts.parseCompare()
}

func (ts *tokens) parseCompare() (expr, error) {
	defer ts.restore(ts.depth)
	l, err := ts.parseMath1()
	if err != nil {
		return nil, err
	}
	for {
		t := ts.peek()
		op := ""
		switch {
		case t.kind == tokOp && (t.s == "==" || t.s == "!=" || t.s == "<" || t.s == "<=" || t.s == ">" || t.s == ">="):
			op = t.s
			ts.next()
		case t.kind == tokName && t.s == "in":
			op = "in"
			ts.next()
		case t.kind == tokName && t.s == "not" && ts.i+1 < len(ts.toks) && ts.toks[ts.i+1].kind == tokName && ts.toks[ts.i+1].s == "in":
			op = "notin"
			ts.next()
			ts.next()
		default:
			return l, nil
		}
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		r, err := ts.parseMath1()
		if err != nil {
			return nil, err
		}
		if b, ok := l.(*binaryExpr); ok && isCompareOp(b.op) {
			// a < b < c is (a < b) and (b < c) in Jinja; keep it explicit.
			return nil, &syntaxError{p: t.p, kind: ErrUnsupported, msg: "chained comparisons are not supported; write (a < b) and (b < c)"}
		}
		l = &binaryExpr{p: t.p, op: op, l: l, r: r}
	}
}

func isCompareOp(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=", "in", "notin":
		return true
	}
	return false
}

func (ts *tokens) parseMath1() (expr, error) {
	defer ts.restore(ts.depth)
	l, err := ts.parseConcat()
	if err != nil {
		return nil, err
	}
	for ts.peekOp("+") || ts.peekOp("-") {
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		t := ts.next()
		r, err := ts.parseConcat()
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{p: t.p, op: t.s, l: l, r: r}
	}
	return l, nil
}

func (ts *tokens) parseConcat() (expr, error) {
	defer ts.restore(ts.depth)
	l, err := ts.parseMath2()
	if err != nil {
		return nil, err
	}
	for ts.peekOp("~") {
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		t := ts.next()
		r, err := ts.parseMath2()
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{p: t.p, op: "~", l: l, r: r}
	}
	return l, nil
}

func (ts *tokens) parseMath2() (expr, error) {
	defer ts.restore(ts.depth)
	l, err := ts.parsePow()
	if err != nil {
		return nil, err
	}
	for ts.peekOp("*") || ts.peekOp("/") || ts.peekOp("//") || ts.peekOp("%") {
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		t := ts.next()
		r, err := ts.parsePow()
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{p: t.p, op: t.s, l: l, r: r}
	}
	return l, nil
}

func (ts *tokens) parsePow() (expr, error) {
	defer ts.restore(ts.depth)
	l, err := ts.parseUnary(true)
	if err != nil {
		return nil, err
	}
	for ts.peekOp("**") {
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		t := ts.next()
		r, err := ts.parseUnary(true)
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{p: t.p, op: "**", l: l, r: r}
	}
	return l, nil
}

func (ts *tokens) parseUnary(withFilter bool) (expr, error) {
	defer ts.restore(ts.depth)
	var x expr
	if ts.peekOp("-") || ts.peekOp("+") {
		t := ts.next()
		if err := ts.deeper(); err != nil {
			return nil, err
		}
		inner, err := ts.parseUnary(false)
		if err != nil {
			return nil, err
		}
		x = &unaryExpr{p: t.p, op: t.s, x: inner}
	} else {
		var err error
		if x, err = ts.parsePrimary(); err != nil {
			return nil, err
		}
	}
	x, err := ts.parsePostfix(x)
	if err != nil {
		return nil, err
	}
	if withFilter {
		return ts.parseFilterExpr(x)
	}
	return x, nil
}

func (ts *tokens) parsePrimary() (expr, error) {
	t := ts.next()
	switch t.kind {
	case tokName:
		switch t.s {
		case "true", "True":
			return &constExpr{p: t.p, v: true}, nil
		case "false", "False":
			return &constExpr{p: t.p, v: false}, nil
		case "none", "None":
			return &constExpr{p: t.p, v: nil}, nil
		}
		if isReserved(t.s) {
			return nil, errAt(t.p, "unexpected %q", t.s)
		}
		return &nameExpr{p: t.p, name: t.s}, nil
	case tokString:
		s := t.s
		for ts.peek().kind == tokString { // adjacent literals concatenate
			s += ts.next().s
		}
		return &constExpr{p: t.p, v: s}, nil
	case tokInt:
		return &constExpr{p: t.p, v: t.i}, nil
	case tokFloat:
		return &constExpr{p: t.p, v: t.f}, nil
	case tokOp:
		switch t.s {
		case "(":
			x, err := ts.parseExpr()
			if err != nil {
				return nil, err
			}
			if ts.peekOp(",") {
				return nil, &syntaxError{p: ts.peek().p, kind: ErrUnsupported, msg: "tuples are not supported; use a list: [a, b]"}
			}
			if _, err := ts.expectOp(")"); err != nil {
				return nil, err
			}
			return x, nil
		case "[":
			l := &listExpr{p: t.p}
			for !ts.peekOp("]") {
				x, err := ts.parseExpr()
				if err != nil {
					return nil, err
				}
				l.items = append(l.items, x)
				if !ts.peekOp(",") {
					break
				}
				ts.next()
			}
			if _, err := ts.expectOp("]"); err != nil {
				return nil, err
			}
			return l, nil
		case "{":
			d := &dictExpr{p: t.p}
			for !ts.peekOp("}") {
				k, err := ts.parseExpr()
				if err != nil {
					return nil, err
				}
				if _, err := ts.expectOp(":"); err != nil {
					return nil, err
				}
				v, err := ts.parseExpr()
				if err != nil {
					return nil, err
				}
				d.keys = append(d.keys, k)
				d.values = append(d.values, v)
				if !ts.peekOp(",") {
					break
				}
				ts.next()
			}
			if _, err := ts.expectOp("}"); err != nil {
				return nil, err
			}
			return d, nil
		}
	}
	return nil, errAt(t.p, "unexpected %s in expression", t)
}

func (ts *tokens) parsePostfix(x expr) (expr, error) {
	defer ts.restore(ts.depth)
	for {
		if ts.peekOp(".") || ts.peekOp("[") || ts.peekOp("(") {
			if err := ts.deeper(); err != nil {
				return nil, err
			}
		}
		switch {
		case ts.peekOp("."):
			t := ts.next()
			n := ts.next()
			switch n.kind {
			case tokName:
				x = &attrExpr{p: t.p, x: x, name: n.s}
			case tokInt:
				x = &indexExpr{p: t.p, x: x, index: &constExpr{p: n.p, v: n.i}}
			default:
				return nil, errAt(n.p, "expected an attribute name after \".\", found %s", n)
			}
		case ts.peekOp("["):
			t := ts.next()
			var parts [3]expr
			k := 0
			isSlice := false
			for {
				if ts.peekOp(":") {
					isSlice = true
					ts.next()
					k++
					if k > 2 {
						return nil, errAt(t.p, "too many \":\" in a slice")
					}
					continue
				}
				if ts.peekOp("]") {
					break
				}
				e, err := ts.parseExpr()
				if err != nil {
					return nil, err
				}
				parts[k] = e
				if !ts.peekOp(":") && !ts.peekOp("]") {
					return nil, errAt(ts.peek().p, "expected \"]\", found %s", ts.peek())
				}
			}
			ts.next()
			if isSlice {
				x = &sliceExpr{p: t.p, x: x, start: parts[0], stop: parts[1], step: parts[2]}
			} else {
				if parts[0] == nil {
					return nil, errAt(t.p, "empty subscript")
				}
				x = &indexExpr{p: t.p, x: x, index: parts[0]}
			}
		case ts.peekOp("("):
			t := ts.next()
			args, kwargs, err := ts.parseArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{p: t.p, fn: x, args: args, kwargs: kwargs}
		default:
			return x, nil
		}
	}
}

// parseArgs parses call arguments after "(" up to and including ")".
func (ts *tokens) parseArgs() ([]expr, []kwarg, error) {
	var args []expr
	var kwargs []kwarg
	for !ts.peekOp(")") {
		if t := ts.peek(); t.kind == tokName && ts.i+1 < len(ts.toks) && ts.toks[ts.i+1].kind == tokOp && ts.toks[ts.i+1].s == "=" {
			ts.next()
			ts.next()
			x, err := ts.parseExpr()
			if err != nil {
				return nil, nil, err
			}
			kwargs = append(kwargs, kwarg{name: t.s, x: x})
		} else {
			if len(kwargs) > 0 {
				return nil, nil, errAt(t.p, "positional argument after keyword argument")
			}
			x, err := ts.parseExpr()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, x)
		}
		if !ts.peekOp(",") {
			break
		}
		ts.next()
	}
	if _, err := ts.expectOp(")"); err != nil {
		return nil, nil, err
	}
	return args, kwargs, nil
}

func (ts *tokens) parseFilterExpr(x expr) (expr, error) {
	defer ts.restore(ts.depth)
	for {
		if ts.peekOp("|") || ts.peekName("is") {
			if err := ts.deeper(); err != nil {
				return nil, err
			}
		}
		switch {
		case ts.peekOp("|"):
			ts.next()
			n := ts.next()
			if n.kind != tokName {
				return nil, errAt(n.p, "expected a filter name after \"|\", found %s", n)
			}
			f := &filterExpr{p: n.p, x: x, name: n.s}
			if ts.peekOp("(") {
				ts.next()
				args, kwargs, err := ts.parseArgs()
				if err != nil {
					return nil, err
				}
				f.args, f.kwargs = args, kwargs
			} else if ts.peekOp(":") {
				return nil, &syntaxError{p: ts.peek().p, kind: ErrUnsupported, msg: fmt.Sprintf("Django filter arguments (%s:arg) are not supported; write Jinja's %s(arg)", n.s, n.s)}
			}
			x = f
		case ts.peekName("is"):
			t := ts.next()
			te := &testExpr{p: t.p, x: x}
			if ts.peekName("not") {
				ts.next()
				te.not = true
			}
			n := ts.next()
			if n.kind != tokName {
				if n.kind == tokName || (n.kind == tokOp) {
					return nil, errAt(n.p, "expected a test name after \"is\", found %s", n)
				}
			}
			te.name = n.s
			switch n.kind {
			case tokName:
				if n.s == "none" || n.s == "None" {
					te.name = "none"
				}
				if n.s == "true" || n.s == "false" {
					te.name = n.s
				}
			default:
				return nil, errAt(n.p, "expected a test name after \"is\", found %s", n)
			}
			if ts.peekOp("(") {
				ts.next()
				args, _, err := ts.parseArgs()
				if err != nil {
					return nil, err
				}
				te.args = args
			} else if k := ts.peek(); k.kind == tokString || k.kind == tokInt || k.kind == tokFloat {
				a, err := ts.parsePrimary()
				if err != nil {
					return nil, err
				}
				te.args = []expr{a}
			}
			x = te
		default:
			return x, nil
		}
	}
}
