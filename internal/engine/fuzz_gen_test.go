package engine_test

import (
	"fmt"
	"strconv"
	"strings"
)

// A generator of templates from a grammar of the constructs promptkit
// supports, driven by the fuzzer's bytes: every choice reads one byte, so
// the fuzzer's mutations move through the grammar, and an input that runs
// out of bytes ends in the smallest choices (short templates). Each
// expression is generated for a kind of value (string, number, boolean,
// list, dict or any), so that most templates render instead of failing on
// a type error; names are only read where they are bound, as promptkit's
// checks require (Jinja2 would make them undefined).

type gen struct {
	data  []byte
	pos   int
	b     strings.Builder
	scope []string // local names bound here (loop variables, set, macro parameters)
	loops int      // loops around the current point
	depth int      // expression nesting
	nodes int      // statements generated
	level int      // nested blocks
	macro []macroSig
	hf    bool // Hugging Face's environment: loop controls are there
	inMac bool // inside a macro body: only its parameters and the variables
}

type macroSig struct {
	name   string
	params int // required parameters
	opt    int // parameters with defaults
	caller bool
}

// pick returns a choice in [0, n).
func (g *gen) pick(n int) int {
	if g.pos >= len(g.data) || n <= 1 {
		return 0
	}
	c := int(g.data[g.pos])
	g.pos++
	return c % n
}

// chance is true one time in k; never once the input has run out (so no
// loop of chances runs forever).
func (g *gen) chance(k int) bool { return k > 1 && g.pick(k) == k-1 }

func (g *gen) w(s ...string) {
	for _, x := range s {
		g.b.WriteString(x)
	}
}

// The variables every generated template may read, with values chosen by
// the input too (genVars).
var fuzzVarNames = struct {
	str, num, boolean, list, dict []string
}{
	str:     []string{"s1", "s2"},
	num:     []string{"n1", "n2", "f1"},
	boolean: []string{"b1"},
	list:    []string{"l1", "l2", "l3"},
	dict:    []string{"d1", "users"},
}

var (
	fuzzStrings = []string{"", "a", "ab", "Hello World", "hello world", "x y z", "查询天气", " pad ", "a,b,,c", "A-b_c d.e",
		"it's", "%s", "{}", "<b>x</b> &amp;", "line\nnext", "ÀÉ ß", "3.5", "42", "True", "aAbB", "tab\tx", "  ", "ǆ title"}
	fuzzInts   = []int64{0, 1, 2, 3, -1, 7, 10, 100, -7, 5, 12, 255}
	fuzzFloats = []float64{0.5, 1.5, 2.0, -2.5, 0.1, 3.14159, 1e3, 1e-5, 2.675, -0.0, 100.0, 1e16, 0.3}
)

// genVars makes the values: one of several shapes per variable.
func (g *gen) genVars() map[string]any {
	str := func() any { return fuzzStrings[g.pick(len(fuzzStrings))] }
	num := func() any {
		if g.chance(3) {
			return fuzzFloats[g.pick(len(fuzzFloats))]
		}
		return fuzzInts[g.pick(len(fuzzInts))]
	}
	scalar := func() any {
		switch g.pick(6) {
		case 0:
			return str()
		case 1:
			return fuzzInts[g.pick(len(fuzzInts))]
		case 2:
			return fuzzFloats[g.pick(len(fuzzFloats))]
		case 3:
			return g.chance(2)
		case 4:
			return nil
		}
		return str()
	}
	list := func(item func() any) []any {
		n := g.pick(5)
		out := make([]any, n)
		for i := range out {
			out[i] = item()
		}
		return out
	}
	users := func() []any {
		names := []string{"Ann", "bob", "Cy", "dee", "Ann"}
		roles := []string{"admin", "user", "user", "guest"}
		n := 1 + g.pick(4)
		out := make([]any, n)
		for i := range out {
			u := map[string]any{"name": names[g.pick(len(names))], "age": fuzzInts[g.pick(len(fuzzInts))], "role": roles[g.pick(len(roles))]}
			if !g.chance(4) {
				u["tags"] = list(str)
			}
			out[i] = u
		}
		return out
	}
	dict := func() map[string]any {
		keys := []string{"a", "b", "C", "key", "name", "x y", "查"}
		d := map[string]any{}
		for i, n := 0, g.pick(5); i < n; i++ {
			d[keys[g.pick(len(keys))]] = scalar()
		}
		return d
	}
	return map[string]any{
		"s1": str(), "s2": str(),
		"n1": fuzzInts[g.pick(len(fuzzInts))], "n2": num(), "f1": fuzzFloats[g.pick(len(fuzzFloats))],
		"b1":    g.chance(2),
		"l1":    list(func() any { return fuzzInts[g.pick(len(fuzzInts))] }),
		"l2":    list(str),
		"l3":    list(scalar),
		"d1":    dict(),
		"users": users(),
	}
}

// lit writes a string literal in Jinja's syntax.
func lit(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

type kind int

const (
	kStr kind = iota
	kNum
	kBool
	kList
	kDict
	kAny
)

// local returns a bound local name, or "".
func (g *gen) local() string {
	if len(g.scope) == 0 {
		return ""
	}
	return g.scope[g.pick(len(g.scope))]
}

func (g *gen) varOf(names []string) string {
	return names[g.pick(len(names))]
}

// expr writes an expression meant to give a value of kind k.
func (g *gen) expr(k kind) string {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 4 {
		return g.atom(k)
	}
	switch k {
	case kStr:
		return g.strExpr()
	case kNum:
		return g.numExpr()
	case kBool:
		return g.boolExpr()
	case kList:
		return g.listExpr()
	case kDict:
		return g.dictExpr()
	}
	return g.anyExpr()
}

func (g *gen) atom(k kind) string {
	switch k {
	case kStr:
		if g.chance(2) {
			return g.varOf(fuzzVarNames.str)
		}
		return lit(fuzzStrings[g.pick(len(fuzzStrings))])
	case kNum:
		switch g.pick(4) {
		case 0:
			return g.varOf(fuzzVarNames.num)
		case 1:
			return strconv.FormatFloat(fuzzFloats[g.pick(len(fuzzFloats))], 'g', -1, 64)
		case 2:
			if g.loops > 0 && !g.inMac {
				return "loop." + []string{"index", "index0", "revindex", "revindex0", "length"}[g.pick(5)]
			}
		}
		return strconv.FormatInt(fuzzInts[g.pick(len(fuzzInts))], 10)
	case kBool:
		switch g.pick(4) {
		case 0:
			return "b1"
		case 1:
			return []string{"true", "false", "True", "none"}[g.pick(4)]
		case 2:
			if g.loops > 0 && !g.inMac {
				return "loop." + []string{"first", "last"}[g.pick(2)]
			}
		}
		return g.varOf(fuzzVarNames.boolean)
	case kList:
		if g.chance(3) {
			return "[" + g.atom(kNum) + ", " + g.atom(kNum) + "]"
		}
		return g.varOf(fuzzVarNames.list)
	case kDict:
		return g.varOf(fuzzVarNames.dict[:1])
	}
	switch g.pick(5) {
	case 0:
		if l := g.local(); l != "" {
			return l
		}
	case 1:
		return "missing_o"
	case 2:
		return "none"
	}
	return g.atom(kind(g.pick(5)))
}

func (g *gen) strExpr() string {
	switch g.pick(16) {
	case 0, 1:
		return g.atom(kStr)
	case 2:
		return g.expr(kAny) + " ~ " + g.expr(kAny)
	case 3:
		f := []string{"upper", "lower", "title", "capitalize", "trim", "striptags", "escape", "urlencode", "string", "e", "forceescape", "wordcount|string", "length|string", "reverse", "first", "last", "pprint",
			"safe", "urlize", "filesizeformat", "center", "list|join('.')", "string|list|last"}
		return g.recv(kStr) + "|" + f[g.pick(len(f))]
	case 4:
		switch g.pick(9) {
		case 0:
			return g.recv(kStr) + "|replace(" + g.atom(kStr) + ", " + g.atom(kStr) + ")"
		case 1:
			return g.recv(kStr) + "|center(" + strconv.Itoa(g.pick(20)) + ")"
		case 2:
			return g.recv(kStr) + "|indent(" + strconv.Itoa(g.pick(5)) + []string{"", ", true", ", true, true", ", first=true"}[g.pick(4)] + ")"
		case 3:
			return g.recv(kStr) + "|truncate(" + strconv.Itoa(g.pick(20)) + []string{"", ", true", ", false, '…'", ", true, '', 0"}[g.pick(4)] + ")"
		case 4:
			return g.recv(kStr) + "|wordwrap(" + strconv.Itoa(1+g.pick(12)) + []string{"", ", false", ", true, '|'"}[g.pick(3)] + ")"
		case 5:
			return g.recv(kAny) + "|default(" + g.atom(kStr) + []string{"", ", true"}[g.pick(2)] + ")"
		case 6:
			return g.recv(kStr) + "|format(" + g.atom(kAny) + ")"
		case 7:
			return g.recv(kStr) + "|trim(" + g.atom(kStr) + ")"
		}
		return g.recv(kAny) + "|tojson" + []string{"", "(2)", "(indent=1)"}[g.pick(3)]
	case 5:
		m := []string{"upper()", "lower()", "title()", "capitalize()", "strip()", "lstrip()", "rstrip()", "swapcase()", "casefold()"}
		return g.recv(kStr) + "." + m[g.pick(len(m))]
	case 6:
		switch g.pick(8) {
		case 0:
			return g.recv(kStr) + ".replace(" + g.atom(kStr) + ", " + g.atom(kStr) + ")"
		case 1:
			return g.recv(kStr) + ".strip(" + g.atom(kStr) + ")"
		case 2:
			return g.recv(kStr) + "." + []string{"center", "ljust", "rjust"}[g.pick(3)] + "(" + strconv.Itoa(g.pick(15)) + []string{"", ", '*'"}[g.pick(2)] + ")"
		case 3:
			return g.recv(kStr) + ".zfill(" + strconv.Itoa(g.pick(8)) + ")"
		case 4:
			return lit([]string{"{}-{}", "{0}{0}", "{:>6}|{:<4}", "{:.2f}", "{:,}", "{!r}"}[g.pick(6)]) + ".format(" + g.atom(kAny) + ", " + g.atom(kAny) + ")"
		case 5:
			return lit([]string{"%s", "%s-%s", "%d", "%5.1f", "%r", "%x"}[g.pick(6)]) + " % " + []string{g.atom(kAny), "(" + g.atom(kAny) + ", " + g.atom(kAny) + ")"}[g.pick(2)]
		case 6:
			return g.recv(kStr) + "." + []string{"removeprefix", "removesuffix"}[g.pick(2)] + "(" + g.atom(kStr) + ")"
		}
		return g.recv(kStr) + ".split(" + []string{"", g.atom(kStr), "none, 1", "' ', 1"}[g.pick(4)] + ")|join(" + g.atom(kStr) + ")"
	case 7:
		return g.recv(kList) + "|join" + []string{"", "(', ')", "('-')"}[g.pick(3)]
	case 8:
		return g.recv(kStr) + "[" + g.atom(kNum) + "]"
	case 9:
		return g.recv(kStr) + "[" + g.slice() + "]"
	case 10:
		return "(" + g.expr(kStr) + " if " + g.expr(kBool) + " else " + g.expr(kStr) + ")"
	case 11:
		return g.expr(kStr) + " * " + strconv.Itoa(g.pick(4))
	case 12:
		return g.expr(kStr) + " + " + g.expr(kStr)
	case 13:
		return "users|join(', ', attribute='name')"
	case 14:
		if g.pick(2) == 0 {
			return "(users|first).name"
		}
		return "users[" + []string{"0", "1", "-1", "0", g.atom(kNum)}[g.pick(5)] + "].role"
	}
	return g.recv(kAny) + "|string"
}

// recv writes an expression that a method call, subscript or filter
// applies to: in parentheses, but now and then bare, so that precedence
// gets tested too.
func (g *gen) recv(k kind) string {
	x := g.expr(k)
	if g.chance(8) || isSimple(x) {
		return x
	}
	return "(" + x + ")"
}

func isSimple(x string) bool {
	for _, r := range x {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (g *gen) slice() string {
	part := func() string {
		if g.chance(2) {
			return ""
		}
		return g.atom(kNum)
	}
	s := part() + ":" + part()
	if g.chance(3) {
		s += ":" + []string{"-1", "2", "-2", "3"}[g.pick(4)]
	}
	return s
}

func (g *gen) numExpr() string {
	switch g.pick(14) {
	case 0, 1:
		return g.atom(kNum)
	case 2:
		ops := []string{"+", "-", "*", "/", "//", "%"}
		return g.expr(kNum) + " " + ops[g.pick(len(ops))] + " " + g.expr(kNum)
	case 3:
		return g.expr(kNum) + " ** " + strconv.Itoa(g.pick(4))
	case 4:
		return g.recv(kAny) + "|length"
	case 5:
		return g.recv(kNum) + "|" + []string{"abs", "int", "float", "round", "round(1)", "round(2, 'floor')", "round(0, 'ceil')", "round(-1)"}[g.pick(8)]
	case 6:
		return g.recv(kStr) + "|" + []string{"int", "float", "int(7)", "float(1.5)", "wordcount", "length"}[g.pick(6)]
	case 7:
		return g.recv(kList) + "|" + []string{"sum", "min", "max", "length", "first", "last", "count"}[g.pick(7)]
	case 8:
		return g.recv(kStr) + "." + []string{"count", "find", "rfind"}[g.pick(3)] + "(" + g.atom(kStr) + ")"
	case 9:
		return "range(" + strconv.Itoa(g.pick(6)) + ")|sum"
	case 10:
		return "-" + g.atom(kNum)
	case 11:
		return "users|sum(attribute='age')"
	case 12:
		return "(" + g.expr(kNum) + " if " + g.expr(kBool) + " else " + g.expr(kNum) + ")"
	}
	return "users|map(attribute='age')|" + []string{"max", "min", "sum", "list|length"}[g.pick(4)]
}

func (g *gen) boolExpr() string {
	switch g.pick(12) {
	case 0, 1:
		return g.atom(kBool)
	case 2:
		ops := []string{"==", "!=", "<", ">", "<=", ">="}
		return g.expr(kNum) + " " + ops[g.pick(len(ops))] + " " + g.expr(kNum)
	case 3:
		ops := []string{"==", "!=", "<", ">="}
		return g.expr(kStr) + " " + ops[g.pick(len(ops))] + " " + g.expr(kStr)
	case 4:
		return g.expr(kAny) + " " + []string{"in", "not in"}[g.pick(2)] + " " + []string{g.expr(kList), g.expr(kStr), g.expr(kDict)}[g.pick(3)]
	case 5:
		tests := []string{"defined", "undefined", "none", "number", "string", "integer", "float", "boolean", "iterable", "sequence", "mapping", "even", "odd", "divisibleby(3)", "lower", "upper", "true", "false", "callable", "escaped", "eq 1", "in [1, 2]", "gt 2", "sameas none"}
		return "(" + g.expr(kAny) + " is " + []string{"", "not "}[g.pick(2)] + tests[g.pick(len(tests))] + ")"
	case 6:
		return "not " + g.expr(kBool)
	case 7:
		return "(" + g.expr(kBool) + " " + []string{"and", "or"}[g.pick(2)] + " " + g.expr(kBool) + ")"
	case 8:
		return "(" + g.expr(kAny) + " == " + g.expr(kAny) + ") != (" + g.expr(kBool) + ")"
	case 9:
		return g.recv(kStr) + "." + []string{"startswith", "endswith"}[g.pick(2)] + "(" + []string{g.atom(kStr), "(" + g.atom(kStr) + ", " + g.atom(kStr) + ")"}[g.pick(2)] + ")"
	case 10:
		return g.recv(kStr) + "." + []string{"isupper()", "islower()", "isdigit()", "isalpha()", "isspace()", "istitle()", "isalnum()"}[g.pick(7)]
	}
	return g.expr(kList) + " == " + g.expr(kList)
}

func (g *gen) listExpr() string {
	switch g.pick(16) {
	case 0, 1:
		return g.atom(kList)
	case 2:
		return "[" + g.expr(kAny) + ", " + g.expr(kAny) + "]"
	case 3:
		return "range(" + []string{strconv.Itoa(g.pick(6)), "1, " + strconv.Itoa(g.pick(8)), "10, 0, -" + strconv.Itoa(1+g.pick(4))}[g.pick(3)] + ")|list"
	case 4:
		return g.recv(kList) + "|sort" + []string{"", "(reverse=true)", "(true)", "(case_sensitive=true)"}[g.pick(4)]
	case 5:
		return g.recv(kList) + "|" + []string{"unique|list", "reverse|list", "list", "select|list", "reject|list", "select('odd')|list", "reject('even')|list", "map('string')|list", "batch(2)|list", "slice(2)|list", "select('string')|list", "map('upper')|list", "select('>', 1)|list",
			"batch(3, 'x')|list", "slice(3, 0)|list", "map('e')|list", "map('int')|list", "map('abs')|list", "select('in', [1, 'a'])|list", "reject('none')|list", "map('default', 'd')|list", "sort(reverse=true, case_sensitive=true)", "unique(true)|list"}[g.pick(22)]
	case 6:
		return g.recv(kStr) + "." + []string{"split()", "split(',')", "splitlines()", "partition(' ')", "rsplit(' ', 1)"}[g.pick(5)]
	case 7:
		return g.recv(kStr) + "|list"
	case 8:
		return g.recv(kDict) + "|" + []string{"dictsort", "dictsort(reverse=true)", "dictsort(by='value')", "list", "items|list"}[g.pick(5)]
	case 9:
		return g.recv(kDict) + "." + []string{"items()", "keys()", "values()"}[g.pick(3)] + "|list"
	case 10:
		return g.recv(kList) + "[" + g.slice() + "]"
	case 11:
		return g.expr(kList) + " + " + g.expr(kList)
	case 12:
		return "users|" + []string{"map(attribute='name')|list", "selectattr('role', 'eq', 'user')|list", "rejectattr('tags')|list", "sort(attribute='age,name')|map(attribute='name')|list",
			"groupby('role')|map(attribute='grouper')|list", "unique(attribute='name')|list", "map(attribute='tags', default=[])|list", "selectattr('age', '>', 5)|map(attribute='age')|list"}[g.pick(8)]
	case 13:
		return "(" + g.expr(kAny) + ",)"
	case 14:
		return g.expr(kList) + " * " + strconv.Itoa(g.pick(3))
	}
	return "[" + g.expr(kStr) + "]"
}

func (g *gen) dictExpr() string {
	switch g.pick(4) {
	case 0, 1:
		return g.atom(kDict)
	case 2:
		return "{" + g.atom(kStr) + ": " + g.expr(kAny) + ", 'k': " + g.atom(kAny) + "}"
	}
	return "dict(a=" + g.expr(kAny) + ", b=" + g.atom(kAny) + ")"
}

func (g *gen) anyExpr() string {
	switch g.pick(11) {
	case 0, 1, 2:
		return g.atom(kAny)
	case 3:
		return "d1." + []string{"a", "b", "C", "key", "name"}[g.pick(5)]
	case 4:
		return "d1[" + lit([]string{"a", "x y", "查", "nope"}[g.pick(4)]) + "]"
	case 5:
		return "d1.get(" + lit([]string{"a", "b", "zz"}[g.pick(3)]) + []string{"", ", 0"}[g.pick(2)] + ")"
	case 6:
		return g.recv(kList) + "[" + g.atom(kNum) + "]"
	case 7:
		return "users[" + []string{"0", "1", "-1", "0", g.atom(kNum)}[g.pick(5)] + "]." + []string{"name", "age", "tags", "role", "nope"}[g.pick(5)]
	case 8:
		switch g.pick(6) {
		case 0:
			return g.recv(kDict) + "|xmlattr"
		case 1:
			return "users|groupby('" + []string{"role", "age", "name"}[g.pick(3)] + "')|map(attribute='" + []string{"grouper", "list"}[g.pick(2)] + "')|list"
		case 2:
			return "users|" + []string{"min", "max"}[g.pick(2)] + "(attribute='" + []string{"age", "name"}[g.pick(2)] + "')"
		case 3:
			return g.recv(kList) + "|" + []string{"min", "max", "sum"}[g.pick(3)]
		case 4:
			return "namespace(a=" + g.atom(kAny) + ").a"
		}
		return "cycler(" + g.atom(kAny) + ", " + g.atom(kAny) + ").current"
	}
	return g.expr(kind(g.pick(5)))
}

// body writes up to n statements.
func (g *gen) body(n int) {
	for i := 0; i < n && g.nodes < 40; i++ {
		g.nodes++
		g.stmt()
	}
}

func (g *gen) dash() string {
	if g.chance(5) {
		return "-"
	}
	return ""
}

func (g *gen) open(tag string) { g.w("{%", g.dash(), " ", tag, " ", g.dash(), "%}") }

var fuzzTexts = []string{"a", " ", "\n", "x y", "  \n  ", "Hi, ", ": ", "\n\n", "\t", "{ not a tag }", "}", "查", "<p>", "\n  "}

func (g *gen) stmt() {
	switch g.pick(16) {
	case 0, 1, 2:
		g.w(fuzzTexts[g.pick(len(fuzzTexts))])
	case 3, 4, 5:
		g.w("{{", g.dash(), " ", g.expr(kind(g.pick(6))), " ", g.dash(), "}}")
	case 6:
		g.open("if " + g.expr(kBool))
		g.block(2)
		for g.chance(3) {
			g.open("elif " + g.expr(kBool))
			g.block(2)
		}
		if g.chance(2) {
			g.open("else")
			g.block(2)
		}
		g.open("endif")
	case 7, 8:
		g.forStmt()
	case 9:
		if g.inMac {
			g.w("{{ ", g.expr(kStr), " }}")
			return
		}
		name := fmt.Sprintf("v%d", g.nodes)
		g.open("set " + name + " = " + g.expr(kind(g.pick(6))))
		g.scope = append(g.scope, name)
	case 10:
		if g.inMac {
			return
		}
		name := fmt.Sprintf("v%d", g.nodes)
		g.open("set " + name + []string{"", " | upper", " | trim", " | replace('a', 'o')"}[g.pick(4)])
		g.block(2)
		g.open("endset")
		g.scope = append(g.scope, name)
	case 11:
		g.macroStmt()
	case 12:
		g.open("filter " + []string{"upper", "lower", "title", "trim", "center(12)", "indent(2)", "replace('a', '@')", "wordcount|string", "striptags"}[g.pick(9)])
		g.block(2)
		g.open("endfilter")
	case 13:
		if g.inMac {
			return
		}
		if g.chance(3) {
			a, b := fmt.Sprintf("t%da", g.nodes), fmt.Sprintf("t%db", g.nodes)
			g.open("set " + a + ", " + b + " = " + []string{g.atom(kAny) + ", " + g.atom(kAny), g.expr(kStr) + "|list|batch(2)|first", "(" + g.atom(kAny) + ", " + g.atom(kAny) + ")"}[g.pick(3)])
			g.scope = append(g.scope, a, b)
			return
		}
		name := fmt.Sprintf("w%d", g.nodes)
		g.open("with " + name + " = " + g.expr(kind(g.pick(6))))
		g.scope = append(g.scope, name)
		g.block(2)
		g.scope = g.scope[:len(g.scope)-1]
		g.open("endwith")
	case 14:
		if g.inMac {
			return
		}
		ns := fmt.Sprintf("ns%d", g.nodes)
		g.open("set " + ns + " = namespace(total=0, items=[], last=none)")
		g.open("for x in " + g.expr(kList))
		g.open("set " + ns + ".total = " + ns + ".total + " + []string{"1", "loop.index", "(x if x is number else 0)"}[g.pick(3)])
		g.open("set " + ns + ".items = " + ns + ".items + [x]")
		g.open("set " + ns + ".last = x")
		g.open("endfor")
		g.w("{{ ", ns, ".total }}|{{ ", ns, ".items }}|{{ ", ns, ".last }}")
	default:
		switch g.pick(3) {
		case 0:
			g.w("{# ", fuzzTexts[g.pick(len(fuzzTexts))], " #}")
		case 1:
			g.w("{% raw %}{{ x }}{% if %}", fuzzTexts[g.pick(len(fuzzTexts))], "{% endraw %}")
		default:
			if len(g.macro) > 0 && !g.inMac {
				g.callMacro()
			}
		}
	}
}

// block writes a nested body, whose set names stay inside it.
func (g *gen) block(n int) {
	saved := len(g.scope)
	g.level++
	g.body(1 + g.pick(n))
	g.level--
	g.scope = g.scope[:saved]
}

func (g *gen) forStmt() {
	if g.loops >= 2 {
		return
	}
	saved := len(g.scope)
	var head string
	x := fmt.Sprintf("x%d", g.nodes)
	switch g.pick(5) {
	case 0:
		k, v := fmt.Sprintf("k%d", g.nodes), fmt.Sprintf("v%d", g.nodes)
		head = k + ", " + v + " in " + g.expr(kDict) + []string{".items()", "|dictsort", "|items"}[g.pick(3)]
		g.scope = append(g.scope, k, v)
	case 1:
		head = x + " in users"
		g.scope = append(g.scope, x)
	default:
		head = x + " in " + []string{g.expr(kList), g.expr(kStr), "range(" + strconv.Itoa(g.pick(5)) + ")"}[g.pick(3)]
		g.scope = append(g.scope, x)
	}
	if g.chance(4) {
		head += " if " + g.expr(kBool)
	}
	g.open("for " + head)
	g.loops++
	controls := false // break or continue: then no else (see docs/jinja-differences.md)
	n := 1 + g.pick(3)
	for i := 0; i < n; i++ {
		switch g.pick(6) {
		case 0:
			g.w("{{ loop.", []string{"index", "index0", "revindex", "first", "last", "length", "revindex0", "depth"}[g.pick(8)], " }}")
		case 1:
			g.w("{{ loop.cycle(", lit("odd"), ", ", lit("even"), ") }}")
		case 2:
			g.w("{{ loop.previtem }}|{{ loop.nextitem }}")
		case 3:
			g.w("{% if loop.changed(", g.scope[len(g.scope)-1], ") %}*{% endif %}")
		case 4:
			if g.hf && g.chance(2) {
				g.w("{% if ", g.expr(kBool), " %}{% ", []string{"break", "continue"}[g.pick(2)], " %}{% endif %}")
				controls = true
			} else {
				g.w("{{ ", g.scope[len(g.scope)-1], " }}")
			}
		default:
			g.block(2)
		}
	}
	g.loops--
	g.scope = g.scope[:saved]
	if !controls && g.chance(4) {
		g.open("else")
		g.block(1)
	}
	g.open("endfor")
}

func (g *gen) macroStmt() {
	if g.inMac || g.level > 0 || len(g.macro) >= 3 {
		return
	}
	m := macroSig{name: fmt.Sprintf("m%d", g.nodes), params: g.pick(3), opt: g.pick(2), caller: g.chance(3)}
	var params []string
	for i := 0; i < m.params; i++ {
		params = append(params, fmt.Sprintf("p%d", i))
	}
	for i := 0; i < m.opt; i++ {
		params = append(params, fmt.Sprintf("q%d=%s", i, g.atom(kAny)))
	}
	g.open("macro " + m.name + "(" + strings.Join(params, ", ") + ")")
	savedScope, savedLoops := g.scope, g.loops
	g.scope, g.loops, g.inMac = nil, 0, true
	for i := 0; i < m.params; i++ {
		g.scope = append(g.scope, fmt.Sprintf("p%d", i))
	}
	for i := 0; i < m.opt; i++ {
		g.scope = append(g.scope, fmt.Sprintf("q%d", i))
	}
	g.body(1 + g.pick(3))
	if m.caller {
		g.w("[{{ caller() }}]")
	}
	g.scope, g.loops, g.inMac = savedScope, savedLoops, false
	g.open("endmacro")
	g.macro = append(g.macro, m)
	g.callMacro()
}

func (g *gen) callMacro() {
	m := g.macro[g.pick(len(g.macro))]
	var args []string
	for i := 0; i < m.params; i++ {
		args = append(args, g.expr(kAny))
	}
	if m.opt > 0 && g.chance(2) {
		args = append(args, "q0="+g.expr(kAny))
	}
	call := m.name + "(" + strings.Join(args, ", ") + ")"
	if m.caller {
		g.open("call " + call)
		g.block(1)
		g.open("endcall")
		return
	}
	g.w("{{ ", call, []string{"", "|upper", "|trim", "|length"}[g.pick(4)], " }}")
}

// generate makes a template and its values from data.
func generate(data []byte) (template string, vars map[string]any, hf bool) {
	g := &gen{data: data}
	g.hf = g.chance(4)
	vars = g.genVars()
	g.body(1 + g.pick(6))
	if g.chance(3) {
		g.w("\n")
	}
	return g.b.String(), vars, g.hf
}
