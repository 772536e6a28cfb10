package jinja

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parseString(t *testing.T, src string) string {
	t.Helper()
	tr, err := Parse("t.md", src, Options{})
	require.NoError(t, err)
	return bodyString(tr.Root)
}

// TestParseFilterBeforeColon: in a dict key or a slice bound a ":" after a
// filter ends the expression; it is Django's filter argument only
// elsewhere.
func TestParseFilterBeforeColon(t *testing.T) {
	assert.Equal(t, "{{ {x | upper: 1} }}", parseString(t, "{{ {x|upper: 1} }}"))
	assert.Equal(t, "{{ xs[a | int:b | int:c | int] }}", parseString(t, "{{ xs[a|int:b|int:c|int] }}"))
	for _, src := range []string{"{{ x|default:'y' }}", "{{ {1: x|default:'y'} }}", "{{ xs[f(a|b:1)] }}", "{{ {(x|d:1): 2} }}"} {
		_, err := Parse("t.md", src, Options{})
		assert.ErrorContains(t, err, "Django filter arguments", src)
	}
}

// TestParseCallArgumentOrder: Jinja's order is positional arguments, then
// keyword arguments and at most one *args, then at most one **kwargs. A
// second *args was taken silently, dropping the first.
func TestParseCallArgumentOrder(t *testing.T) {
	assert.Equal(t, "{{ f(1, b=1, *a, **c) }}", parseString(t, "{{ f(1, *a, b=1, **c) }}"))
	for src, want := range map[string]string{
		"{{ f(*a, *b) }}":   "t.md:1:10: a second *args: a call takes at most one *args and one **kwargs",
		"{{ f(**a, **b) }}": "t.md:1:11: a second **kwargs: a call takes at most one *args and one **kwargs",
		"{{ f(**a, *b) }}":  "t.md:1:11: *args after **kwargs: arguments go positional, then keyword and *args, then **kwargs",
		"{{ f(**k, b=1) }}": "t.md:1:11: keyword argument after **kwargs: arguments go positional, then keyword and *args, then **kwargs",
		"{{ f(a=1, b) }}":   "t.md:1:11: positional argument after keyword argument: arguments go positional, then keyword and *args, then **kwargs",
		"{{ f(*a, b) }}":    "t.md:1:10: positional argument after *args: arguments go positional, then keyword and *args, then **kwargs",
	} {
		_, err := Parse("t.md", src, Options{})
		assert.EqualError(t, err, want, src)
	}
}

// TestParsePrintSeveral: {% print a, b %} prints a then b, as Jinja's does;
// it printed the tuple (a, b).
func TestParsePrintSeveral(t *testing.T) {
	assert.Equal(t, "{{ a ~ (b | upper) }}", parseString(t, "{% print a, b | upper %}"))
	assert.Equal(t, "{{ (a, b) }}", parseString(t, "{% print (a, b) %}"))
	_, err := Parse("t.md", "{% print a, %}", Options{})
	assert.EqualError(t, err, "t.md:1:13: unexpected end of tag in expression")
}

// TestParseTrailingCommas: Jinja allows no trailing comma in a macro's
// signature, a subscript, or an assignment target before "=".
func TestParseTrailingCommas(t *testing.T) {
	for _, src := range []string{"{% macro m(a,) %}{% endmacro %}", "{% call(a,) m() %}{% endcall %}", "{{ x[a,] }}",
		"{% set a, = x %}", "{% with a, = 1 %}{% endwith %}"} {
		_, err := Parse("t.md", src, Options{})
		assert.Error(t, err, src)
	}
	assert.Equal(t, "{% for (a,) in x %}{% endfor %}", parseString(t, "{% for a, in x %}{% endfor %}"))
	assert.Equal(t, "{% set a = (1,) %}", parseString(t, "{% set a = 1, %}"))
	assert.Equal(t, "{{ f(a) }}{{ [a] }}", parseString(t, "{{ f(a,) }}{{ [a,] }}"))
}

// TestStringRoundTrips: String prints Jinja that parses back to the same
// tree. Each of these printed text that did not.
func TestStringRoundTrips(t *testing.T) {
	for src, want := range map[string]string{
		"{{ 1e999 }}":                                     "{{ 1e999 }}",
		"{{ x[1:2, ::3] }}":                               "{{ x[1:2, ::3] }}",
		"{{ (x is none) is defined }}":                    "{{ (x is none) is defined }}",
		"{{ (x is none) | string }}":                      "{{ (x is none) | string }}",
		"{{ x is eq(1) is defined }}":                     "{{ x is eq(1) is defined }}",
		"{% with %}x{% endwith %}":                        "{% with %}x{% endwith %}",
		"{% for x in (a if b else c) %}{% endfor %}":      "{% for x in (a if b else c) %}{% endfor %}",
		"{% if (a if b) %}{% elif (c if d) %}{% endif %}": "{% if (a if b) %}{% elif (c if d) %}{% endif %}",
	} {
		printed := parseString(t, src)
		assert.Equal(t, want, printed, src)
		assert.Equal(t, printed, parseString(t, printed), src)
	}
}

// TestParseErrorAtTheTagEnd: an error found at a tag's end (consumed)
// skips nothing after it; it skipped the next tag, here the if, whose
// endif was then reported as well.
func TestParseErrorAtTheTagEnd(t *testing.T) {
	tr, err := Parse("t.md", "a{{ x + }}b{% if y %}c{% endif %}", Options{})
	assert.EqualError(t, err, "t.md:1:9: unexpected end of tag in expression")
	assert.Equal(t, "ab{% if y %}c{% endif %}", bodyString(tr.Root))
}

// TestParseReportsEveryTag: a tag the lexer cannot read is reported and
// skipped, and the rest of the file is still lexed and parsed, so every
// problem is reported, each on its line (the first one ended the lexing).
func TestParseReportsEveryTag(t *testing.T) {
	_, err := Parse("t.md", "intro\nmore\n{{ docs | upper( }}", Options{})
	assert.EqualError(t, err, `t.md:3:18: unexpected "}": expected ")" to close "("`)
	_, err = Parse("t.md", "{{ x | upper( }}\n{% if %}x{% endif %}\n{{ y[ }}\n{{ $ }}{{ 'a }}\n{{ ok }}{{ a b }}", Options{})
	assert.EqualError(t, err, `t.md:1:15: unexpected "}": expected ")" to close "("`+"\n"+
		"t.md:2:7: expected an expression, found end of tag\n"+
		`t.md:3:7: unexpected "}": expected "]" to close "["`+"\n"+
		"t.md:4:4: unexpected character '$' in tag\n"+
		"t.md:4:11: unclosed string literal\n"+
		`t.md:5:14: expected "}}", found b`)
	// A block tag the lexer cannot read still owns its body: its end tag
	// is not a second problem, nor is the parser's view of the broken tag.
	_, err = Parse("t.md", "{% for x in y | f( %}\n{{ x }}\n{% endfor %}\n{{ z }}", Options{})
	assert.EqualError(t, err, `t.md:1:21: unexpected "}": expected ")" to close "("`)
}

// TestParseBlockRecovery: an unclosed block is reported once, where it
// opened, even when the end tag of a block around it ends it; crossed tags
// and stray end tags are one problem each; the end tag of an unknown tag
// and the blocks left open when the parser gives up are not reported.
func TestParseBlockRecovery(t *testing.T) {
	for src, want := range map[string]string{
		"{% if a %}\n{% for x in y %}\n{% endif %}":                          "t.md:2:1: {% for %} is never closed: missing {% endfor %}",
		"line\n  {% for x in y %}\n{% if z %}":                               "t.md:2:3: {% for %} is never closed: missing {% endfor %}\nt.md:3:1: {% if %} is never closed: missing {% endif %}",
		"{% for a in b %}{% if x %}{% else %}{% endfor %}":                   "t.md:1:17: {% if %} is never closed: missing {% endif %}",
		"{% if x %}{% with %}x{% endif %}{% endwith %}":                      "t.md:1:22: unexpected {% endif %} inside {% with %}",
		"{% if a %}{% endfor %}{% endif %}":                                  "t.md:1:11: unexpected {% endfor %} inside {% if %}",
		"{% for x in y %}{% else %}{% else %}{% endfor %}":                   "t.md:1:27: unexpected {% else %} inside {% for %}",
		"{% if a %}{% else %}{% elif b %}{% endif %}":                        "t.md:1:21: unexpected {% elif %} inside {% if %}",
		"{% if a %}{% for x in %}{% endif %}":                                "t.md:1:23: expected an expression, found end of tag",
		"{% ifequal a b %}{% endifequal %}":                                  "t.md:1:4: tag \"ifequal\" is not supported: it is Django's, not Jinja's; write {% if a == b %}",
		"{% endif %}{% if a %}":                                              "t.md:1:1: unexpected {% endif %} with no open block\nt.md:1:12: {% if %} is never closed: missing {% endif %}",
		strings.Repeat("{% if a %}", 65) + strings.Repeat("{% endif %}", 65): "t.md:1:641: blocks nested deeper than 64",
	} {
		_, err := Parse("t.md", src, Options{})
		assert.EqualError(t, err, want, src)
	}
}

func TestParseParameterName(t *testing.T) {
	_, err := Parse("t.md", "{% macro m(a, 1) %}{% endmacro %}", Options{})
	assert.EqualError(t, err, "t.md:1:15: expected a parameter name, found 1")
}
