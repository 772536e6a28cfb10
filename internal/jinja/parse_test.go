package jinja

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The parser's tests, in the manner of text/template/parse's: each case
// compares the String of the parsed tree with the Jinja text expected.
// String parenthesizes every compound operand, so the expected text shows
// the tree's shape: how Jinja's precedence grouped the expression. The
// trees were checked against Python's Jinja2 parser (see
// TestParseMatchesJinja).

type parseTest struct {
	name, input, want string
}

var parseTests = []parseTest{
	{"text", "hello {world}", "hello {world}"},
	{"output", "{{ x }}", "{{ x }}"},
	{"output with spaces", "{{   x   }}", "{{ x }}"},
	{"comment dropped", "a{# note #}b", "ab"},
	{"raw text prints as raw", "{% raw %}{{ x }}{% endraw %}", "{% raw %}{{ x }}{% endraw %}"},
	{"raw brace at end", "{% raw %}a {{% endraw %}", "{% raw %}a {{% endraw %}"},
	{"whitespace control", "a  {{- x -}}  b", "a{{ x }}b"},
	{"if", "{% if a %}yes{% endif %}", "{% if a %}yes{% endif %}"},
	{"if else", "{% if a %}yes{% else %}no{% endif %}", "{% if a %}yes{% else %}no{% endif %}"},
	{"if elif else", "{% if a %}1{% elif b %}2{% elif c %}3{% else %}4{% endif %}", "{% if a %}1{% elif b %}2{% elif c %}3{% else %}4{% endif %}"},
	{"if empty bodies", "{% if a %}{% elif b %}{% else %}{% endif %}", "{% if a %}{% elif b %}{% else %}{% endif %}"},
	{"if tuple", "{% if a, b %}x{% endif %}", "{% if (a, b) %}x{% endif %}"},
	{"nested if", "{% if a %}{% if b %}x{% endif %}{% endif %}", "{% if a %}{% if b %}x{% endif %}{% endif %}"},
	{"for", "{% for x in xs %}{{ x }}{% endfor %}", "{% for x in xs %}{{ x }}{% endfor %}"},
	{"for tuple target", "{% for k, v in d.items() %}{{ k }}{% endfor %}", "{% for k, v in d.items() %}{{ k }}{% endfor %}"},
	{"for parenthesized target", "{% for (k, v) in d %}{% endfor %}", "{% for k, v in d %}{% endfor %}"},
	{"for nested target", "{% for a, (b, c) in xs %}{% endfor %}", "{% for a, (b, c) in xs %}{% endfor %}"},
	{"for one-tuple target", "{% for (a,) in xs %}{% endfor %}", "{% for (a,) in xs %}{% endfor %}"},
	{"for filter", "{% for x in xs if x > 1 %}{% endfor %}", "{% for x in xs if x > 1 %}{% endfor %}"},
	{"for recursive", "{% for x in xs recursive %}{{ loop(x.children) }}{% endfor %}", "{% for x in xs recursive %}{{ loop(x.children) }}{% endfor %}"},
	{"for filter recursive", "{% for x in xs if x recursive %}{% endfor %}", "{% for x in xs if x recursive %}{% endfor %}"},
	{"for else", "{% for x in xs %}a{% else %}b{% endfor %}", "{% for x in xs %}a{% else %}b{% endfor %}"},
	{"for implicit tuple iter", "{% for x in a, b %}{% endfor %}", "{% for x in (a, b) %}{% endfor %}"},
	{"for conditional iter", "{% for x in (a if b else c) %}{% endfor %}", "{% for x in (a if b else c) %}{% endfor %}"},
	{"if conditional", "{% if (a if b) %}{% elif (c if d else e) %}{% endif %}", "{% if (a if b) %}{% elif (c if d else e) %}{% endif %}"},
	{"for loop controls", "{% for x in xs %}{% if x %}{% break %}{% else %}{% continue %}{% endif %}{% endfor %}", "{% for x in xs %}{% if x %}{% break %}{% else %}{% continue %}{% endif %}{% endfor %}"},
	{"set", "{% set x = 1 %}", "{% set x = 1 %}"},
	{"set tuple", "{% set a, b = 1, 2 %}", "{% set a, b = (1, 2) %}"},
	{"set parenthesized tuple", "{% set (a, b) = t %}", "{% set a, b = t %}"},
	{"set trailing comma value", "{% set a = 1, %}", "{% set a = (1,) %}"},
	{"set namespace attribute", "{% set ns.count = ns.count + 1 %}", "{% set ns.count = ns.count + 1 %}"},
	{"set block", "{% set x %}body {{ y }}{% endset %}", "{% set x %}body {{ y }}{% endset %}"},
	{"set block filters", "{% set x | trim | replace(\"a\", \"b\") %} a {% endset %}", "{% set x | trim | replace(\"a\", \"b\") %} a {% endset %}"},
	{"set block tuple", "{% set a, b %}x{% endset %}", "{% set a, b %}x{% endset %}"},
	{"set value with equals in brackets", "{% set x = f(a=1) %}", "{% set x = f(a=1) %}"},
	{"with", "{% with a = 1, b = a %}{{ b }}{% endwith %}", "{% with a = 1, b = a %}{{ b }}{% endwith %}"},
	{"with tuple", "{% with (a, b) = t %}{% endwith %}", "{% with a, b = t %}{% endwith %}"},
	{"with nothing", "{% with %}x{% endwith %}", "{% with %}x{% endwith %}"},
	{"include", "{% include \"a.md\" %}", "{% include \"a.md\" %}"},
	{"include ignore missing", "{% include \"a.md\" ignore missing %}", "{% include \"a.md\" ignore missing %}"},
	{"include without context", "{% include \"a.md\" without context %}", "{% include \"a.md\" without context %}"},
	{"include with context", "{% include \"a.md\" with context %}", "{% include \"a.md\" %}"},
	{"include both", "{% include \"a.md\" ignore missing without context %}", "{% include \"a.md\" ignore missing without context %}"},
	{"include list", "{% include [\"a.md\", \"b.md\"] %}", "{% include [\"a.md\", \"b.md\"] %}"},
	{"import", "{% import \"m.md\" as m %}", "{% import \"m.md\" as m %}"},
	{"import with context", "{% import \"m.md\" as m with context %}", "{% import \"m.md\" as m with context %}"},
	{"import without context", "{% import \"m.md\" as m without context %}", "{% import \"m.md\" as m %}"},
	{"from import", "{% from \"m.md\" import a, b as c %}", "{% from \"m.md\" import a, b as c %}"},
	{"from import with context", "{% from \"m.md\" import a with context %}", "{% from \"m.md\" import a with context %}"},
	{"from import trailing comma", "{% from \"m.md\" import a, with context %}", "{% from \"m.md\" import a with context %}"},
	{"extends", "{% extends \"base.md\" %}", "{% extends \"base.md\" %}"},
	{"block", "{% block body %}x{% endblock %}", "{% block body %}x{% endblock %}"},
	{"block scoped required", "{% block b scoped required %} {% endblock b %}", "{% block b scoped required %} {% endblock %}"},
	{"macro", "{% macro m(a, b=1, c=\"x\") %}{{ a }}{% endmacro %}", "{% macro m(a, b=1, c=\"x\") %}{{ a }}{% endmacro %}"},
	{"macro without parameters", "{% macro m() %}{% endmacro %}", "{% macro m() %}{% endmacro %}"},
	{"call block", "{% call m(1) %}inner{% endcall %}", "{% call m(1) %}inner{% endcall %}"},
	{"call block with parameters", "{% call(x, y=2) m.f(1, k=2) %}{{ x }}{% endcall %}", "{% call(x, y=2) m.f(1, k=2) %}{{ x }}{% endcall %}"},
	{"filter block", "{% filter upper %}x{% endfilter %}", "{% filter upper %}x{% endfilter %}"},
	{"filter block chain", "{% filter replace(\"a\", \"b\") | upper %}x{% endfilter %}", "{% filter replace(\"a\", \"b\") | upper %}x{% endfilter %}"},
	{"autoescape", "{% autoescape false %}x{% endautoescape %}", "{% autoescape false %}x{% endautoescape %}"},
	{"print", "{% print x %}", "{{ x }}"},
	{"print several", "{% print a, b | upper %}", "{{ a ~ (b | upper) }}"},
	{"print tuple", "{% print (a, b) %}", "{{ (a, b) }}"},
	{"chat", "{% chat role=\"user\" %}hi {{ name }}{% endchat %}", "{% chat role=\"user\" %}hi {{ name }}{% endchat %}"},
	{"chat dynamic role", "{% chat role=m.role %}x{% endchat %}", "{% chat role=m.role %}x{% endchat %}"},
	{"chat dynamic role, allowed roles", "{% chat role=m.role allow=['user','assistant'] %}x{% endchat %}", "{% chat role=m.role allow=[\"user\", \"assistant\"] %}x{% endchat %}"},
	{"generation", "{% generation %}x{% endgeneration %}", "{% generation %}x{% endgeneration %}"},
	{"none", "{{ none }}{{ None }}", "{{ none }}{{ none }}"},
	{"booleans", "{{ true }}{{ True }}{{ false }}{{ False }}", "{{ true }}{{ true }}{{ false }}{{ false }}"},
	{"strings", "{{ 'single' }}{{ \"double\" }}{{ \"a\" 'b' \"c\" }}", "{{ \"single\" }}{{ \"double\" }}{{ \"abc\" }}"},
	{"string escapes", "{{ \"q\\\" b\\\\ n\\n t\\t r\\r bell\\a nul\\0 del\\x7f é 中 😀\" }}", "{{ \"q\\\" b\\\\ n\\n t\\t r\\r bell\\x07 nul\\x00 del\\x7f é 中 😀\" }}"},
	{"integers", "{{ 42 }}{{ 0x1F }}{{ 0o17 }}{{ 0b101 }}{{ 1_000 }}{{ 00 }}", "{{ 42 }}{{ 31 }}{{ 15 }}{{ 5 }}{{ 1000 }}{{ 0 }}"},
	{"big integer", "{{ 123456789012345678901234567890 }}", "{{ 123456789012345678901234567890 }}"},
	{"big hex integer", "{{ 0xffffffffffffffffff }}", "{{ 4722366482869645213695 }}"},
	{"floats", "{{ 1.5 }}{{ 2.0 }}{{ 1e3 }}{{ 1.5e-3 }}{{ 1_0.5 }}{{ 1e100 }}", "{{ 1.5 }}{{ 2.0 }}{{ 1000.0 }}{{ 0.0015 }}{{ 10.5 }}{{ 1e+100 }}"},
	{"float beyond range", "{{ 1e999 }}", "{{ 1e999 }}"},
	{"list", "{{ [] }}{{ [1] }}{{ [1, 2,] }}{{ [a, [b]] }}", "{{ [] }}{{ [1] }}{{ [1, 2] }}{{ [a, [b]] }}"},
	{"tuple", "{{ () }}{{ (1,) }}{{ (1, 2) }}{{ (1, 2,) }}", "{{ () }}{{ (1,) }}{{ (1, 2) }}{{ (1, 2) }}"},
	{"implicit tuple", "{{ a, b }}", "{{ (a, b) }}"},
	{"implicit one-tuple", "{{ a, }}", "{{ (a,) }}"},
	{"dict", "{{ {} }}{{ {\"a\": 1, b: [2],} }}", "{{ {} }}{{ {\"a\": 1, b: [2]} }}"},
	{"dict key with filter", "{{ {x | upper: 1} }}", "{{ {x | upper: 1} }}"},
	{"attribute", "{{ a.b.c }}", "{{ a.b.c }}"},
	{"integer attribute", "{{ x.0 }}", "{{ x[0] }}"},
	{"nested integer attributes", "{{ x.0.1 }}", "{{ x[0][1] }}"},
	{"subscript", "{{ x[\"k\"] }}{{ x[0][1] }}{{ x[-1] }}", "{{ x[\"k\"] }}{{ x[0][1] }}{{ x[-1] }}"},
	{"subscript tuple", "{{ x[1, 2] }}{{ x[(1, 2)] }}", "{{ x[1, 2] }}{{ x[1, 2] }}"},
	{"slices", "{{ x[1:2] }}{{ x[:2] }}{{ x[1:] }}{{ x[:] }}{{ x[::2] }}{{ x[1:2:3] }}{{ x[::] }}", "{{ x[1:2] }}{{ x[:2] }}{{ x[1:] }}{{ x[:] }}{{ x[::2] }}{{ x[1:2:3] }}{{ x[:] }}"},
	{"slice with filters", "{{ x[a | int:b | int] }}", "{{ x[a | int:b | int] }}"},
	{"slices in a tuple subscript", "{{ x[1:2, ::3] }}", "{{ x[1:2, ::3] }}"},
	{"call", "{{ f() }}{{ f(1, 2) }}{{ f(a, k=1) }}", "{{ f() }}{{ f(1, 2) }}{{ f(a, k=1) }}"},
	{"call star args", "{{ f(*a) }}{{ f(**k) }}{{ f(1, *a, **k) }}{{ f(x=1, *a) }}", "{{ f(*a) }}{{ f(**k) }}{{ f(1, *a, **k) }}{{ f(x=1, *a) }}"},
	{"call trailing comma", "{{ f(a,) }}", "{{ f(a) }}"},
	{"method call", "{{ s.strip().upper() }}", "{{ s.strip().upper() }}"},
	{"call of a call", "{{ f(a)(b) }}", "{{ f(a)(b) }}"},
	{"filter", "{{ x | upper }}", "{{ x | upper }}"},
	{"filter with arguments", "{{ x | replace(\"a\", \"b\") }}", "{{ x | replace(\"a\", \"b\") }}"},
	{"filter with empty parentheses", "{{ x | upper() }}", "{{ x | upper() }}"},
	{"filter with keywords", "{{ x | join(sep=\", \") }}{{ x | f(*a, **k) }}", "{{ x | join(sep=\", \") }}{{ x | f(*a, **k) }}"},
	{"filter chain", "{{ x | trim | upper | replace(\"A\", \"B\") }}", "{{ x | trim | upper | replace(\"A\", \"B\") }}"},
	{"dotted filter name", "{{ x | a.b }}", "{{ x | a.b }}"},
	{"filter binds tighter than operators", "{{ a + b | upper }}", "{{ a + (b | upper) }}"},
	{"filter applies to the postfix", "{{ a.b[0] | upper }}", "{{ a.b[0] | upper }}"},
	{"unary minus then filter", "{{ -x | abs }}", "{{ (-x) | abs }}"},
	{"unary minus with power", "{{ -2 ** 2 }}", "{{ (-2) ** 2 }}"},
	{"power of unary", "{{ a ** -b }}", "{{ a ** (-b) }}"},
	{"power is left associative", "{{ a ** b ** c }}", "{{ (a ** b) ** c }}"},
	{"test", "{{ x is defined }}", "{{ x is defined }}"},
	{"test not", "{{ x is not none }}", "{{ x is not none }}"},
	{"test with arguments", "{{ x is divisibleby(3) }}", "{{ x is divisibleby(3) }}"},
	{"test with one bare argument", "{{ x is divisibleby 3 }}{{ x is sameas none }}{{ x is eq \"a\" }}{{ x is in [1, 2] }}{{ x is ge y.z }}", "{{ x is divisibleby(3) }}{{ x is sameas(none) }}{{ x is eq(\"a\") }}{{ x is in([1, 2]) }}{{ x is ge(y.z) }}"},
	{"bare argument stops at else", "{{ a if x is odd else b }}", "{{ a if (x is odd) else b }}"},
	{"bare argument stops at and or", "{{ x is odd and y is even or z is none }}", "{{ ((x is odd) and (y is even)) or (z is none) }}"},
	{"test then minus", "{{ x is ge -1 }}", "{{ (x is ge) - 1 }}"},
	{"dotted test name", "{{ x is a.b }}", "{{ x is a.b }}"},
	{"filter then test", "{{ x | length is odd }}", "{{ x | length is odd }}"},
	{"test then filter", "{{ x is odd | string }}", "{{ (x is odd) | string }}"},
	{"chained tests with arguments", "{{ x is eq(1) is sameas true }}", "{{ x is eq(1) is sameas(true) }}"},
	{"test of a test", "{{ (x is none) is defined }}", "{{ (x is none) is defined }}"},
	{"not", "{{ not a }}{{ not not a }}", "{{ not a }}{{ not (not a) }}"},
	{"not binds looser than comparisons", "{{ not a == b }}", "{{ not (a == b) }}"},
	{"not in", "{{ a not in b }}", "{{ a not in b }}"},
	{"not a in b", "{{ not a in b }}", "{{ not (a in b) }}"},
	{"not test", "{{ not x is defined }}", "{{ not (x is defined) }}"},
	{"and or", "{{ a or b and c }}{{ (a or b) and c }}{{ a and b or c and d }}", "{{ a or (b and c) }}{{ (a or b) and c }}{{ (a and b) or (c and d) }}"},
	{"arithmetic precedence", "{{ a + b * c - d / e // f % g }}", "{{ (a + (b * c)) - (((d / e) // f) % g) }}"},
	{"left associative", "{{ a - b - c }}{{ a / b / c }}", "{{ (a - b) - c }}{{ (a / b) / c }}"},
	{"concat", "{{ a ~ b ~ c }}", "{{ a ~ b ~ c }}"},
	{"concat precedence", "{{ a + b ~ c * d }}", "{{ a + (b ~ (c * d)) }}"},
	{"comparisons", "{{ a == b }}{{ a != b }}{{ a < b }}{{ a <= b }}{{ a > b }}{{ a >= b }}{{ a in b }}", "{{ a == b }}{{ a != b }}{{ a < b }}{{ a <= b }}{{ a > b }}{{ a >= b }}{{ a in b }}"},
	{"chained comparison", "{{ a < b <= c != d }}", "{{ a < b <= c != d }}"},
	{"comparison of arithmetic", "{{ a + 1 > b * 2 }}", "{{ (a + 1) > (b * 2) }}"},
	{"conditional", "{{ a if b else c }}", "{{ a if b else c }}"},
	{"conditional without else", "{{ a if b }}", "{{ a if b }}"},
	{"conditional chain in else", "{{ a if b else c if d else e }}", "{{ a if b else (c if d else e) }}"},
	{"conditional chain in then", "{{ a if b if c else d }}", "{{ (a if b) if c else d }}"},
	{"conditional of or", "{{ a or b if c or d else e or f }}", "{{ (a or b) if (c or d) else (e or f) }}"},
	{"unary plus", "{{ +a }}{{ - -a }}", "{{ +a }}{{ -(-a) }}"},
	{"parenthesized", "{{ (a) }}{{ ((a + b)) * c }}", "{{ a }}{{ (a + b) * c }}"},
	{"keywords as attributes", "{{ x.if }}{{ x.not }}", "{{ x.if }}{{ x.not }}"},
	{"unicode name", "{{ имя }}", "{{ имя }}"},
	// promptkit's budget marks (see Mark)
	{"shrink block", "{% shrink priority=2 %}a{{ x }}{% endshrink %}", "{% shrink priority=2 %}a{{ x }}{% endshrink %}"},
	{"shrink negative priority", "{% shrink priority=-3 %}{% endshrink %}", "{% shrink priority=-3 %}{% endshrink %}"},
	{"chat priority", "{% chat role=\"user\" priority=1 %}a{% endchat %}", "{% chat role=\"user\" priority=1 %}a{% endchat %}"},
	{"chat priority before allow", "{% chat role=r priority=1 allow=[\"user\"] %}a{% endchat %}", "{% chat role=r allow=[\"user\"] priority=1 %}a{% endchat %}"},
	{"for shrink", "{% for d in docs shrink priority=3 %}{{ d }}{% endfor %}", "{% for d in docs shrink priority=3 drop=\"end\" keep=0 %}{{ d }}{% endfor %}"},
	{"for shrink keywords in any order", "{% for d in docs if d shrink keep=1 drop=\"start\" priority=0 %}{% else %}none{% endfor %}",
		"{% for d in docs if d shrink priority=0 drop=\"start\" keep=1 %}{% else %}none{% endfor %}"},
	{"for shrink tuple iter", "{% for d in a, b shrink priority=1 %}{% endfor %}", "{% for d in (a, b) shrink priority=1 drop=\"end\" keep=0 %}{% endfor %}"},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse("t.md", tt.input, Options{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, bodyString(tr.Root))
		})
	}
}

// TestParseRoundTrip checks that String prints a tree that parses back to
// the same tree: parse(String(tree)) prints the same text.
func TestParseRoundTrip(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse("t.md", tt.input, Options{})
			require.NoError(t, err)
			assertRoundTrip(t, tr)
		})
	}
}

func assertRoundTrip(t *testing.T, tr *Tree) {
	t.Helper()
	printed := bodyString(tr.Root)
	again, err := Parse("again.md", printed, Options{KeepTrailingNewline: true})
	require.NoError(t, err, "printed as %q", printed)
	assert.Equal(t, printed, bodyString(again.Root), "printed as %q", printed)
}

// TestParsePositions checks where nodes start: a node's position is that
// of its first token (the tag's "{%" for statements).
func TestParsePositions(t *testing.T) {
	src := "ab\n{% for x in xs %}{{ x.y | f(1) }}{% endfor %}"
	tr, err := Parse("t.md", src, Options{})
	require.NoError(t, err)
	var got []string
	InspectAll(tr.Root, func(n Node) bool {
		line, col := tr.Source.Position(n.Position())
		got = append(got, fmt.Sprintf("%s@%d:%d", strings.TrimPrefix(fmt.Sprintf("%T", n), "*jinja."), line, col))
		return true
	})
	assert.Equal(t, []string{
		"TextNode@1:1", "ForNode@2:1", "NameExpr@2:8", "NameExpr@2:13",
		"OutputNode@2:18", "FilterExpr@2:21", "AttrExpr@2:21", "NameExpr@2:21", "ConstExpr@2:29",
	}, got)
}

type parseErrorTest struct {
	name, input, want string
}

// parseErrorTests hold every syntax error of the lexer and the parser,
// each with its file, line and column.
var parseErrorTests = []parseErrorTest{
	{"bracket message on line 3", "intro\nmore\n{{ docs | upper( }}", "t.md:3:18: unexpected \"}\": expected \")\" to close \"(\""},
	{"bracket message on line 3 with a final newline", "intro\nmore\n{{ docs | upper( }}\n", "t.md:3:18: unexpected \"}\": expected \")\" to close \"(\""},
	{"several independent errors", "{{ x | upper( }}\n{% if %}x{% endif %}\n{{ y[ }}\n{% for %}{% endfor %}\n{{ ok }}{{ a b }}", "t.md:1:15: unexpected \"}\": expected \")\" to close \"(\"\nt.md:2:7: expected an expression, found end of tag\nt.md:3:7: unexpected \"}\": expected \"]\" to close \"[\"\nt.md:4:8: expected a name to assign to, found end of tag\nt.md:5:14: expected \"}}\", found b"},
	{"header error does not report its end tag", "{% for x in %}\n{{ x }}\n{% endfor %}", "t.md:1:13: expected an expression, found end of tag"},
	{"header error of a nested block", "{% if a %}\n  {% for x y %}{% endfor %}\n{% endif %}", "t.md:2:12: expected \"in\", found y"},
	{"lexer error in a header does not report its end tag", "{% for x in f( %}\n{% endfor %}\n{{ z }}", "t.md:1:17: unexpected \"}\": expected \")\" to close \"(\""},
	{"unclosed if", "a\n{% if x %}\nb", "t.md:2:1: {% if %} is never closed: missing {% endif %}"},
	{"unclosed blocks each at their opening", "line\n  {% for x in y %}\n{% if z %}", "t.md:2:3: {% for %} is never closed: missing {% endfor %}\nt.md:3:1: {% if %} is never closed: missing {% endif %}"},
	{"unclosed inside another", "{% if a %}\n{% for x in y %}\n{% endif %}", "t.md:2:1: {% for %} is never closed: missing {% endfor %}"},
	{"crossed tags", "{% if x %}{% with %}x{% endif %}{% endwith %}", "t.md:1:22: unexpected {% endif %} inside {% with %}"},
	{"end tag with no open block", "a\n{% endfor %}", "t.md:2:1: unexpected {% endfor %} with no open block"},
	{"end tag of another block", "{% if a %}{% endfor %}{% endif %}", "t.md:1:11: unexpected {% endfor %} inside {% if %}"},
	{"stray else", "{% for x in y %}{% else %}{% else %}{% endfor %}", "t.md:1:27: unexpected {% else %} inside {% for %}"},
	{"elif after else", "{% if a %}{% else %}{% elif b %}{% endif %}", "t.md:1:21: unexpected {% elif %} inside {% if %}"},
	{"middle tag in a block without one", "{% with %}{% else %}{% endwith %}", "t.md:1:11: unexpected {% else %} inside {% with %}"},
	{"elif with a bad condition", "{% if a %}{% elif %}x{% endif %}", "t.md:1:19: expected an expression, found end of tag"},
	{"end tag with arguments", "{% if a %}{% endif a %}", "t.md:1:20: expected \"%}\", found a"},
	{"else with arguments", "{% if a %}{% else b %}{% endif %}", "t.md:1:19: expected \"%}\", found b"},
	{"endblock name", "{% block a %}{% endblock b %}", "t.md:1:26: {% endblock b %} closes {% block a %}"},
	{"endblock with more", "{% block a %}{% endblock a b %}", "t.md:1:28: expected \"%}\", found b"},
	{"required block with content", "{% block r required %}x{% endblock %}", "t.md:1:1: required block \"r\" may contain only whitespace and comments"},
	{"required block with a tag", "{% block r required %}{{ x }}{% endblock %}", "t.md:1:1: required block \"r\" may contain only whitespace and comments"},
	{"expected tag name", "{% %}", "t.md:1:4: expected a tag name after {%, found end of tag"},
	{"expected tag name not a number", "{% 1 %}", "t.md:1:4: expected a tag name after {%, found 1"},
	{"unknown tag", "{% frobnicate %}", "t.md:1:4: unknown tag \"frobnicate\""},
	{"Django tag", "{% cycle a b %}", "t.md:1:4: tag \"cycle\" is not supported: it is Django's, not Jinja's; write loop.cycle('a', 'b') inside the loop"},
	{"Django tag ifequal", "{% ifequal a b %}{% endifequal %}", "t.md:1:4: tag \"ifequal\" is not supported: it is Django's, not Jinja's; write {% if a == b %}"},
	{"refused tag", "{% do x.append(1) %}", "t.md:1:4: tag \"do\" is not supported; use {% set %} (the do extension is not enabled in Jinja's default environment)"},
	{"refused tag trans", "{% trans %}hi{% endtrans %}", "t.md:1:4: tag \"trans\" is not supported; use literal text (templates are not translated)"},
	{"expected an expression", "{{ }}", "t.md:1:4: expected an expression, found end of tag"},
	{"expected end of output", "{{ a b }}", "t.md:1:6: expected \"}}\", found b"},
	{"expected end of tag", "{% set x = 1 2 %}", "t.md:1:14: expected \"%}\", found 2"},
	{"unexpected keyword", "{{ if }}", "t.md:1:4: unexpected if in expression"},
	{"unexpected operator", "{{ * }}", "t.md:1:4: unexpected * in expression"},
	{"unexpected end of tag in expression", "{{ a + }}", "t.md:1:8: unexpected end of tag in expression"},
	{"reserved loop variable", "{% for in in x %}{% endfor %}", "t.md:1:8: \"in\" cannot be a loop variable or assignment target: it is a reserved word"},
	{"reserved assignment target", "{% set not = 1 %}", "t.md:1:8: \"not\" cannot be a loop variable or assignment target: it is a reserved word"},
	{"bad target", "{% set 1 = 2 %}", "t.md:1:8: expected a name to assign to, found 1"},
	{"bad target in tuple", "{% for a, 1 in x %}{% endfor %}", "t.md:1:11: expected a name to assign to, found 1"},
	{"trailing comma before equals", "{% set a, = x %}", "t.md:1:11: expected a name to assign to, found ="},
	{"for without in", "{% for x y %}{% endfor %}", "t.md:1:10: expected \"in\", found y"},
	{"import without as", "{% import \"m.md\" m %}", "t.md:1:18: expected \"as\", found m"},
	{"import reserved name", "{% import \"m.md\" as if %}", "t.md:1:21: \"if\" cannot be a loop variable or assignment target: it is a reserved word"},
	{"from without import", "{% from \"m.md\" a %}", "t.md:1:16: expected \"import\", found a"},
	{"from import underscore", "{% from \"m.md\" import _private %}", "t.md:1:23: names starting with an underscore cannot be imported: _private"},
	{"macro parameter order", "{% macro m(a=1, b) %}{% endmacro %}", "t.md:1:17: parameter b without a default follows one with a default"},
	{"macro trailing comma", "{% macro m(a,) %}{% endmacro %}", "t.md:1:14: expected a parameter name, found )"},
	{"macro without parentheses", "{% macro m %}{% endmacro %}", "t.md:1:12: expected \"(\", found end of tag"},
	{"call block without a call", "{% call m %}{% endcall %}", "t.md:1:9: {% call %} needs a macro call: {% call m(…) %}"},
	{"chat without role", "{% chat \"user\" %}{% endchat %}", "t.md:1:9: expected role=… after chat, as in {% chat role=\"user\" %}, found \"user\""},
	{"chat role without equals", "{% chat role \"user\" %}{% endchat %}", "t.md:1:9: expected role=… after chat, as in {% chat role=\"user\" %}, found role"},
	{"chat allow not a list", "{% chat role=r allow=\"user\" %}{% endchat %}", `t.md:1:16: allow= takes a list of roles as string literals, as in {% chat role=turn.role allow=["user", "assistant"] %}`},
	{"chat allow of a name", "{% chat role=r allow=[\"user\", who] %}{% endchat %}", `t.md:1:31: allow= takes a list of roles as string literals, as in {% chat role=turn.role allow=["user", "assistant"] %}`},
	{"chat allow empty", "{% chat role=r allow=[] %}{% endchat %}", `t.md:1:16: allow= takes a list of roles as string literals, as in {% chat role=turn.role allow=["user", "assistant"] %}`},
	{"empty subscript", "{{ x[] }}", "t.md:1:6: empty subscript"},
	{"attribute name expected", "{{ x. }}", "t.md:1:7: expected an attribute name, found end of tag"},
	{"attribute name not a bracket", "{{ x.(1) }}", "t.md:1:6: expected an attribute name, found ("},
	{"attribute after a float", "{{ x. 1.5 }}", "t.md:1:7: expected an attribute name, found 1.5"},
	{"positional after keyword", "{{ f(a=1, b) }}", "t.md:1:11: positional argument after keyword argument: arguments go positional, then keyword and *args, then **kwargs"},
	{"positional after star", "{{ f(*a, b) }}", "t.md:1:10: positional argument after *args: arguments go positional, then keyword and *args, then **kwargs"},
	{"positional after double star", "{{ f(**k, b) }}", "t.md:1:11: positional argument after **kwargs: arguments go positional, then keyword and *args, then **kwargs"},
	{"keyword after double star", "{{ f(**k, b=1) }}", "t.md:1:11: keyword argument after **kwargs: arguments go positional, then keyword and *args, then **kwargs"},
	{"star after double star", "{{ f(**k, *a) }}", "t.md:1:11: *args after **kwargs: arguments go positional, then keyword and *args, then **kwargs"},
	{"second star", "{{ f(*a, *b) }}", "t.md:1:10: a second *args: a call takes at most one *args and one **kwargs"},
	{"second double star", "{{ f(**a, **b) }}", "t.md:1:11: a second **kwargs: a call takes at most one *args and one **kwargs"},
	{"chained tests", "{{ a is defined is none }}", "t.md:1:17: tests cannot be chained with is"},
	{"Django filter argument", "{{ x | default:\"none\" }}", "t.md:1:15: Django filter arguments (default:arg) are not supported; write Jinja's default(arg)"},
	{"Django filter argument inside a dict value", "{{ {1: x | default:2} }}", "t.md:1:19: Django filter arguments (default:arg) are not supported; write Jinja's default(arg)"},
	{"Django filter argument inside a call inside a subscript", "{{ xs[f(a|b:1)] }}", "t.md:1:12: Django filter arguments (b:arg) are not supported; write Jinja's b(arg)"},
	{"Django filter argument inside parentheses inside a dict key", "{{ {(x|d:1): 2} }}", "t.md:1:9: Django filter arguments (d:arg) are not supported; write Jinja's d(arg)"},
	{"call block trailing comma", "{% call(a,) m() %}{% endcall %}", "t.md:1:11: expected a parameter name, found )"},
	{"subscript trailing comma", "{{ x[a,] }}", "t.md:1:8: unexpected ] in expression"},
	{"with trailing comma before equals", "{% with a, = 1 %}{% endwith %}", "t.md:1:12: expected a name to assign to, found ="},
	{"end tag before its block", "{% endif %}{% if a %}", "t.md:1:1: unexpected {% endif %} with no open block\nt.md:1:12: {% if %} is never closed: missing {% endif %}"},
	{"expected a filter name", "{{ x | 1 }}", "t.md:1:8: expected a filter name, found 1"},
	{"expected a test name", "{{ x is 1 }}", "t.md:1:9: expected a test name, found 1"},
	{"leading zero integer", "{{ 012 }}", "t.md:1:5: expected \"}}\", found 12"},
	{"syntax error at the end of the file", "{{ x", "t.md:1:1: unclosed tag: missing \"}}\""},
	{"unclosed comment", "a\n{# b", "t.md:2:1: unclosed comment: missing \"#}\""},
	{"unclosed raw", "{% raw %}x", "t.md:1:1: unclosed {% raw %}: missing {% endraw %}"},
	{"unclosed string on line 2", "a\n{{ 'b }}", "t.md:2:4: unclosed string literal"},
	{"invalid UTF-8 on line 2", "a\n\xff", "t.md:2:1: invalid UTF-8: template files must be UTF-8 text"},
	{"set block never closed", "{% set x %}y", "t.md:1:1: {% set %} is never closed: missing {% endset %}"},
	{"shrink without priority", "{% shrink %}a{% endshrink %}", "t.md:1:11: expected priority=… after shrink, as in {% shrink priority=1 %}, found end of tag"},
	{"shrink priority not a literal", "{% shrink priority=p %}a{% endshrink %}", "t.md:1:20: priority= takes a literal integer (lower is cut first), so that the order of cuts is known at load"},
	{"shrink priority twice", "{% shrink priority=1 priority=2 %}a{% endshrink %}", "t.md:1:22: priority= is given twice"},
	{"shrink never closed", "{% shrink priority=1 %}a", "t.md:1:1: {% shrink %} is never closed: missing {% endshrink %}"},
	{"for shrink without priority", "{% for d in docs shrink keep=1 %}{% endfor %}", "t.md:1:32: expected priority=… after shrink, as in {% for d in docs shrink priority=1 drop=\"end\" keep=1 %}, found end of tag"},
	{"for shrink drop", "{% for d in docs shrink priority=1 drop=\"middle\" %}{% endfor %}", "t.md:1:41: drop= is \"end\" or \"start\": the end of the list a loop's items are cut from"},
	{"for shrink negative keep", "{% for d in docs shrink priority=1 keep=-1 %}{% endfor %}", "t.md:1:41: keep= takes a literal integer of 0 or more: the items a cut loop keeps"},
	{"chat drop", "{% chat role=\"user\" priority=1 drop=\"end\" %}{% endchat %}", "t.md:1:32: expected \"%}\", found drop"},
}

func TestParseErrors(t *testing.T) {
	tests := append(parseErrorTests,
		parseErrorTest{"block depth", strings.Repeat("{% if a %}", MaxBlockDepth+1) + strings.Repeat("{% endif %}", MaxBlockDepth+1),
			"t.md:1:641: blocks nested deeper than 64"},
		parseErrorTest{"expression depth", "\n{{ " + strings.Repeat("(", MaxExprDepth+1) + "x" + strings.Repeat(")", MaxExprDepth+1) + " }}",
			"t.md:2:" + itoa(4+MaxExprDepth) + ": expression nested deeper than 64 levels"},
		parseErrorTest{"expression depth of operators", "{{ x" + strings.Repeat(" + x", MaxExprDepth+1) + " }}",
			// One level for the expression, one per operator: the 64th
			// operator's operand is one too deep.
			"t.md:1:" + itoa(4*MaxExprDepth+4) + ": expression nested deeper than 64 levels"},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.md", tt.input, Options{})
			require.Error(t, err)
			var list ErrorList
			require.ErrorAs(t, err, &list)
			assert.Equal(t, tt.want, err.Error())
			lines := strings.Count(tt.input, "\n") + 1
			for _, e := range list {
				assert.Equal(t, "t.md", e.File)
				// Never past the end of the file.
				assert.LessOrEqual(t, e.Line, lines, "%v", e)
				assert.LessOrEqual(t, int(e.Pos), len(tt.input), "%v", e)
			}
		})
	}
}

// TestParseErrorKinds checks the kind of each problem: what is not
// supported is named so, limits are limits, the rest is syntax.
func TestParseErrorKinds(t *testing.T) {
	tests := []struct {
		input string
		kind  Kind
		name  string
	}{
		{"{{ x | default:1 }}", Unsupported, "default"},
		{"{% cycle a %}", Unsupported, "cycle"},
		{"{% do x %}", Unsupported, "do"},
		{`{{ "\N{BULLET}" }}`, Unsupported, `\N`},
		{"{% frob %}", Syntax, ""},
		{"{{ x[] }}", Syntax, ""},
		{strings.Repeat("{% if a %}", MaxBlockDepth+1), Limit, ""},
		{"{{ " + strings.Repeat("[", MaxExprDepth+1) + strings.Repeat("]", MaxExprDepth+1) + " }}", Limit, ""},
	}
	for _, tt := range tests {
		_, err := Parse("t.md", tt.input, Options{})
		var list ErrorList
		require.ErrorAs(t, err, &list, "input %q", tt.input)
		assert.Equal(t, tt.kind, list[0].Kind, "input %q: %v", tt.input, err)
		assert.Equal(t, tt.name, list[0].Name, "input %q", tt.input)
	}
}

// TestParseKeepsTreeOnError checks that a file with problems still
// returns what parsed, so later passes may report more.
func TestParseKeepsTreeOnError(t *testing.T) {
	tr, err := Parse("t.md", "a{{ x + }}b{% if y %}c{% endif %}", Options{})
	require.Error(t, err)
	require.NotNil(t, tr)
	assert.Equal(t, "ab{% if y %}c{% endif %}", bodyString(tr.Root))
}

// TestParseOptions checks that the whitespace options reach the lexer.
func TestParseOptions(t *testing.T) {
	src := "<ul>\n  {% for x in xs %}\n  <li>{{ x }}</li>\n  {% endfor %}\n</ul>\n"
	tr, err := Parse("t.md", src, Options{TrimBlocks: true, LStripBlocks: true, KeepTrailingNewline: true})
	require.NoError(t, err)
	assert.Equal(t, "<ul>\n{% for x in xs %}  <li>{{ x }}</li>\n{% endfor %}</ul>\n", bodyString(tr.Root))
}

func TestConstString(t *testing.T) {
	// Literals print so that they read back as the same value.
	tests := []struct {
		v    any
		want string
	}{
		{nil, "none"}, {true, "true"}, {false, "false"}, {int64(-3), "-3"}, {2.5, "2.5"}, {3.0, "3.0"},
		{1e21, "1e+21"}, {1e-7, "1e-07"}, {"a\"b\\c\n\t\r\x01\x7f", `"a\"b\\c\n\t\r\x01\x7f"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, constString(tt.v), "%#v", tt.v)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
