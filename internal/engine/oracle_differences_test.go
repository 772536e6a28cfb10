package engine_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jinjaoracle"
)

// The documented differences from Jinja2: what promptkit renders otherwise
// on purpose, or refuses where Jinja2 renders, each with the reason. The
// list in docs/jinja-differences.md is made from this table
// (go test ./internal/engine -run TestJinjaDifferences -update), and
// TestJinjaDifferences checks both sides still behave as it says, so the
// document cannot drift from the code.

// outcome is what one side does with a template: its output, or (err
// set) a part of the error it gives.
type outcome struct {
	out string
	err string
}

func out(s string) outcome    { return outcome{out: s} }
func raises(s string) outcome { return outcome{err: s} }

type difference struct {
	template  string
	jinja     outcome // Jinja2's output, or the start of the exception it raises
	promptkit outcome // promptkit's output, or a part of its error
}

type differenceKind struct {
	title   string
	why     string
	cases   []difference
	hfCases []difference // rendered in Hugging Face's environment
}

// envCase is a case and the environment it renders in.
type envCase struct {
	difference
	hf bool // Hugging Face's environment (else the stock one)
}

// all is every case of the kind.
func (k differenceKind) all() []envCase {
	var out []envCase
	for _, c := range k.cases {
		out = append(out, envCase{c, false})
	}
	for _, c := range k.hfCases {
		out = append(out, envCase{c, true})
	}
	return out
}

var differences = []differenceKind{
	{
		title: "Names no assignment reaches are refused at load",
		why: "promptkit checks every name of a template when the set loads: a name must be a declared " +
			"variable or be bound where it is read. Jinja2 makes such a name undefined at render time " +
			"(printing nothing, false in a test), which hides typos and names that leak out of a scope; " +
			"promptkit refuses the template with the name, file, line and column instead. The same holds " +
			"across files: a template imported (or included) without context that reads a variable of " +
			"the template rendered is refused, where Jinja2 reads it as undefined — or as the environment's " +
			"global of that name: promptkit has no globals, only the variables a render is given.",
		cases: []difference{
			{"{{ undefined_thing_not_declared is defined }}", out("False"), raises(`undeclared variable "undefined_thing_not_declared"`)},
			{"{% for x in xs %}{{ x }}{% endfor %}{{ x }}|", out("312|"), raises(`undeclared variable "x"`)},
			{"{% for x in xs %}{% set y = x * 2 %}{{ y }}{% endfor %}{{ y }}|", out("624|"), raises(`undeclared variable "y"`)},
			{"{% with %}{% set z = 1 %}{{ z }}{% endwith %}{{ z is defined }}", out("1False"), raises(`undeclared variable "z"`)},
			{"{% macro m() %}{% set x = 1 %}{{ x }}{% endmacro %}{{ m() }}{{ x is defined }}", out("1False"), raises(`undeclared variable "x"`)},
			{"{{ loop }}", out(""), raises("loop exists only inside a {% for %} loop")},
			{"{% for x in [] %}{% else %}{{ loop is defined }}{% endfor %}", out("False"), raises("loop exists only inside a {% for %} loop")},
			{"{% for x in xs if loop.index %}{{ x }}{% endfor %}", raises("UndefinedError: 'loop' is undefined"), raises("loop exists only inside a {% for %} loop")},
			{"{% for x in xs %}{{ loop.nope }}|{% endfor %}", out("|||"), raises(`loop has no attribute "nope"`)},
		},
	},
	{
		title: "Every branch is checked at load",
		why: "Jinja2 reports an unknown filter or test inside an `if` (or a conditional expression) only " +
			"when that code runs, and parses a test followed by a name-like word (`is true not in`) as the " +
			"test's argument; promptkit checks the whole template when the set loads, so such a template " +
			"is refused even when no render would reach the mistake.",
		cases: []difference{
			{"{% if false %}{{ 1|nofilter }}{% endif %}ok", out("ok"), raises(`filter "nofilter" is not supported`)},
			{"{{ 1|nofilter if false else 2 }}", out("2"), raises(`filter "nofilter" is not supported`)},
			{"{% if false %}{{ s|string.zfill(5) }}{% endif %}ok", out("ok"), raises(`filter "string.zfill" is not supported`)},
			{"{% if false %}{{ 1 is nosuchtest }}{% endif %}ok", out("ok"), raises(`test "nosuchtest" is not supported`)},
			{"{% if false %}{{ 1 is true not in [1] }}{% endif %}ok", out("ok"), raises("unexpected not in expression")},
			{"{% if false %}{% block x required %}{% endblock %}{% endif %}ok", out("ok"), raises(`required block "x" not found`)},
		},
	},
	{
		title: "Template paths are literals, and extends stands at the top level",
		why: "promptkit resolves every include, import and extends when the set loads, and checks the " +
			"templates they name with the one that names them, so a path must be a string literal and " +
			"`{% extends %}` must stand at the top level of its template. Jinja2 picks the template when " +
			"it renders: from a variable, the first that exists of a list (`{% include [a, b] %}`), or " +
			"behind an `if` (a conditional extends). Such a template is refused at load, even where no " +
			"render would reach the tag.",
		cases: []difference{
			{"{% if false %}{% include name %}{% endif %}ok", out("ok"), raises("include takes a literal path string")},
			{"{% if false %}{% include ['a.md', 'b.md'] %}{% endif %}ok", out("ok"), raises("include takes a literal path string")},
			{"{% if false %}{% import name as m %}{% endif %}ok", out("ok"), raises("import takes a literal path string")},
			{"{% if false %}{% extends 'base.md' %}{% endif %}ok", out("ok"), raises("{% extends %} must stand at the top level of the template")},
		},
	},
	{
		title: "Blocks are not called through self",
		why: "In Jinja2, `self.name()` renders the template's block of that name again, anywhere (even a " +
			"block defined inside an `if` that never runs). promptkit has no `self`: a block renders " +
			"where it stands; text wanted in several places is a macro, called where it is wanted.",
		cases: []difference{
			{"{% block b %}x{% endblock %}|{{ self.b() }}", out("x|x"), raises(`undeclared variable "self"`)},
		},
	},
	{
		title: "Builtins that would make a prompt non-reproducible are refused",
		why: "The same template and values always make the same prompt in promptkit, so that a prompt can " +
			"be reviewed, cached and compared. The filter `random` and the global `lipsum` (random words) " +
			"would break that; they are refused at load.",
		cases: []difference{
			{"{{ [1]|random }}", out("1"), raises(`filter "random" is not supported: it picks at random`)},
			{"{{ lipsum(1)|length > 0 }}", out("True"), raises(`global "lipsum" is not supported: it writes random text`)},
		},
	},
	{
		title: "Constant slices are not folded leniently",
		why: "Jinja2 evaluates an expression of constants when it compiles the template, through its " +
			"lenient item lookup, so a constant slice that Python refuses becomes undefined; the same slice " +
			"of a variable raises. promptkit refuses both, as Python does.",
		cases: []difference{
			{"{{ 'a'[1:0.5] }}|", out("|"), raises("slice: index must be an integer")},
			{"{{ 5[1:2] }}|", out("|"), raises("integer cannot be sliced")},
			{"{{ s[1:0.5] }}|", raises("TypeError: slice indices must be integers"), raises("slice: index must be an integer")},
		},
	},
	{
		title: "Values are never changed",
		why: "A template reads the values it is given and builds new ones; it cannot change them, so " +
			"a render has no effect on the host's data and two renders of the same values give the " +
			"same prompt. The methods that change a list or dict in place are refused at load (Hugging " +
			"Face's sandboxed environment refuses them too, with a SecurityError); `a + [x]`, " +
			"`dict(d, k=v)` and `namespace` build what they would.",
		cases: []difference{
			{"{{ xs.append(4) }}{{ xs }}", out("None[3, 1, 2, 4]"), raises(`method "append" is not supported: templates cannot change the values they are given`)},
			{"{{ d.pop('a') }}", out("1"), raises(`method "pop" is not supported`)},
			{"{{ d.update({'x': 1}) }}", out("None"), raises(`method "update" is not supported`)},
			{"{{ d.setdefault('q', 1) }}", out("1"), raises(`method "setdefault" is not supported`)},
		},
	},
	{
		title: "Lazy values print as the list they make",
		why: "Python's range, dict views and the iterators that `select`, `map`, `reverse` and their " +
			"kind return print as Python objects (`range(0, 3)`, `<generator object …>`), which no " +
			"prompt wants; promptkit makes them lists, which print as lists. They stay what they are " +
			"for `tojson`, which refuses them as Jinja2 does (`| list` first).",
		cases: []difference{
			{"{{ range(3) }}", out("range(0, 3)"), out("[0, 1, 2]")},
			{"{{ [range(2)] }}", out("[range(0, 2)]"), out("[[0, 1]]")},
			{"{{ d.items() }}", out("dict_items([('C', 3), ('a', 1), ('b', 2)])"), out("[('C', 3), ('a', 1), ('b', 2)]")},
			{"{{ d.keys() }} {{ d.values() }}", out("dict_keys(['C', 'a', 'b']) dict_values([3, 1, 2])"), out("['C', 'a', 'b'] [3, 1, 2]")},
			{"{{ xs|reverse }}", out("<list_reverseiterator object at 0x…>"), out("[2, 1, 3]")},
			{"{{ users|selectattr('age')|map(attribute='name') }}", out("<generator object sync_do_map at 0x…>"), out("['Ann', 'bob', 'Cy']")},
		},
	},
	{
		title: "Functions print without an address",
		why: "Python prints a function or method with its memory address, which differs on every run; " +
			"promptkit prints the same words without it, so a prompt is reproducible.",
		cases: []difference{
			{"{{ s.upper }}", out("<built-in method upper of str object at 0x…>"), out("<built-in method upper of string object>")},
			{"{{ [s.upper] }}", out("[<built-in method upper of str object at 0x…>]"), out("[<built-in method upper of string object>]")},
			{"{{ 'x'.join }}", out("<built-in method join of str object at 0x…>"), out("<built-in method join of string object>")},
			{"{{ {'items': 1}.items }}", out("<built-in method items of dict object at 0x…>"), out("<built-in method items of mapping object>")},
			{"{{ d.items }}", out("<built-in method items of dict object at 0x…>"), out("<built-in method items of mapping object>")},
		},
	},
	{
		title: "Numbers and strings have no attributes but their methods",
		why: "Python's numbers carry attributes (`real`, `imag`, `numerator`, `denominator`) and its " +
			"strings methods for bytes (`encode`); templates have no use for them, and promptkit has none: " +
			"the attribute is undefined, and calling `encode` is refused at load.",
		cases: []difference{
			{"{{ n.real }}", out("7"), out("")},
			{"{{ s.encode }}", out("<built-in method encode of str object at 0x…>"), out("")},
			{"{{ u.encode('utf-8') }}", out(`b'\xe6\x9f\xa5\xe8\xaf\xa2\xe5\xa4\xa9\xe6\xb0\x94 ok'`), raises("method encode(…) is not supported")},
		},
	},
	{
		title: "A filter's or test's argument given twice is refused",
		why: "Jinja2 passes a filter's keyword arguments as a dict, so of a keyword given twice the last " +
			"silently wins (a call, which Python compiles, refuses it). promptkit refuses it everywhere, " +
			"at load: it is a mistake, never meant.",
		cases: []difference{
			{"{{ 'x'|replace(old='a', old='b', new='c') }}", out("x"), raises(`replace got two values for argument "old"`)},
		},
	},
	{
		title: "Error messages are promptkit's own",
		why: "Where Jinja2 raises, promptkit refuses too, with a message of its own: it names the file, " +
			"line and column, says what was expected, lists what there is (the supported filters and " +
			"tests) and, for a mistyped name, what was meant. Its words are not Jinja2's, and no " +
			"Python exception class crosses into Go (errors are `*manager.Error` values wrapping " +
			"promptkit's sentinels), so a test that matches Jinja2's wording fails on the wording alone.",
		cases: []difference{
			{"{{ 1|nofilter }}", raises("TemplateAssertionError: No filter named 'nofilter'."), raises(`filter "nofilter" is not supported; supported filters: abs,`)},
			{"{{ 1 is nosuchtest }}", raises("TemplateAssertionError: No test named 'nosuchtest'."), raises(`test "nosuchtest" is not supported; supported tests:`)},
			{"{% for x in xs %}{% endif %}", raises("TemplateSyntaxError: Encountered unknown tag 'endif'. Jinja was looking for the following tags: 'endfor' or 'else'."), raises("{% for %} is never closed: missing {% endfor %}")},
			{"{% set ns = {} %}{% set ns.a = 1 %}", raises("TemplateRuntimeError: cannot assign attribute on non-namespace object"), raises(`cannot set attribute "a" of mapping: only a namespace() can be changed`)},
			{"{% block x required %}{% endblock %}", raises("TemplateRuntimeError: Required block 'x' not found"), raises(`required block "x" not found: no template of the chain defines it`)},
		},
	},
	{
		title: "Methods take their arguments by name too",
		why: "Most of Python's string methods take their arguments by position only " +
			"(`'xy'.removesuffix(suffix='y')` is a TypeError); promptkit binds a method's arguments as it " +
			"binds a filter's, by position or by name, so naming one is not an error.",
		cases: []difference{
			{"{{ 'xy'.removesuffix(suffix='y') }}", raises("TypeError: str.removesuffix() takes no keyword arguments"), out("x")},
			{"{{ 'a-b'.startswith(prefix='a') }}", raises("TypeError: startswith() takes no keyword arguments"), out("True")},
		},
	},
}

var update = flag.Bool("update", false, "rewrite the generated part of docs/jinja-differences.md")

// addresses are the memory addresses Python prints in an object's repr.
var addresses = regexp.MustCompile(` at 0x[0-9a-f]+>`)

// TestJinjaDifferences checks every documented difference: Jinja2 still
// gives what the table says (when the oracle is there), promptkit still
// gives what it says, and docs/jinja-differences.md lists exactly these.
func TestJinjaDifferences(t *testing.T) {
	doc := filepath.Join("..", "..", "docs", "jinja-differences.md")
	data, err := os.ReadFile(doc)
	require.NoError(t, err)
	text := string(data)
	start := strings.Index(text, docBegin)
	end := strings.Index(text, docEnd)
	require.True(t, start >= 0 && end > start, "%s lacks the markers %q and %q", doc, docBegin, docEnd)
	gen := differencesMarkdown()
	if *update {
		text = text[:start+len(docBegin)] + "\n" + gen + text[end:]
		require.NoError(t, os.WriteFile(doc, []byte(text), 0o644))
	} else {
		assert.Equal(t, gen, text[start+len(docBegin)+1:end], "%s is out of date: go test ./internal/engine -run TestJinjaDifferences -update", doc)
	}

	var o *jinjaoracle.Oracle
	if oo, err := jinjaoracle.Shared(); err == nil {
		o = oo
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("the oracle is needed on CI: %v", err)
	}
	for _, k := range differences {
		for _, c := range k.all() {
			t.Run(k.title+"/"+c.template, func(t *testing.T) {
				vars := fixture()
				render, oracle := renderStock, func(tpl string, vars map[string]any) (string, string) { return o.Render(tpl, vars) }
				if c.hf {
					render = renderHFValues
					oracle = func(tpl string, vars map[string]any) (string, string) {
						return o.RenderEnv(jinjaoracle.Env{HuggingFace: true, Now: oracleNow}, tpl, vars)
					}
				}
				if o != nil {
					want, jerr := oracle(c.template, vars)
					want = addresses.ReplaceAllString(want, " at 0x…>")
					if c.jinja.err != "" {
						assert.Contains(t, jerr, c.jinja.err, "Jinja2's answer")
					} else {
						require.Empty(t, jerr, "Jinja2's answer")
						assert.Equal(t, c.jinja.out, want, "Jinja2's answer")
					}
				}
				got, err := render(c.template, vars)
				if c.promptkit.err != "" {
					require.Error(t, err, "promptkit rendered %q", got)
					assert.Contains(t, err.Error(), c.promptkit.err)
				} else {
					require.NoError(t, err)
					assert.Equal(t, c.promptkit.out, got)
				}
			})
		}
	}
}

const (
	docBegin = "<!-- differences: generated from internal/engine/oracle_differences_test.go (go test ./internal/engine -run TestJinjaDifferences -update) -->"
	docEnd   = "<!-- end of differences -->"
)

// differencesMarkdown is the generated part of docs/jinja-differences.md.
func differencesMarkdown() string {
	var b strings.Builder
	for _, k := range differences {
		b.WriteString("### " + k.title + "\n\n" + k.why + "\n\n")
		b.WriteString("| template | Jinja2 | promptkit |\n|---|---|---|\n")
		for _, c := range k.all() {
			env := ""
			if c.hf {
				env = " (Hugging Face's environment)"
			}
			b.WriteString("| " + code(c.template) + env + " | " + cell(c.jinja) + " | " + cell(c.promptkit) + " |\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func cell(o outcome) string {
	if o.err != "" {
		return "error: " + code(o.err+"…")
	}
	if o.out == "" {
		return "(nothing)"
	}
	return code(o.out)
}

// code makes s a code span in a table cell: pipes escaped, newlines shown
// as \n, backticks fenced by enough backticks.
func code(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
