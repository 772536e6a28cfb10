//promptkit:allow-inline the translator emits pongo2 template syntax
package manager

import (
	"fmt"
	"strconv"
	"strings"
)

// The translator turns a checked Jinja tree into pongo2 source. Control
// flow, variables and attribute paths stay native pongo2, so the hot path
// is pongo2's own; the places where Django's dialect differs from Jinja's
// go through promptkit's filters (pk_*) and the helper object _pkf, which
// implement Python's semantics.

const (
	rootTag  = "promptkit_root"
	funcsKey = "_pkf"
	stateKey = "_pk"
)

type translator struct {
	b strings.Builder
}

func translate(nodes []node) (string, error) {
	t := &translator{}
	t.b.WriteString("{% " + rootTag + " %}")
	if err := t.nodes(nodes); err != nil {
		return "", err
	}
	t.b.WriteString("{% end" + rootTag + " %}")
	return t.b.String(), nil
}

func (t *translator) nodes(nodes []node) error {
	for _, n := range nodes {
		if err := t.node(n); err != nil {
			return err
		}
	}
	return nil
}

func (t *translator) node(n node) error {
	switch n := n.(type) {
	case *textNode:
		writeText(&t.b, n.text)
	case *outputNode:
		return t.output(n.x)
	case *ifNode:
		for i, c := range n.conds {
			cs, err := t.cond(c)
			if err != nil {
				return err
			}
			if i == 0 {
				t.b.WriteString("{% if " + cs + " %}")
			} else {
				t.b.WriteString("{% elif " + cs + " %}")
			}
			if err := t.nodes(n.bodies[i]); err != nil {
				return err
			}
		}
		if n.elseBody != nil {
			t.b.WriteString("{% else %}")
			if err := t.nodes(n.elseBody); err != nil {
				return err
			}
		}
		t.b.WriteString("{% endif %}")
	case *forNode:
		it, err := t.path(n.iter)
		if err != nil {
			return err
		}
		if n.items {
			it += " sorted" // pongo2 visits a mapping's keys sorted only when asked
		} else {
			it += "|pk_iter" // mapping keys sorted; lists pass through untouched
		}
		t.b.WriteString("{% for " + strings.Join(n.targets, ", ") + " in " + it + " %}{% " + guardTag + " %}")
		if err := t.nodes(n.body); err != nil {
			return err
		}
		if n.elseBody != nil {
			t.b.WriteString("{% empty %}")
			if err := t.nodes(n.elseBody); err != nil {
				return err
			}
		}
		t.b.WriteString("{% endfor %}")
	case *setNode:
		if n.x == nil {
			return &syntaxError{p: n.p, kind: ErrUnsupported, msg: "block {% set %}…{% endset %} is not supported; use {% set name = value %}"}
		}
		x, err := t.expr(n.x)
		if err != nil {
			return err
		}
		t.b.WriteString("{% set " + n.name + " = " + x + " %}")
	case *withNode:
		t.b.WriteString("{% with")
		for i, name := range n.names {
			x, err := t.expr(n.xs[i])
			if err != nil {
				return err
			}
			t.b.WriteString(" " + name + "=" + x)
		}
		t.b.WriteString(" %}")
		if err := t.nodes(n.body); err != nil {
			return err
		}
		t.b.WriteString("{% endwith %}")
	case *includeNode:
		return t.nodes(n.body)
	case *chatNode:
		return t.chat(n)
	case *imageNode:
		return t.image(n)
	default:
		return fmt.Errorf("manager: internal error: unknown node %T", n)
	}
	return nil
}

// writeText writes literal text so that pongo2 prints it unchanged: a "{"
// that would open a pongo2 tag is written as an expression printing "{".
func writeText(b *strings.Builder, s string) {
	for {
		i := nextDelim(s, 0)
		if i < 0 {
			// A "{" at the very end would join the next emitted tag.
			if strings.HasSuffix(s, "{") {
				b.WriteString(s[:len(s)-1])
				b.WriteString(`{{ "{" }}`)
				return
			}
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		b.WriteString(`{{ "{" }}`)
		s = s[i+1:]
	}
}

// output prints an expression the way Python's str() does.
func (t *translator) output(x expr) error {
	// A conditional expression at the top of an output becomes if/else tags,
	// so the branch not taken is never evaluated, as in Jinja.
	if c, ok := x.(*condExpr); ok {
		cs, err := t.cond(c.cond)
		if err != nil {
			return err
		}
		t.b.WriteString("{% if " + cs + " %}")
		if err := t.output(c.then); err != nil {
			return err
		}
		if c.els_ != nil {
			t.b.WriteString("{% else %}")
			if err := t.output(c.els_); err != nil {
				return err
			}
		}
		t.b.WriteString("{% endif %}")
		return nil
	}
	if c, ok := x.(*constExpr); ok {
		// Constants are printed at translation time.
		writeText(&t.b, pyStr(normalizeConst(c.v)))
		return nil
	}
	s, err := t.path(x)
	if err != nil {
		return err
	}
	// The print tag is str(): strings as they are, anything else as Python
	// prints it.
	t.b.WriteString("{% " + printTag + " " + s + " %}")
	return nil
}

func normalizeConst(v any) any {
	if v == nil {
		return none
	}
	return v
}

// cond translates an expression used as a condition: and/or may stay
// native there, since only truth matters.
func (t *translator) cond(x expr) (string, error) {
	if b, ok := x.(*binaryExpr); ok && (b.op == "and" || b.op == "or") {
		l, err := t.cond(b.l)
		if err != nil {
			return "", err
		}
		r, err := t.cond(b.r)
		if err != nil {
			return "", err
		}
		return "(" + l + " " + b.op + " " + r + ")", nil
	}
	if u, ok := x.(*unaryExpr); ok && u.op == "not" {
		s, err := t.cond(u.x)
		if err != nil {
			return "", err
		}
		return "(not " + s + ")", nil
	}
	return t.expr(x)
}

// path translates x into something pongo2 accepts where only a variable
// or a literal may stand (a for iterable, before a filter, as a filter
// argument): any other expression is wrapped in _pkf.V(…).
func (t *translator) path(x expr) (string, error) {
	s, isPath, err := t.expr2(x)
	if err != nil {
		return "", err
	}
	if isPath {
		return s, nil
	}
	return funcsKey + ".V(" + s + ")", nil
}

func (t *translator) expr(x expr) (string, error) {
	s, _, err := t.expr2(x)
	return s, err
}

// expr2 translates an expression and reports whether the result is a
// pongo2 variable path or literal (to which filters can be applied).
func (t *translator) expr2(x expr) (string, bool, error) {
	switch e := x.(type) {
	case *nameExpr:
		return e.name, true, nil
	case *constExpr:
		return t.constant(e.v), true, nil
	case *listExpr:
		s, err := t.call("List", e.items...)
		return s, true, err
	case *dictExpr:
		var args []expr
		for i := range e.keys {
			args = append(args, e.keys[i], e.values[i])
		}
		s, err := t.call("Dict", args...)
		return s, true, err
	case *attrExpr:
		if n, ok := e.x.(*nameExpr); ok && n.name == "loop" {
			return loopAttr(e)
		}
		base, isPath, err := t.expr2(e.x)
		if err != nil {
			return "", false, err
		}
		if isPath && !strings.HasPrefix(base, `"`) && !isNumberLit(base) {
			return base + "." + e.name, true, nil
		}
		return funcsKey + ".Attr(" + base + ", " + strconv.Quote(e.name) + ")", true, nil
	case *indexExpr:
		base, isPath, err := t.expr2(e.x)
		if err != nil {
			return "", false, err
		}
		if c, ok := e.index.(*constExpr); ok && isPath && !strings.HasPrefix(base, `"`) && !isNumberLit(base) {
			switch v := c.v.(type) {
			case int64:
				if v >= 0 {
					return base + "." + strconv.FormatInt(v, 10), true, nil
				}
			case string:
				if isIdent(v) && !strings.HasPrefix(v, "_pk") {
					return base + "." + v, true, nil
				}
			}
		}
		idx, err := t.expr(e.index)
		if err != nil {
			return "", false, err
		}
		return funcsKey + ".Index(" + base + ", " + idx + ")", true, nil
	case *sliceExpr:
		parts := []expr{e.x, e.start, e.stop, e.step}
		for i, p := range parts {
			if p == nil {
				parts[i] = &constExpr{v: nil}
			}
		}
		s, err := t.call("Slice", parts...)
		return s, true, err
	case *callExpr:
		return t.callExpr(e)
	case *filterExpr:
		return t.filter(e)
	case *testExpr:
		return t.test(e)
	case *unaryExpr:
		// Translate the operand once: translating it here and again inside
		// call made nested unary operators cost 2^depth.
		switch e.op {
		case "not":
			s, err := t.call("Not", e.x)
			return s, true, err
		case "-":
			s, err := t.call("Neg", e.x)
			return s, true, err
		}
		inner, err := t.expr(e.x)
		if err != nil {
			return "", false, err
		}
		return inner, false, nil
	case *binaryExpr:
		switch e.op {
		case "~":
			var parts []expr
			flattenConcat(e, &parts)
			s, err := t.call("Cat", parts...)
			return s, true, err
		case "in":
			l, err := t.expr(e.l)
			if err != nil {
				return "", false, err
			}
			r, err := t.expr(e.r)
			if err != nil {
				return "", false, err
			}
			return "(" + l + " in " + r + ")", false, nil
		case "notin":
			l, err := t.expr(e.l)
			if err != nil {
				return "", false, err
			}
			r, err := t.expr(e.r)
			if err != nil {
				return "", false, err
			}
			return "(not (" + l + " in " + r + "))", false, nil
		case "and", "or":
			s, err := t.call(map[string]string{"and": "And", "or": "Or"}[e.op], e.l, e.r)
			return s, true, err
		default:
			s, err := t.callOp(e.op, e.l, e.r)
			return s, true, err
		}
	case *condExpr:
		els := e.els_
		if els == nil {
			els = &constExpr{v: undefinedConst{}}
		}
		s, err := t.call("If", e.cond, e.then, els)
		return s, true, err
	}
	return "", false, fmt.Errorf("manager: internal error: unknown expression %T", x)
}

// undefinedConst marks the missing else of "a if c": Jinja's undefined.
type undefinedConst struct{}

func flattenConcat(x expr, out *[]expr) {
	if b, ok := x.(*binaryExpr); ok && b.op == "~" {
		flattenConcat(b.l, out)
		flattenConcat(b.r, out)
		return
	}
	*out = append(*out, x)
}

func isNumberLit(s string) bool {
	return s != "" && (isDigit(s[0]) || s[0] == '(')
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || isASCIILetter(c) || (i > 0 && isDigit(c))) {
			return false
		}
	}
	return true
}

// loopAttr maps Jinja's loop variable onto pongo2's forloop.
func loopAttr(e *attrExpr) (string, bool, error) {
	switch e.name {
	case "index":
		return "forloop.Counter", true, nil
	case "index0":
		return "forloop.Counter0", true, nil
	case "revindex":
		return "forloop.Revcounter", true, nil
	case "revindex0":
		return "forloop.Revcounter0", true, nil
	case "first":
		return "forloop.First", true, nil
	case "last":
		return "forloop.Last", true, nil
	case "length":
		return "(forloop.Counter0 + forloop.Revcounter)", false, nil
	}
	return "", false, &syntaxError{p: e.p, kind: ErrUnsupported, msg: fmt.Sprintf("loop.%s is not supported; supported: loop.index, loop.index0, loop.revindex, loop.revindex0, loop.first, loop.last, loop.length", e.name)}
}

func (t *translator) constant(v any) string {
	switch v := v.(type) {
	case nil:
		return funcsKey + ".None"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int64:
		if v < 0 {
			return "(" + strconv.FormatInt(v, 10) + ")"
		}
		return strconv.FormatInt(v, 10)
	case float64:
		if v < 0 || v != v || v > 1e300 {
			return funcsKey + ".Float(" + strconv.Quote(strconv.FormatFloat(v, 'g', -1, 64)) + ")"
		}
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case string:
		if strings.ContainsAny(v, "\n\r\t\x00") || !isPrintable(v) {
			return funcsKey + ".Unquote(" + pongoString(strconv.Quote(v)) + ")"
		}
		return pongoString(v)
	case undefinedConst:
		return funcsKey + ".Undefined"
	}
	panic(fmt.Sprintf("manager: internal error: constant %T", v))
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// pongoString writes a pongo2 string literal (pongo2 knows only \" and \\).
func pongoString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

func (t *translator) call(fn string, args ...expr) (string, error) {
	var b strings.Builder
	b.WriteString(funcsKey + "." + fn + "(")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		s, err := t.expr(a)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	b.WriteString(")")
	return b.String(), nil
}

func (t *translator) callOp(op string, l, r expr) (string, error) {
	ls, err := t.expr(l)
	if err != nil {
		return "", err
	}
	rs, err := t.expr(r)
	if err != nil {
		return "", err
	}
	return funcsKey + ".Op(" + strconv.Quote(op) + ", " + ls + ", " + rs + ")", nil
}

// methods maps Python methods callable on values to _pkf helpers.
var methods = map[string]struct {
	fn         string
	minA, maxA int
}{
	"items":      {"Items", 0, 0},
	"keys":       {"Keys", 0, 0},
	"values":     {"Values", 0, 0},
	"get":        {"Get", 1, 2},
	"upper":      {"Upper", 0, 0},
	"lower":      {"Lower", 0, 0},
	"strip":      {"Strip", 0, 1},
	"startswith": {"StartsWith", 1, 1},
	"endswith":   {"EndsWith", 1, 1},
	"split":      {"Split", 0, 1},
	"replace":    {"Replace", 2, 2},
}

func (t *translator) callExpr(e *callExpr) (string, bool, error) {
	if len(e.kwargs) > 0 {
		return "", false, &syntaxError{p: e.p, kind: ErrUnsupported, msg: "keyword arguments in calls are not supported"}
	}
	switch fn := e.fn.(type) {
	case *nameExpr:
		if fn.name == "range" && len(e.args) >= 1 && len(e.args) <= 3 {
			s, err := t.call("Range", e.args...)
			return s, true, err
		}
		return "", false, &syntaxError{p: e.p, kind: ErrUnsupported, msg: fmt.Sprintf("calling %q is not supported; the only global function is range(n)", fn.name)}
	case *attrExpr:
		m, ok := methods[fn.name]
		if !ok || len(e.args) < m.minA || len(e.args) > m.maxA {
			return "", false, &syntaxError{p: e.p, kind: ErrUnsupported, msg: fmt.Sprintf("method %s(…) is not supported; supported methods: items(), keys(), values(), get(k[, default]), upper(), lower(), strip(), startswith(s), endswith(s), split([sep]), replace(a, b)", fn.name)}
		}
		s, err := t.call(m.fn, append([]expr{fn.x}, e.args...)...)
		return s, true, err
	}
	return "", false, &syntaxError{p: e.p, kind: ErrUnsupported, msg: "only range(…) and methods such as d.items() can be called"}
}

func (t *translator) filter(e *filterExpr) (string, bool, error) {
	spec, ok := filterSpecs[e.name]
	if !ok {
		return "", false, &syntaxError{p: e.p, kind: ErrUnsupported, msg: fmt.Sprintf("filter %q is not supported; supported filters: %s", e.name, supportedFilterList())}
	}
	nargs := len(e.args) + len(e.kwargs)
	if nargs < spec.minArgs || len(e.args) > spec.maxArgs {
		return "", false, errAt(e.p, "filter %s takes %s", e.name, spec.argsDoc)
	}
	for _, kw := range e.kwargs {
		if !contains(spec.kwargs, kw.name) {
			return "", false, errAt(e.p, "filter %s has no argument %q", e.name, kw.name)
		}
	}
	base, err := t.path(e.x)
	if err != nil {
		return "", false, err
	}
	name := "pk_" + e.name
	switch {
	case nargs == 0:
		return base + "|" + name, true, nil
	case len(e.args) == 1 && len(e.kwargs) == 0 && isConstExpr(e.args[0]):
		// A constant argument travels as pongo2's one filter parameter. Any
		// other goes in a pack (below): pongo2 passes an undefined parameter
		// and no parameter alike, and default(b) must tell them apart.
		a, err := t.path(e.args[0])
		if err != nil {
			return "", false, err
		}
		return base + "|" + name + ":" + a, true, nil
	default:
		var b strings.Builder
		b.WriteString(funcsKey + ".Args(")
		for i, a := range e.args {
			if i > 0 {
				b.WriteString(", ")
			}
			s, err := t.expr(a)
			if err != nil {
				return "", false, err
			}
			b.WriteString(s)
		}
		for i, kw := range e.kwargs {
			if i > 0 || len(e.args) > 0 {
				b.WriteString(", ")
			}
			s, err := t.expr(kw.x)
			if err != nil {
				return "", false, err
			}
			b.WriteString(funcsKey + ".Kw(" + strconv.Quote(kw.name) + ", " + s + ")")
		}
		b.WriteString(")")
		return base + "|" + name + ":" + b.String(), true, nil
	}
}

func isConstExpr(x expr) bool {
	_, ok := x.(*constExpr)
	return ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (t *translator) test(e *testExpr) (string, bool, error) {
	var s string
	var err error
	switch e.name {
	case "defined", "undefined":
		switch x := e.x.(type) {
		case *nameExpr:
			s = funcsKey + ".Defined(" + strconv.Quote(x.name) + ")"
		default:
			s, err = t.call("NotUndefined", x)
		}
		if err != nil {
			return "", false, err
		}
		if (e.name == "undefined") != e.not {
			return "(not " + s + ")", false, nil
		}
		return s, true, nil
	}
	if _, ok := testNames[e.name]; !ok {
		return "", false, &syntaxError{p: e.p, kind: ErrUnsupported, msg: fmt.Sprintf("test %q is not supported; supported tests: defined, undefined, none, true, false, string, number, integer, float, mapping, sequence, iterable, even, odd, divisibleby(n), eq(x), lower, upper", e.name)}
	}
	args := append([]expr{&constExpr{v: e.name}, e.x}, e.args...)
	s, err = t.call("Test", args...)
	if err != nil {
		return "", false, err
	}
	if e.not {
		return "(not " + s + ")", false, nil
	}
	return s, true, nil
}
