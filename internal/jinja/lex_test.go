package jinja

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lexer's tests, in the manner of text/template/parse's lex_test.go:
// tables of inputs and the items they make. The whitespace rules were
// checked against Python's Jinja2 (Environment.lex) case by case.

// Item constructors for the tables; positions are checked separately
// (TestLexPositions), as text/template does.
var (
	tEOF = item{typ: itemEOF}
	tVB  = item{typ: itemVarBegin, val: "{{"}
	tVE  = item{typ: itemVarEnd, val: "}}"}
	tBB  = item{typ: itemBlockBegin, val: "{%"}
	tBE  = item{typ: itemBlockEnd, val: "%}"}
)

func tText(s string) item  { return item{typ: itemText, val: s} }
func tName(s string) item  { return item{typ: itemName, val: s} }
func tStr(s string) item   { return item{typ: itemString, val: s} }
func tInt(s string) item   { return item{typ: itemInt, val: s} }
func tFloat(s string) item { return item{typ: itemFloat, val: s} }
func tOp(s string) item    { return item{typ: itemOp, val: s} }

// out is {{ x }}: the items of an output of one name.
func out(name string) []item { return []item{tVB, tName(name), tVE} }

// tag is {% words %}: the items of a block tag of names.
func tag(words ...string) []item {
	its := []item{tBB}
	for _, w := range words {
		its = append(its, tName(w))
	}
	return append(its, tBE)
}

// seq flattens items and groups of items, ending with EOF.
func seq(parts ...any) []item {
	var its []item
	for _, p := range parts {
		switch p := p.(type) {
		case item:
			its = append(its, p)
		case []item:
			its = append(its, p...)
		default:
			panic(fmt.Sprintf("seq: %T", p))
		}
	}
	return append(its, tEOF)
}

var (
	trim   = Options{TrimBlocks: true}
	lstrip = Options{LStripBlocks: true}
	both   = Options{TrimBlocks: true, LStripBlocks: true}
)

type lexTest struct {
	name  string
	input string
	opt   Options
	items []item
}

var lexTests = []lexTest{
	// Text and delimiters.
	{"empty", "", Options{}, seq()},
	{"text", "hello, world", Options{}, seq(tText("hello, world"))},
	{"single braces", "a { b } c {", Options{}, seq(tText("a { b } c {"))},
	{"brace then hash is a comment", "a{#b#}c", Options{}, seq(tText("a"), tText("c"))},
	{"output", "{{ x }}", Options{}, seq(out("x"))},
	{"output without spaces", "{{x}}", Options{}, seq(out("x"))},
	{"output between text", "a{{x}}b", Options{}, seq(tText("a"), out("x"), tText("b"))},
	{"block tag", "{% if x %}", Options{}, seq(tag("if", "x"))},
	{"percent inside output", "{{ a % b }}", Options{}, seq(tVB, tName("a"), tOp("%"), tName("b"), tVE)},
	{"tags in a row", "{{a}}{{b}}", Options{}, seq(out("a"), out("b"))},
	{"newlines inside a tag", "{%\nif\nx\n%}", Options{}, seq(tag("if", "x"))},
	{"comment", "a{# note #}b", Options{}, seq(tText("a"), tText("b"))},
	{"multi-line comment", "a{# one\n{{ x }}\n{% if %} #}b", Options{}, seq(tText("a"), tText("b"))},
	{"comment only", "{# c #}", Options{}, seq()},
	{"comment ends at the first #}", "{# a #} b #}", Options{}, seq(tText(" b #}"))},

	// Whitespace control: "-" strips all whitespace on its side, newlines
	// included, for all three delimiters.
	{"minus on output", "a \n {{- x -}} \n b", Options{}, seq(tText("a"), out("x"), tText("b"))},
	{"minus on block", "a \n {%- if x -%} \n b", Options{}, seq(tText("a"), tag("if", "x"), tText("b"))},
	{"minus on comment", "a \n {#- c -#} \n b", Options{}, seq(tText("a"), tText("b"))},
	{"minus left only", "a \n{{- x }} b", Options{}, seq(tText("a"), out("x"), tText(" b"))},
	{"minus right only", "a {{ x -}}\n b", Options{}, seq(tText("a "), out("x"), tText("b"))},
	{"minus strips every whitespace", "a\t\v\f\u00a0\u3000{{- x }}", Options{}, seq(tText("a"), out("x"))},
	{"minus strips Python's separators U+001C-U+001F", "a\x1c\x1f{{- x -}}\x1d\x1eb", Options{}, seq(tText("a"), out("x"), tText("b"))},
	{"minus keeps a zero-width space", "a\u200b{{- x }}", Options{}, seq(tText("a\u200b"), out("x"))},
	{"minus strips to nothing", "  {{- x -}}  ", Options{}, seq(out("x"))},
	{"minus after minus", "{{ a -}} {{- b }}", Options{}, seq(out("a"), out("b"))},
	{"plus opening without lstrip is nothing", "  {%+ if x %}", Options{}, seq(tText("  "), tag("if", "x"))},
	{"plus on output is an operator", "{{ x +}}", Options{}, seq(tVB, tName("x"), tOp("+"), tVE)},

	// trim_blocks: the first newline after a block tag or a comment goes,
	// not after an output.
	{"trim after block", "{% if x %}\nA", trim, seq(tag("if", "x"), tText("A"))},
	{"trim after comment", "{# c #}\nA", trim, seq(tText("A"))},
	{"no trim after output", "{{ x }}\nA", trim, seq(out("x"), tText("\nA"))},
	{"trim takes one newline", "{% if x %}\n\nA", trim, seq(tag("if", "x"), tText("\nA"))},
	{"trim needs the newline right after", "{% if x %} \nA", trim, seq(tag("if", "x"), tText(" \nA"))},
	{"trim off by default", "{% if x %}\nA", Options{}, seq(tag("if", "x"), tText("\nA"))},
	{"plus closing keeps the newline", "{% if x +%}\nA", trim, seq(tag("if", "x"), tText("\nA"))},
	{"plus closing a comment keeps the newline", "{# c +#}\nA", trim, seq(tText("\nA"))},
	{"minus closing wins over trim", "{% if x -%}\n\n A", trim, seq(tag("if", "x"), tText("A"))},

	// lstrip_blocks: spaces and tabs before a block tag or comment go when
	// the tag starts its line.
	{"lstrip at the start of the source", "  \t{% if x %}", lstrip, seq(tag("if", "x"))},
	{"lstrip after a newline", "a\n  {% if x %}", lstrip, seq(tText("a\n"), tag("if", "x"))},
	{"lstrip a comment", "a\n  {# c #}b", lstrip, seq(tText("a\n"), tText("b"))},
	{"no lstrip when text precedes on the line", "a  {% if x %}", lstrip, seq(tText("a  "), tag("if", "x"))},
	{"no lstrip before an output", "a\n  {{ x }}", lstrip, seq(tText("a\n  "), out("x"))},
	{"no lstrip after a tag on the same line", "{{ x }}  {% if y %}", lstrip, seq(out("x"), tText("  "), tag("if", "y"))},
	{"plus disables lstrip", "a\n  {%+ if x %}", lstrip, seq(tText("a\n  "), tag("if", "x"))},
	{"plus disables lstrip of a comment", "  {#+ c #}", lstrip, seq(tText("  "))},
	{"minus with lstrip strips everything", "a\n  {%- if x %}", lstrip, seq(tText("a"), tag("if", "x"))},
	{"lstrip only the last line", "a\n\n  {% if x %}", lstrip, seq(tText("a\n\n"), tag("if", "x"))},
	{"lstrip strips Python's separators", "a\n\x1c {% if x %}", lstrip, seq(tText("a\n"), tag("if", "x"))},
	{"lstrip strips unicode spaces", "a\n\u00a0{% if x %}", lstrip, seq(tText("a\n"), tag("if", "x"))},
	// After trim_blocks took a newline the next line starts with the
	// following text: its indentation goes too (Jinja's line_starting).
	{"trim then lstrip", "{% if a %}\n  {% if b %}", both, seq(tag("if", "a"), tag("if", "b"))},
	{"trim then lstrip needs trim", "{% if a %}\n  {% if b %}", lstrip, seq(tag("if", "a"), tText("\n"), tag("if", "b"))},
	{"after an output the line does not start", "{{ a }}\n  {% if b %}", both, seq(out("a"), tText("\n"), tag("if", "b"))},
	{"typical loop", "<ul>\n  {% for x in xs %}\n  <li>{{ x }}</li>\n  {% endfor %}\n</ul>", both,
		seq(tText("<ul>\n"), tag("for", "x", "in", "xs"), tText("  <li>"), out("x"), tText("</li>\n"), tag("endfor"), tText("</ul>"))},

	// Raw blocks: the body is text, tags and all, with the whitespace
	// control of both tags; trim_blocks applies after endraw, not after raw.
	{"raw", "{% raw %}{{ x }}{% if %}{# c #}{% endraw %}", Options{}, seq(tText("{{ x }}{% if %}{# c #}"))},
	{"raw between text", "a{% raw %}b{% endraw %}c", Options{}, seq(tText("a"), tText("b"), tText("c"))},
	{"raw with spaces in its tags", "{%raw%}x{%  endraw  %}", Options{}, seq(tText("x"))},
	{"raw with minus", "a {%- raw -%} b {%- endraw -%} c", Options{}, seq(tText("a"), tText("b"), tText("c"))},
	{"raw body keeps an endraw-like tag", "{% raw %}a{% endrawx %}b{% endraw %}", Options{}, seq(tText("a{% endrawx %}b"))},
	{"raw body keeps an endraw without closing", "{% raw %}a{% endraw x %}b{% endraw %}", Options{}, seq(tText("a{% endraw x %}b"))},
	{"rawx is a tag", "{% rawx %}", Options{}, seq(tag("rawx"))},
	{"no trim after raw", "{% raw %}\nA{% endraw %}", trim, seq(tText("\nA"))},
	{"trim after endraw", "{% raw %}A{% endraw %}\nB", trim, seq(tText("A"), tText("B"))},
	{"plus after endraw keeps the newline", "{% raw %}A{% endraw +%}\nB", trim, seq(tText("A"), tText("\nB"))},
	{"lstrip before raw", "a\n  {% raw %}b{% endraw %}", lstrip, seq(tText("a\n"), tText("b"))},
	{"lstrip before endraw", "{% raw %}b\n  {% endraw %}", lstrip, seq(tText("b\n"))},
	{"no lstrip before endraw mid-line", "{% raw %}b  {% endraw %}", lstrip, seq(tText("b  "))},
	{"empty raw", "{% raw %}{% endraw %}", Options{}, seq()},

	// Strings: every escape of Python's unicode_escape codec, which Jinja
	// applies; an unknown escape stays as written.
	{"double-quoted", `{{ "a b" }}`, Options{}, seq(tVB, tStr("a b"), tVE)},
	{"single-quoted", `{{ 'a b' }}`, Options{}, seq(tVB, tStr("a b"), tVE)},
	{"empty string", `{{ "" }}`, Options{}, seq(tVB, tStr(""), tVE)},
	{"simple escapes", `{{ "\n\t\r\\\'\"\a\b\f\v" }}`, Options{}, seq(tVB, tStr("\n\t\r\\'\"\a\b\f\v"), tVE)},
	{"hex escape", `{{ "\x41\x4a\x4A" }}`, Options{}, seq(tVB, tStr("AJJ"), tVE)},
	{"u escape", `{{ "\u4e2d\u00E9" }}`, Options{}, seq(tVB, tStr("中é"), tVE)},
	{"U escape", `{{ "\U0001F600" }}`, Options{}, seq(tVB, tStr("😀"), tVE)},
	{"octal escapes", `{{ "\101\0\7\777\1012" }}`, Options{}, seq(tVB, tStr("A\x00\x07ǿA2"), tVE)},
	{"unknown escapes are kept", `{{ "\q\z\ \8\X41\é" }}`, Options{}, seq(tVB, tStr(`\q\z\ \8\X41\é`), tVE)},
	{"backslash-newline continues the line", "{{ \"a\\\nb\" }}", Options{}, seq(tVB, tStr("ab"), tVE)},
	{"newline inside a string", "{{ \"a\nb\" }}", Options{}, seq(tVB, tStr("a\nb"), tVE)},
	{"other quote inside", `{{ "it's" ~ 'say "hi"' }}`, Options{}, seq(tVB, tStr("it's"), tOp("~"), tStr(`say "hi"`), tVE)},
	{"escaped quote", `{{ 'it\'s' }}`, Options{}, seq(tVB, tStr("it's"), tVE)},
	{"string hides the closer", `{{ "}}" }}`, Options{}, seq(tVB, tStr("}}"), tVE)},
	{"string hides a bracket", `{{ f(")") }}`, Options{}, seq(tVB, tName("f"), tOp("("), tStr(")"), tOp(")"), tVE)},
	{"adjacent strings", `{{ "a" 'b' }}`, Options{}, seq(tVB, tStr("a"), tStr("b"), tVE)},
	{"non-ASCII string", `{{ "日本語" }}`, Options{}, seq(tVB, tStr("日本語"), tVE)},

	// Numbers: Python's integer and float literals.
	{"zero", "{{ 0 }}", Options{}, seq(tVB, tInt("0"), tVE)},
	{"zeros", "{{ 00 0_0 }}", Options{}, seq(tVB, tInt("00"), tInt("00"), tVE)},
	{"integer", "{{ 42 }}", Options{}, seq(tVB, tInt("42"), tVE)},
	{"underscores", "{{ 1_000_000 }}", Options{}, seq(tVB, tInt("1000000"), tVE)},
	{"double underscore ends the number", "{{ 1__0 }}", Options{}, seq(tVB, tInt("1"), tName("__0"), tVE)},
	{"trailing underscore ends the number", "{{ 1_ }}", Options{}, seq(tVB, tInt("1"), tName("_"), tVE)},
	{"leading zero ends a decimal integer", "{{ 012 }}", Options{}, seq(tVB, tInt("0"), tInt("12"), tVE)},
	{"hex", "{{ 0x1f 0X1F 0x_ff }}", Options{}, seq(tVB, tInt("0x1f"), tInt("0X1F"), tInt("0xff"), tVE)},
	{"octal", "{{ 0o17 0O7 }}", Options{}, seq(tVB, tInt("0o17"), tInt("0O7"), tVE)},
	{"binary", "{{ 0b101 0B1_0 }}", Options{}, seq(tVB, tInt("0b101"), tInt("0B10"), tVE)},
	{"binary stops at a bad digit", "{{ 0b102 }}", Options{}, seq(tVB, tInt("0b10"), tInt("2"), tVE)},
	{"prefix without digits", "{{ 0x 0xg }}", Options{}, seq(tVB, tInt("0"), tName("x"), tInt("0"), tName("xg"), tVE)},
	{"float", "{{ 1.5 0.25 }}", Options{}, seq(tVB, tFloat("1.5"), tFloat("0.25"), tVE)},
	{"float with leading zeros", "{{ 00.5 07.5 }}", Options{}, seq(tVB, tFloat("00.5"), tFloat("07.5"), tVE)},
	{"exponents", "{{ 1e5 1E+5 1.5e-3 0e0 }}", Options{}, seq(tVB, tFloat("1e5"), tFloat("1E+5"), tFloat("1.5e-3"), tFloat("0e0"), tVE)},
	{"underscores in a float", "{{ 1_0.0_1e1_0 }}", Options{}, seq(tVB, tFloat("10.01e10"), tVE)},
	{"exponent without digits", "{{ 1e 1e+ }}", Options{}, seq(tVB, tInt("1"), tName("e"), tInt("1"), tName("e"), tOp("+"), tVE)},
	{"dot without fraction", "{{ 1. }}", Options{}, seq(tVB, tInt("1"), tOp("."), tVE)},
	{"fraction without integer", "{{ .5 }}", Options{}, seq(tVB, tOp("."), tInt("5"), tVE)},
	{"two dots", "{{ 1.2.3 }}", Options{}, seq(tVB, tFloat("1.2"), tOp("."), tInt("3"), tVE)},
	// After a dot a number is an index: x.0.1 is x[0][1], as in Jinja.
	{"index after a dot", "{{ x.0.1 }}", Options{}, seq(tVB, tName("x"), tOp("."), tInt("0"), tOp("."), tInt("1"), tVE)},
	{"no exponent after a dot", "{{ x.1e5 }}", Options{}, seq(tVB, tName("x"), tOp("."), tInt("1"), tName("e5"), tVE)},
	{"float after a dot and a space", "{{ x. 0.5 }}", Options{}, seq(tVB, tName("x"), tOp("."), tFloat("0.5"), tVE)},

	// Operators, longest first, and brackets.
	{"operators", "{{ // ** == != <= >= + - * / % ~ < > ( ) [ ] { } , . : | = ; }}", Options{},
		seq(tVB, tOp("//"), tOp("**"), tOp("=="), tOp("!="), tOp("<="), tOp(">="), tOp("+"), tOp("-"), tOp("*"), tOp("/"),
			tOp("%"), tOp("~"), tOp("<"), tOp(">"), tOp("("), tOp(")"), tOp("["), tOp("]"), tOp("{"), tOp("}"),
			tOp(","), tOp("."), tOp(":"), tOp("|"), tOp("="), tOp(";"), tVE)},
	{"operators without spaces", "{{a**-b//c}}", Options{}, seq(tVB, tName("a"), tOp("**"), tOp("-"), tName("b"), tOp("//"), tName("c"), tVE)},
	{"brackets hide the closer", "{{ {'a': {'b': 1}} }}", Options{},
		seq(tVB, tOp("{"), tStr("a"), tOp(":"), tOp("{"), tStr("b"), tOp(":"), tInt("1"), tOp("}"), tOp("}"), tVE)},
	{"brackets hide the block closer", "{% set x = {'%}': 1} %}", Options{}, seq(tBB, tName("set"), tName("x"), tOp("="), tOp("{"), tStr("%}"), tOp(":"), tInt("1"), tOp("}"), tBE)},
	{"dict then closer", "{{ {}}}", Options{}, seq(tVB, tOp("{"), tOp("}"), tVE)},
	{"nested brackets", "{{ f([{}], (1,)) }}", Options{}, seq(tVB, tName("f"), tOp("("), tOp("["), tOp("{"), tOp("}"), tOp("]"), tOp(","), tOp("("), tInt("1"), tOp(","), tOp(")"), tOp(")"), tVE)},

	// Names: letters (any script), digits and underscores.
	{"names", "{{ _a1 b_2 }}", Options{}, seq(tVB, tName("_a1"), tName("b_2"), tVE)},
	{"unicode names", "{{ имя 名前 café }}", Options{}, seq(tVB, tName("имя"), tName("名前"), tName("café"), tVE)},
	{"unicode digits in a name", "{{ x٣ }}", Options{}, seq(tVB, tName("x٣"), tVE)},
	{"keywords are names", "{{ not a in b is c }}", Options{}, seq(tVB, tName("not"), tName("a"), tName("in"), tName("b"), tName("is"), tName("c"), tVE)},
	{"whitespace inside tags", "{{\tx\n\u00a0\x1cy }}", Options{}, seq(tVB, tName("x"), tName("y"), tVE)},
}

func TestLex(t *testing.T) {
	for _, tt := range lexTests {
		t.Run(tt.name, func(t *testing.T) {
			items, errs := lex(tt.input, tt.opt)
			require.Empty(t, errs)
			for i := range items {
				items[i].pos = 0
			}
			assert.Equal(t, tt.items, items, "input %q", tt.input)
		})
	}
}

// TestLexPositions checks the byte offsets of items, across lines and
// after whitespace control.
func TestLexPositions(t *testing.T) {
	type pi struct {
		typ itemType
		pos Pos
		val string
	}
	tests := []struct {
		input string
		opt   Options
		want  []pi
	}{
		{"a{{ x }}b", Options{}, []pi{
			{itemText, 0, "a"}, {itemVarBegin, 1, "{{"}, {itemName, 4, "x"}, {itemVarEnd, 6, "}}"},
			{itemText, 8, "b"}, {itemEOF, 9, ""}}},
		{"line1\n{% if x %}\n  {{ y.z }}", Options{}, []pi{
			{itemText, 0, "line1\n"}, {itemBlockBegin, 6, "{%"}, {itemName, 9, "if"}, {itemName, 12, "x"},
			{itemBlockEnd, 14, "%}"}, {itemText, 16, "\n  "}, {itemVarBegin, 19, "{{"}, {itemName, 22, "y"},
			{itemOp, 23, "."}, {itemName, 24, "z"}, {itemVarEnd, 26, "}}"}, {itemEOF, 28, ""}}},
		// The text after a stripping tag starts after what it stripped.
		{"a {{- x -}} b", Options{}, []pi{
			{itemText, 0, "a"}, {itemVarBegin, 2, "{{"}, {itemName, 6, "x"}, {itemVarEnd, 8, "}}"},
			{itemText, 12, "b"}, {itemEOF, 13, ""}}},
		{"{% if x %}\nA", trim, []pi{
			{itemBlockBegin, 0, "{%"}, {itemName, 3, "if"}, {itemName, 6, "x"}, {itemBlockEnd, 8, "%}"},
			{itemText, 11, "A"}, {itemEOF, 12, ""}}},
		{"{# c #}\n{% raw %}{{ x }}{% endraw %}", Options{}, []pi{
			{itemText, 7, "\n"}, {itemText, 17, "{{ x }}"}, {itemEOF, 36, ""}}},
		{`{{ "é" 12 3.5 }}`, Options{}, []pi{
			{itemVarBegin, 0, "{{"}, {itemString, 3, "é"}, {itemInt, 8, "12"}, {itemFloat, 11, "3.5"},
			{itemVarEnd, 15, "}}"}, {itemEOF, 17, ""}}},
	}
	for _, tt := range tests {
		items, errs := lex(tt.input, tt.opt)
		require.Empty(t, errs, "input %q", tt.input)
		got := make([]pi, len(items))
		for i, it := range items {
			got[i] = pi{it.typ, it.pos, it.val}
		}
		assert.Equal(t, tt.want, got, "input %q", tt.input)
	}
}

// TestLexErrors checks every problem the lexer reports, with its position.
func TestLexErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"unclosed comment", "a\n  {# never", `t:2:3: unclosed comment: missing "#}"`},
		{"unclosed output", "a {{ x", `t:1:3: unclosed tag: missing "}}"`},
		{"unclosed block", "{% if x", `t:1:1: unclosed tag: missing "%}"`},
		{"closer of the other kind", "{% if x }}", `t:1:9: unexpected "}": no bracket is open`},
		// Inside a bracket a closer is brackets too, as in Jinja's lexer.
		{"block closer inside a bracket", "{% set x = [a %} ] %}", `t:1:16: unexpected "}": expected "]" to close "["`},
		{"minus closer inside a bracket", "{{ (a -}} ) }}", `t:1:8: unexpected "}": expected ")" to close "("`},
		{"unclosed raw", "x\n{% raw %}{{ y }}", "t:2:1: unclosed {% raw %}: missing {% endraw %}"},
		{"bracket never closed", "{{ f(x }}", `t:1:8: unexpected "}": expected ")" to close "("`},
		{"bracket open at the end", "{{ f(x", `t:1:5: '(' is never closed before "}}"`},
		{"closing bracket without opening", "{{ x ) }}", `t:1:6: unexpected ")": no bracket is open`},
		{"mismatched bracket", "{{ [x) }}", `t:1:6: unexpected ")": expected "]" to close "["`},
		{"unexpected character", "{{ a $ b }}", `t:1:6: unexpected character '$' in tag`},
		{"lone bang", "{{ a ! b }}", `t:1:6: unexpected character '!' in tag`},
		{"non-letter character", "{{ ١ }}", `t:1:4: unexpected character '١' in tag`},
		{"unclosed string", "{{ 'abc }}", "t:1:4: unclosed string literal"},
		{"unclosed string by an escape", `{{ "abc\" }}`, "t:1:4: unclosed string literal"},
		{"truncated hex escape", `{{ "ab\x4g" }}`, `t:1:7: bad escape \x4 in string: \x takes 2 hex digits`},
		{"truncated u escape", `{{ "\u12" }}`, `t:1:5: bad escape \u12 in string: \u takes 4 hex digits`},
		{"truncated U escape", `{{ "\U0001F6" }}`, `t:1:5: bad escape \U0001F6 in string: \U takes 8 hex digits`},
		{"escape beyond Unicode", `{{ "\U00110000" }}`, `t:1:5: bad escape \U00110000 in string: U+110000 is not a character`},
		{"surrogate escape", `{{ "\ud800" }}`, `t:1:5: bad escape \ud800 in string: U+D800 is not a character`},
		{"named escape", `{{ "\N{BULLET}" }}`, `t:1:5: escapes by character name (\N{…}) are not supported; write the character itself, or \u with its code`},
		{"escape error on line 3", "a\nb\n{{ 'x' ~ 'é\\x' }}", `t:3:12: bad escape \x in string: \x takes 2 hex digits`},
		{"invalid UTF-8", "ab\xffc", "t:1:3: invalid UTF-8: template files must be UTF-8 text"},
		{"invalid UTF-8 on line 2", "日本\n語\xc3", "t:2:2: invalid UTF-8: template files must be UTF-8 text"},
		{"invalid UTF-8 inside a tag", "{{ 'a\xe4' }}", "t:1:6: invalid UTF-8: template files must be UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, errs := lex(tt.input, Options{})
			require.Len(t, errs, 1, "items %v", items)
			want := Syntax
			if tt.name == "named escape" {
				want = Unsupported
			}
			assert.Equal(t, want, errs[0].Kind)
			assert.Equal(t, tt.want, errs.located(NewSource("t", tt.input)).Error())
		})
	}
}

// TestLexRecovery checks that a tag that fails to lex is reported, ends
// in an itemError and its closer, and that lexing goes on after it.
func TestLexRecovery(t *testing.T) {
	tests := []struct {
		name, input string
		items       []item
		errs        string
	}{
		{"bad character", "{{ a $ b }}c{{ d }}",
			seq(tVB, tName("a"), item{typ: itemError, val: "unexpected character '$' in tag"}, tVE, tText("c"), out("d")),
			`t:1:6: unexpected character '$' in tag`},
		{"bracket then a good tag", "{{ f( }}\n{% if x %}",
			seq(tVB, tName("f"), tOp("("), item{typ: itemError, val: `unexpected "}": expected ")" to close "("`}, tVE, tText("\n"), tag("if", "x")),
			`t:1:7: unexpected "}": expected ")" to close "("`},
		{"three bad tags", "{{ $ }}\n{% if ! %}\n{{ 'x\\q\\x' }}{{ ok }}",
			seq(tVB, item{typ: itemError, val: "unexpected character '$' in tag"}, tVE, tText("\n"),
				tBB, tName("if"), item{typ: itemError, val: "unexpected character '!' in tag"}, tBE, // trim_blocks took the newline
				tVB, item{typ: itemError, val: `bad escape \x in string: \x takes 2 hex digits`}, tVE, out("ok")),
			"t:1:4: unexpected character '$' in tag\n" +
				"t:2:7: unexpected character '!' in tag\n" +
				`t:3:8: bad escape \x in string: \x takes 2 hex digits`},
		// The closer's whitespace control still applies.
		{"strip after a bad tag", "{{ $ -}}  x", seq(tVB, item{typ: itemError, val: "unexpected character '$' in tag"}, tVE, tText("x")),
			`t:1:4: unexpected character '$' in tag`},
		{"trim after a bad block tag", "{% $ %}\nx", seq(tBB, item{typ: itemError, val: "unexpected character '$' in tag"}, tBE, tText("x")),
			`t:1:4: unexpected character '$' in tag`},
		// An unclosed string resumes at the closer after its quote.
		{"unclosed string", "{{ 'a }}b{{ c }}", seq(tVB, item{typ: itemError, val: "unclosed string literal"}, tVE, tText("b"), out("c")),
			"t:1:4: unclosed string literal"},
		// Problems that run to the end end the items.
		{"bad tag without closer", "{{ $ x", seq(tVB, item{typ: itemError, val: "unexpected character '$' in tag"}),
			`t:1:4: unexpected character '$' in tag`},
		{"unclosed tag", "a{{ x", seq(tText("a"), tVB, tName("x"), item{typ: itemError, val: `unclosed tag: missing "}}"`}),
			`t:1:2: unclosed tag: missing "}}"`},
		{"unclosed comment after a bad tag", "{{ $ }}{# x", seq(tVB, item{typ: itemError, val: "unexpected character '$' in tag"}, tVE),
			"t:1:4: unexpected character '$' in tag\nt:1:8: unclosed comment: missing \"#}\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, errs := lex(tt.input, trim)
			for i := range items {
				items[i].pos = 0
			}
			assert.Equal(t, tt.items, items)
			assert.Equal(t, tt.errs, errs.located(NewSource("t", tt.input)).Error())
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		in   string
		keep bool
		want string
	}{
		{"a\r\nb", false, "a\nb"},
		{"a\rb", false, "a\nb"},
		{"a\r\r\nb", false, "a\n\nb"},
		{"\ufeffa", false, "a"},
		{"a\ufeff", false, "a\ufeff"},
		{"\ufeff\ufeffa", false, "\ufeffa"},
		{"a\n", false, "a"},
		{"a\n", true, "a\n"},
		{"a\n\n", false, "a\n"},
		{"a\r\n", false, "a"},
		{"a\r\n", true, "a\n"},
		{"\n", false, ""},
		{"", false, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Normalize(tt.in, tt.keep), "Normalize(%q, %v)", tt.in, tt.keep)
	}
}

// TestParseNormalizes checks that Parse reads source as Normalize does, so
// positions count lines as Jinja does.
func TestParseNormalizes(t *testing.T) {
	tr, err := Parse("t", "\ufeffa\r\nb\r{{ x }}\r\n", Options{})
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n{{ x }}", bodyString(tr.Root))
	_, err = Parse("t", "a\r\n\r\n{{ x", Options{})
	assert.EqualError(t, err, `t:3:1: unclosed tag: missing "}}"`)
	tr, err = Parse("t", "a\n", Options{KeepTrailingNewline: true})
	require.NoError(t, err)
	assert.Equal(t, "a\n", bodyString(tr.Root))
}

func TestItemString(t *testing.T) {
	assert.Equal(t, "end of template", tEOF.String())
	assert.Equal(t, "end of tag", tVE.String())
	assert.Equal(t, "end of tag", tBE.String())
	assert.Equal(t, `"a\"b"`, tStr(`a"b`).String())
	assert.Equal(t, "text", tText("x").String())
	assert.Equal(t, "name", tName("name").String())
	assert.Equal(t, "+", tOp("+").String())
}

func TestSourcePosition(t *testing.T) {
	// Columns count runes; positions past the end clamp to it.
	src := NewSource("t", "ab\n日本語x\n\nz")
	tests := []struct {
		pos       Pos
		line, col int
	}{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {6, 2, 2}, {9, 2, 3}, {12, 2, 4}, {13, 2, 5}, {14, 3, 1}, {15, 4, 1}, {16, 4, 2}, {99, 4, 2}, {-1, 1, 1},
	}
	for _, tt := range tests {
		l, c := src.Position(tt.pos)
		assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{l, c}, "Position(%d)", tt.pos)
	}
	// Beyond one chunk of the rune index.
	long := NewSource("t", strings.Repeat("é", 3000)+"\nx")
	l, c := long.Position(Pos(6001))
	assert.Equal(t, [2]int{2, 1}, [2]int{l, c})
	l, c = long.Position(Pos(4000))
	assert.Equal(t, [2]int{1, 2001}, [2]int{l, c})
}

// TestNames: a name is a Python identifier (str.isidentifier, as Jinja's
// lexer checks it), letters and digits of every script included, and the
// characters Unicode adds to identifiers though they are not letters.
func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		valid bool
	}{
		{"foo", true}, {"föö", true}, {"き", true}, {"_", true}, {"x١٢", true},
		{"\u1885", true}, {"\u1886", true}, {"\u2118", true}, {"\u212e", true}, // Other_ID_Start
		{"a\u00b7", true}, {"a\u0387", true}, {"a\u1369", true}, // Other_ID_Continue
		{"\u00b7", false}, {"\u0e33", false}, {"a\u309b", false}, {"a²", false},
		{"1a", false}, {"a-", false}, {"\U0001f40da", false}, {"a🐍", false},
	} {
		_, err := Parse("t.md", "{{ "+tc.name+" }}", Options{})
		assert.Equal(t, tc.valid, err == nil, "%q: %v", tc.name, err)
	}
}
