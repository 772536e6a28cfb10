package jinja

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// catalog is a small runtime: a few filters, tests, globals and methods,
// some refused, to check the checks against.
var catalog = Catalog{
	Filters: map[string]Spec{
		"upper":   {},
		"default": {MaxArgs: 2, Kwargs: []string{"default_value", "boolean"}},
		"join":    {MaxArgs: 2, Kwargs: []string{"d", "attribute"}},
		"replace": {MinArgs: 2, MaxArgs: 3, Kwargs: []string{"old", "new", "count"}},
		"length":  {},
		"image":   {},
		"safe":    {Refused: "promptkit never HTML-escapes, so nothing needs marking safe"},
	},
	Tests: map[string]Spec{
		"defined":     {},
		"none":        {},
		"divisibleby": {MinArgs: 1, MaxArgs: 1, Kwargs: []string{"num"}},
		"sameas":      {MinArgs: 1, MaxArgs: 1},
		"escaped":     {Refused: "promptkit has no markup values"},
	},
	Globals: map[string]Spec{
		"range":     {MinArgs: 1, MaxArgs: 3},
		"namespace": {MaxArgs: 1, AnyKwargs: true},
		"lipsum":    {Refused: "prompts hold no placeholder text"},
	},
	Methods: map[string]Spec{
		"upper":      {},
		"items":      {},
		"startswith": {MinArgs: 1, MaxArgs: 3},
		"format":     {Refused: "use the format filter"},
	},
	Loop:      []string{"index", "index0", "first", "last", "length", "cycle", "changed"},
	ChatRoles: []string{"system", "user", "assistant"},
}

type files map[string]string

// load is Config.Load over files: a fresh parse per call, a LoadError for
// a missing file.
func (fs files) load(p string) (*Tree, error) {
	src, ok := fs[p]
	if !ok {
		return nil, &LoadError{Kind: Include, Msg: "no such file"}
	}
	return Parse(p, src, Options{})
}

func check(src string, declared []string, fs files, tweak func(*Config)) (*Program, error) {
	tr, err := Parse("t.md", src, Options{})
	if err != nil {
		return nil, err
	}
	cfg := &Config{Catalog: catalog, Declared: declared, DeclareHint: "declare it in index.json", Load: fs.load}
	if tweak != nil {
		tweak(cfg)
	}
	return Check(tr, cfg)
}

// The checks' tests: each case is a template (t.md), its declared
// variables and the files it may include or import, and every problem
// Check reports, in order, as file:line:col: message.

type checkTest struct {
	name     string
	src      string
	declared []string
	files    files
	want     []string // nil: the template checks
}

var checkTests = []checkTest{
	{"undeclared", "{{ a }}", nil, nil, []string{"t.md:1:4: undeclared variable \"a\" (declare it in index.json)"}},
	{"undeclared in branches", "{% if x %}{{ a }}{% elif y %}{{ b }}{% else %}{{ c }}{% endif %}{{ x }}", []string{"x", "y"}, nil, []string{"t.md:1:14: undeclared variable \"a\" (declare it in index.json)", "t.md:1:33: undeclared variable \"b\" (declare it in index.json)", "t.md:1:50: undeclared variable \"c\" (declare it in index.json)"}},
	{"undeclared in conditions", "{% if p %}{% elif q %}{% endif %}", nil, nil, []string{"t.md:1:7: undeclared variable \"p\" (declare it in index.json)", "t.md:1:19: undeclared variable \"q\" (declare it in index.json)"}},
	{"undeclared in loop", "{% for i in xs %}{{ a }}{% else %}{{ b }}{% endfor %}", []string{"xs"}, nil, []string{"t.md:1:21: undeclared variable \"a\" (declare it in index.json)", "t.md:1:38: undeclared variable \"b\" (declare it in index.json)"}},
	{"undeclared in loop filter", "{% for i in xs if i > lim %}{% endfor %}", []string{"xs"}, nil, []string{"t.md:1:23: undeclared variable \"lim\" (declare it in index.json)"}},
	{"undeclared in macro", "{% macro m(p) %}{{ p }}{{ a }}{% endmacro %}", nil, nil, []string{"t.md:1:27: undeclared variable \"a\" (declare it in index.json)"}},
	{"undeclared in call block", "{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}{{ a }}{% endcall %}", nil, nil, []string{"t.md:1:61: undeclared variable \"a\" (declare it in index.json)"}},
	{"undeclared in include", "{% include \"p.md\" %}", nil, files{"p.md": "x\n{{ a }}"}, []string{"p.md:2:4: undeclared variable \"a\" (declare it in index.json)"}},
	{"undeclared in import", "{% import \"m.md\" as m %}", nil, files{"m.md": "{% macro f() %}{{ a }}{% endmacro %}"}, []string{"m.md:1:19: undeclared variable \"a\" (declare it in index.json)"}},
	{"undeclared in set block and filter block", "{% set s %}{{ a }}{% endset %}{% filter upper %}{{ b }}{% endfilter %}", nil, nil, []string{"t.md:1:15: undeclared variable \"a\" (declare it in index.json)", "t.md:1:52: undeclared variable \"b\" (declare it in index.json)"}},
	{"loop does not leak", "{% for i in xs %}{% set t = i %}{% endfor %}{{ t }}{{ i }}", []string{"xs"}, nil, []string{"t.md:1:48: undeclared variable \"t\" (declare it in index.json)", "t.md:1:55: undeclared variable \"i\" (declare it in index.json)"}},
	{"set in loop reads outer", "{% set t = 0 %}{% for i in xs %}{% set t = t + i %}{% endfor %}{{ t }}", []string{"xs"}, nil, nil},
	{"with copy-in", "{% with a = x %}{{ a }}{% endwith %}{{ a }}", []string{"x"}, nil, []string{"t.md:1:40: undeclared variable \"a\" (declare it in index.json)"}},
	{"with sees own earlier", "{% with a = 1, b = a %}{% endwith %}", nil, nil, []string{"t.md:1:20: undeclared variable \"a\" (declare it in index.json)"}},
	{"include sees locals", "{% set loc = 1 %}{% include \"p.md\" %}{{ z }}", nil, files{"p.md": "{{ loc }}{% set z = 2 %}"}, []string{"t.md:1:41: undeclared variable \"z\" (declare it in index.json)"}},
	{"include without context", "{% set loc = 1 %}{% include \"p.md\" without context %}", []string{"x"}, files{"p.md": "{{ loc }}{{ x }}{{ range(1) }}"}, []string{"p.md:1:4: undeclared variable \"loc\" (declare it in index.json)", "p.md:1:13: \"x\" is a variable of the including template, which a template included without context does not see: drop \"without context\" from the {% include %}"}},
	{"import without context", "{% import \"m.md\" as m %}", []string{"x"}, files{"m.md": "{{ x }}"}, []string{"m.md:1:4: \"x\" is a variable of the importing template, which an imported template sees only when imported with context: {% import \"…\" as m with context %}"}},
	{"import with context", "{% import \"m.md\" as m with context %}", []string{"x"}, files{"m.md": "{{ x }}"}, nil},
	{"macro sees later names", "{% macro m() %}{{ later }}{% endmacro %}{% set later = 1 %}{{ m() }}", nil, nil, nil},
	{"loop outside for", "{{ loop.index }}", nil, nil, []string{"t.md:1:4: loop exists only inside a {% for %} loop"}},
	{"loop in for", "{% for i in xs %}{{ loop.index }}{{ loop.nope }}{% endfor %}", []string{"xs"}, nil, []string{"t.md:1:42: loop has no attribute \"nope\"; it has: index, index0, first, last, length, cycle, changed"}},
	{"loop call not recursive", "{% for i in xs %}{{ loop(i) }}{% endfor %}{% for i in xs recursive %}{{ loop(i) }}{% endfor %}", []string{"xs"}, nil, []string{"t.md:1:21: loop(…) recurses only in a loop marked recursive: {% for x in xs recursive %}"}},
	{"loop in for filter", "{% for i in xs if loop.index %}{% endfor %}", []string{"xs"}, nil, []string{"t.md:1:19: loop exists only inside a {% for %} loop"}},
	{"caller outside macro", "{{ caller() }}{{ varargs }}{{ kwargs }}", nil, nil, []string{"t.md:1:4: caller exists only inside a {% macro %}", "t.md:1:18: varargs exists only inside a {% macro %}", "t.md:1:31: kwargs exists only inside a {% macro %}"}},
	{"caller inside macro", "{% macro m() %}{{ caller() }}{{ varargs }}{{ kwargs }}{% endmacro %}", nil, nil, nil},
	{"forloop", "{{ forloop.counter }}", nil, nil, []string{"t.md:1:4: forloop is Django's loop variable; in Jinja write loop.index, loop.index0, loop.first, loop.last, … inside the loop"}},
	{"super", "{{ super() }}", nil, nil, []string{"t.md:1:4: super() exists only inside a {% block %} of a template that extends another"}},
	{"did you mean", "{{ usr_name }}", []string{"user_name"}, nil, []string{"t.md:1:4: undeclared variable \"usr_name\" (declare it in index.json); did you mean \"user_name\"?"}},
	{"did you mean local", "{% set counter = 1 %}{{ countr }}", nil, nil, []string{"t.md:1:25: undeclared variable \"countr\" (declare it in index.json); did you mean \"counter\"?"}},
	{"no suggestion for short names", "{{ ab }}", []string{"ax"}, nil, []string{"t.md:1:4: undeclared variable \"ab\" (declare it in index.json)"}},
	{"unknown filter", "{{ x | shout }}", []string{"x"}, nil, []string{"t.md:1:8: filter \"shout\" is not supported; supported filters: default, image, join, length, replace, upper"}},
	{"django filter", "{{ x | date }}", []string{"x"}, nil, []string{"t.md:1:8: filter \"date\" is Django's, not Jinja's; supported filters: default, image, join, length, replace, upper"}},
	{"refused filter", "{{ x | safe }}", []string{"x"}, nil, []string{"t.md:1:8: filter \"safe\" is not supported: promptkit never HTML-escapes, so nothing needs marking safe"}},
	{"unknown test", "{{ x is odd }}", []string{"x"}, nil, []string{"t.md:1:9: test \"odd\" is not supported; supported tests: defined, divisibleby, none, sameas"}},
	{"refused test", "{{ x is escaped }}", []string{"x"}, nil, []string{"t.md:1:9: test \"escaped\" is not supported: promptkit has no markup values"}},
	{"unknown method", "{{ x.shout() }}", []string{"x"}, nil, []string{"t.md:1:6: method shout(…) is not supported; supported methods: items, startswith, upper"}},
	{"refused method", "{{ x.format(1) }}", []string{"x"}, nil, []string{"t.md:1:6: method \"format\" is not supported: use the format filter"}},
	{"refused global", "{{ lipsum() }}", nil, nil, []string{"t.md:1:4: global \"lipsum\" is not supported: prompts hold no placeholder text"}},
	{"global ok", "{{ range(3) }}{% set ns = namespace(a=1) %}{{ ns.a }}", nil, nil, nil},
	{"global arity", "{{ range() }}{{ range(1, 2, 3, 4) }}", nil, nil, []string{"t.md:1:4: function range takes 1 to 3 arguments", "t.md:1:17: function range takes 1 to 3 arguments"}},
	{"filter arity", "{{ x | upper(1) }}{{ x | replace(\"a\") }}{{ x | replace(\"a\", \"b\", 1, 2) }}", []string{"x"}, nil, []string{"t.md:1:4: filter upper takes no arguments", "t.md:1:22: filter replace takes 2 to 3 arguments (old, new, count)", "t.md:1:44: filter replace takes 2 to 3 arguments (old, new, count)"}},
	{"filter keyword", "{{ x | join(sep=\", \") }}{{ x | upper(k=1) }}", []string{"x"}, nil, []string{"t.md:1:13: filter join has no argument \"sep\" (it has: d, attribute)", "t.md:1:38: filter upper takes no keyword arguments (got k=)"}},
	{"keyword for positional", "{{ x | replace(old=\"a\", new=\"b\") }}{{ x | replace(\"a\", new=\"b\") }}", []string{"x"}, nil, nil},
	{"test arity", "{{ x is divisibleby }}{{ x is divisibleby(1, 2) }}{{ x is divisibleby(num=3) }}", []string{"x"}, nil, []string{"t.md:1:4: test divisibleby takes 1 argument (num)", "t.md:1:26: test divisibleby takes 1 argument (num)"}},
	{"method arity", "{{ x.startswith() }}{{ x.upper(1) }}", []string{"x"}, nil, []string{"t.md:1:4: method startswith takes 1 to 3 arguments", "t.md:1:24: method upper takes no arguments"}},
	{"dynamic args skip arity", "{{ x | replace(*a) }}", []string{"x", "a"}, nil, nil},
	{"reserved set", "{% set loop = 1 %}", nil, nil, []string{"t.md:1:8: \"loop\" cannot be assigned: it is reserved"}},
	{"duplicate param", "{% macro m(a, a) %}{% endmacro %}", nil, nil, []string{"t.md:1:15: parameter a is declared twice"}},
	{"caller parameter without default", "{% macro m(a, caller) %}{% if caller %}{{ caller() }}{% endif %}{% endmacro %}{% call(caller) m(1) %}{{ caller }}{% endcall %}", nil, nil, []string{
		`t.md:1:15: parameter "caller" needs a default, such as caller=none: when defining macros or call blocks the special "caller" argument must be omitted or be given a default`,
		`t.md:1:87: parameter "caller" needs a default, such as caller=none: when defining macros or call blocks the special "caller" argument must be omitted or be given a default`}},
	{"caller parameter read in a nested macro", "{% macro m(caller) %}{% macro n() %}{{ caller }}{% endmacro %}{% endmacro %}", nil, nil, []string{
		`t.md:1:12: parameter "caller" needs a default, such as caller=none: when defining macros or call blocks the special "caller" argument must be omitted or be given a default`}},
	{"caller parameter not read", "{% macro m(caller) %}{% set caller = 1 %}{% for caller in [1] %}{% endfor %}{% endmacro %}{% call(caller) m(1) %}{% endcall %}", nil, nil, nil},
	{"caller parameter with a default", "{% macro m(caller=none) %}{{ caller() if caller }}{% endmacro %}", nil, nil, nil},
	{"break outside", "{% break %}{% continue %}", nil, nil, []string{"t.md:1:1: {% break %} outside a {% for %} loop", "t.md:1:12: {% continue %} outside a {% for %} loop"}},
	{"break in macro in loop", "{% for i in xs %}{% macro m() %}{% break %}{% endmacro %}{% endfor %}", []string{"xs"}, nil, []string{"t.md:1:33: {% break %} outside a {% for %} loop"}},
	{"autoescape", "{% autoescape true %}{% endautoescape %}{% autoescape false %}{% endautoescape %}", nil, nil, []string{"t.md:1:1: {% autoescape %} with anything but false is not supported: promptkit never HTML-escapes output; escape values in the builder"}},
	{"extends missing", "{% extends \"b.md\" %}{% block x %}{{ a }}{% endblock %}", nil, nil, []string{"t.md:1:1: extends \"b.md\": no such file (paths are relative to the template set's root)"}},
	{"extends block", "{% extends \"b.md\" %}{% block x %}{{ a }}{% endblock %}", nil, files{"b.md": "{% block x %}{% endblock %}"}, []string{"t.md:1:37: undeclared variable \"a\" (declare it in index.json)"}},
	{"extends twice", "{% extends \"b.md\" %}\n{% extends \"b.md\" %}", nil, files{"b.md": "b"}, []string{"t.md:2:1: a second {% extends %}: a template cannot be extended multiple times (its first {% extends %} is on line 1)"}},
	{"required block not defined", "{% extends \"b.md\" %}", nil, files{"b.md": "{% block x required %}{% endblock %}", "c.md": "{% extends \"b.md\" %}"}, []string{"b.md:1:1: required block \"x\" not found: no template of the chain defines it"}},
	{"required block defined", "{% extends \"c.md\" %}{% block x %}{{ super() }}{% endblock %}", nil, files{"b.md": "{% block x required %}{% endblock %}", "c.md": "{% extends \"b.md\" %}"}, nil},
	{"required block rendered", "{% block x required %} {# x #} {% endblock %}", nil, nil, []string{"t.md:1:1: required block \"x\" not found: no template of the chain defines it"}},
	{"include cycle", "{% include \"a.md\" %}", nil, files{"a.md": "{% include \"b.md\" %}", "b.md": "{% include \"a.md\" %}"}, []string{"b.md:1:1: include cycle: t.md -> a.md -> b.md -> a.md"}},
	{"include self", "{% include \"t.md\" %}", nil, files{"t.md": "x"}, []string{"t.md:1:1: include cycle: t.md -> t.md"}},
	{"missing include", "{% include \"nope.md\" %}", nil, nil, []string{"t.md:1:1: include \"nope.md\": no such file (paths are relative to the template set's root)"}},
	{"missing include ignored", "{% include \"nope.md\" ignore missing %}", nil, nil, nil},
	{"dynamic include", "{% include name %}", []string{"name"}, nil, []string{"t.md:1:12: include takes a literal path string, such as {% include \"parts/rules.md\" %}: dynamic paths cannot be checked at load"}},
	{"import dynamic", "{% import name as m %}{% from name import f %}", []string{"name"}, nil, []string{"t.md:1:11: import takes a literal path string, such as {% import \"parts/rules.md\" %}: dynamic paths cannot be checked at load", "t.md:1:31: import takes a literal path string, such as {% import \"parts/rules.md\" %}: dynamic paths cannot be checked at load"}},
	{"include syntax error", "{% include \"p.md\" %}", nil, files{"p.md": "a\n{{ x + }}"}, []string{"p.md:2:8: unexpected end of tag in expression"}},
	{"from import not exported", "{% from \"m.md\" import f, nope %}", nil, files{"m.md": "{% macro f() %}{% endmacro %}{% set _q = 1 %}{% set v = 1 %}"}, []string{"t.md:1:26: the imported template defines no \"nope\" (it exports: f, v)"}},
	{"import attribute not exported", "{% import \"m.md\" as m %}{{ m.f() }}{{ m.nope() }}", nil, files{"m.md": "{% macro f() %}{% endmacro %}"}, []string{"t.md:1:39: the imported template defines no \"nope\" (it exports: f)"}},
	{"chat text outside", "hello{% chat role=\"user\" %}x{% endchat %}", nil, nil, []string{"t.md:1:1: text outside a {% chat %} block: in a chat template every message is a chat block"}},
	{"chat whitespace outside ok", "  \n{% chat role=\"user\" %}x{% endchat %}\n", nil, nil, nil},
	{"chat output outside", "{{ x }}{% chat role=\"user\" %}x{% endchat %}", []string{"x"}, nil, []string{"t.md:1:1: output outside a {% chat %} block: in a chat template every message is a chat block"}},
	{"chat nested", "{% chat role=\"user\" %}{% chat role=\"user\" %}{% endchat %}{% endchat %}", nil, nil, []string{"t.md:1:23: chat blocks cannot nest: this {% chat %} is inside the one opened at t.md:1"}},
	{"chat role type", "{% chat role=1 %}{% endchat %}{% chat role=none %}{% endchat %}{% chat role=true %}{% endchat %}", nil, nil, []string{"t.md:1:14: chat role must be a string, not integer; allowed roles: system, user, assistant", "t.md:1:44: chat role must be a string, not None; allowed roles: system, user, assistant", "t.md:1:77: chat role must be a string, not boolean; allowed roles: system, user, assistant"}},
	{"chat role unknown", "{% chat role=\"tool\" %}{% endchat %}", nil, nil, []string{"t.md:1:14: unknown chat role \"tool\"; allowed roles: system, user, assistant"}},
	{"chat role from a value", "{% chat role=r %}{% endchat %}", []string{"r"}, nil, []string{`t.md:1:14: the chat role r is not a literal: a value could make it any role, "system" too; list the roles it may take: {% chat role=r allow=["user", "assistant"] %}`}},
	{"chat role from a value, allowed roles", "{% chat role=r allow=[\"user\", \"assistant\"] %}{% endchat %}", []string{"r"}, nil, nil},
	{"chat allow of a literal role", "{% chat role=\"user\" allow=[\"user\"] %}{% endchat %}", nil, nil, []string{"t.md:1:21: allow= restricts a role that is not a literal; a literal role needs none"}},
	{"chat allow of an unknown role", "{% chat role=r allow=[\"user\", \"tool\"] %}{% endchat %}", []string{"r"}, nil, []string{`t.md:1:16: unknown chat role "tool"; allowed roles: system, user, assistant`}},
	{"image outside chat", "{{ x | image }}", []string{"x"}, nil, []string{"t.md:1:1: the image filter is allowed only inside a {% chat %} block: {{ x | image }} makes an image part of a chat message"}},
	{"image not alone", "{% chat role=\"user\" %}{{ (x | image) ~ \"a\" }}{% endchat %}", []string{"x"}, nil, []string{"t.md:1:27: the image filter must stand alone in an output inside a {% chat %} block: {{ x | image }}"}},
	{"image with args", "{% chat role=\"user\" %}{{ x | image(1) }}{% endchat %}", []string{"x"}, nil, []string{"t.md:1:26: the image filter takes no arguments: {{ x | image }}"}},
	{"image in macro", "{% macro m() %}{{ x | image }}{% endmacro %}{% chat role=\"user\" %}{{ m() }}{% endchat %}", []string{"x"}, nil, []string{"t.md:1:16: the image filter is allowed only inside a {% chat %} block: {{ x | image }} makes an image part of a chat message"}},
	{"image in chat ok", "{% chat role=\"user\" %}{{ x | image }}{% endchat %}", []string{"x"}, nil, nil},
	{"image in include in chat", "{% chat role=\"user\" %}{% include \"p.md\" %}{% endchat %}", []string{"x"}, files{"p.md": "{{ x | image }}"}, nil},
	{"text in include outside chat", "{% chat role=\"user\" %}x{% endchat %}{% include \"p.md\" %}", nil, files{"p.md": "hi"}, []string{"p.md:1:1: text outside a {% chat %} block: in a chat template every message is a chat block"}},
	{"non-chat template text", "hello {{ x }}", []string{"x"}, nil, nil},
	{"imported module reads its own names", "{% import \"m.md\" as m %}{{ m.f() }}", nil, files{"m.md": "{% set v = 1 %}{% macro f() %}{{ v }}{{ g() }}{% endmacro %}{% macro g() %}{% endmacro %}"}, nil},
	{"import binds only in its frame", "{% for i in xs %}{% import \"m.md\" as m %}{% endfor %}{{ m }}", []string{"xs"}, files{"m.md": ""}, []string{"t.md:1:57: undeclared variable \"m\" (declare it in index.json)"}},
	{"macro defaults read the outer frame", "{% macro m(a=b, c=a) %}{% endmacro %}", nil, nil, []string{"t.md:1:14: undeclared variable \"b\" (declare it in index.json)"}},
	{"call block parameters", "{% macro m() %}{{ caller(1) }}{% endmacro %}{% call(v, w=z) m() %}{{ v }}{{ w }}{% endcall %}{{ v }}", nil, nil, []string{"t.md:1:97: undeclared variable \"v\" (declare it in index.json)", "t.md:1:58: undeclared variable \"z\" (declare it in index.json)"}},
	{"set block filters checked", "{% set s | shout %}x{% endset %}{% filter upper(1) %}y{% endfilter %}", nil, nil, []string{"t.md:1:12: filter \"shout\" is not supported; supported filters: default, image, join, length, replace, upper", "t.md:1:43: filter upper takes no arguments"}},
	{"namespace attribute assignment reads ns", "{% set ns.x = 1 %}", nil, nil, []string{"t.md:1:8: undeclared variable \"ns\" (declare it in index.json)"}},
	{"tuple assignment", "{% set a, (b, c) = 1, (2, 3) %}{{ a }}{{ b }}{{ c }}", nil, nil, nil},
	{"loop cycle is an attribute", "{% for i in xs %}{{ loop.cycle(\"a\", \"b\") }}{{ loop.cycl(\"a\") }}{% endfor %}", []string{"xs"}, nil, []string{"t.md:1:52: loop has no attribute \"cycl\"; did you mean \"cycle\"?"}},
	{"nested loops loop is the inner", "{% for i in xs %}{% for j in i %}{{ loop.index }}{% endfor %}{{ loop.first }}{% endfor %}", []string{"xs"}, nil, nil},
	{"same undeclared name twice", "{{ a }}{{ a }}", nil, nil, []string{"t.md:1:4: undeclared variable \"a\" (declare it in index.json)", "t.md:1:11: undeclared variable \"a\" (declare it in index.json)"}},
	{"undeclared in a macro body reported once", "{% macro m() %}{{ a }}{% endmacro %}{{ m() }}{{ m() }}", nil, nil, []string{"t.md:1:19: undeclared variable \"a\" (declare it in index.json)"}},
	{"every problem is reported", "{{ a | shout }}{{ b is odd }}{% break %}", nil, nil, []string{"t.md:1:4: undeclared variable \"a\" (declare it in index.json)", "t.md:1:8: filter \"shout\" is not supported; supported filters: default, image, join, length, replace, upper", "t.md:1:19: undeclared variable \"b\" (declare it in index.json)", "t.md:1:24: test \"odd\" is not supported; supported tests: defined, divisibleby, none, sameas", "t.md:1:30: {% break %} outside a {% for %} loop"}},
	{"macro default sees parameters", "{% macro m(a=1, c=a) %}{% endmacro %}", nil, nil, nil},
	{"macro default sees later names", "{% macro m(c=later) %}{% endmacro %}{% set later = 3 %}", nil, nil, nil},
	{"macro default undeclared", "{% macro m(c=nope) %}{% endmacro %}", nil, nil, []string{"t.md:1:14: undeclared variable \"nope\" (declare it in index.json)"}},
	{"call block default sees parameters", "{% macro m() %}{% endmacro %}{% call(v, w=v) m() %}{% endcall %}", nil, nil, nil},
	{"call block default undeclared", "{% macro m() %}{% endmacro %}{% call(v, w=z) m() %}{% endcall %}", nil, nil, []string{"t.md:1:43: undeclared variable \"z\" (declare it in index.json)"}},
}

func TestCheck(t *testing.T) {
	for _, tt := range checkTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := check(tt.src, tt.declared, tt.files, nil)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			var list ErrorList
			require.ErrorAs(t, err, &list)
			assert.Equal(t, tt.want, strings.Split(err.Error(), "\n"))
		})
	}
}

// TestCheckLoadProblems covers how includes and imports fail: depth and
// size limits, no loader, a loader's own errors, sandbox refusals.
func TestCheckLoadProblems(t *testing.T) {
	chain := files{"a.md": `{% include "b.md" %}`, "b.md": `{% include "c.md" %}`, "c.md": "deep"}
	tests := []struct {
		name  string
		src   string
		files files
		tweak func(*Config)
		want  string
		kind  Kind
	}{
		{"include depth", `{% include "a.md" %}`, chain, func(c *Config) { c.MaxIncludeDepth = 2 },
			"b.md:1:1: includes nested deeper than 2", Limit},
		{"include depth within the limit", `{% include "a.md" %}`, chain, func(c *Config) { c.MaxIncludeDepth = 3 }, "", 0},
		{"import depth", `{% import "a.md" as m %}`, files{"a.md": `{% import "b.md" as n %}`, "b.md": ""},
			func(c *Config) { c.MaxIncludeDepth = 1 }, "a.md:1:1: imports nested deeper than 1", Limit},
		// 50 bytes of t.md, 8 for the first include, 8 more for the second.
		{"inlined size", "0123456789{% include \"a.md\" %}{% include \"a.md\" %}", files{"a.md": strings.Repeat("x", 8)},
			func(c *Config) { c.MaxInlined = 60 },
			"t.md:1:11: with its includes expanded the template would exceed 60 bytes of source (t.md -> a.md)", Limit},
		{"inlined size of an import", `{% import "m.md" as m %}`, files{"m.md": strings.Repeat("x", 50)},
			func(c *Config) { c.MaxInlined = 60 },
			"t.md:1:1: with its imports expanded the template would exceed 60 bytes of source (t.md -> m.md)", Limit},
		{"no loader", `x{% include "a.md" %}`, nil, func(c *Config) { c.Load = nil }, "t.md:1:2: include: no files to read from", Include},
		{"loader error", `{% import "a.md" as m %}`, nil,
			func(c *Config) { c.Load = func(string) (*Tree, error) { return nil, errors.New("disk on fire") } },
			`t.md:1:1: import "a.md": disk on fire (paths are relative to the template set's root)`, Include},
		{"sandbox", `{% include "../x.md" %}`, nil,
			func(c *Config) {
				c.Load = func(string) (*Tree, error) { return nil, &LoadError{Kind: Sandbox, Msg: "outside the template root"} }
			},
			`t.md:1:1: include "../x.md": outside the template root`, Sandbox},
		{"sandbox even when ignoring missing files", `{% include "../x.md" ignore missing %}`, nil,
			func(c *Config) {
				c.Load = func(string) (*Tree, error) { return nil, &LoadError{Kind: Sandbox, Msg: "outside the template root"} }
			},
			`t.md:1:1: include "../x.md": outside the template root`, Sandbox},
		{"path is cleaned", `{% include "./parts/../a.md" %}`, files{"a.md": "{{ nope }}"}, nil,
			`a.md:1:4: undeclared variable "nope" (declare it in index.json)`, Undeclared},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := check(tt.src, nil, tt.files, tt.tweak)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
			var list ErrorList
			require.ErrorAs(t, err, &list)
			assert.Equal(t, tt.kind, list[0].Kind)
		})
	}
}

// TestCheckLoadsFreshTrees checks that every include is loaded and checked
// on its own (Config.Load is called per tag), with its own frame.
func TestCheckLoadsFreshTrees(t *testing.T) {
	fs := files{"p.md": "{{ v }}"}
	var calls []string
	prog, err := check(`{% for v in xs %}{% include "p.md" %}{% endfor %}{% with v = 1 %}{% include "p.md" %}{% endwith %}`,
		[]string{"xs"}, fs, func(c *Config) {
			c.Load = func(p string) (*Tree, error) { calls = append(calls, p); return fs.load(p) }
		})
	require.NoError(t, err)
	assert.Equal(t, []string{"p.md", "p.md"}, calls)
	var trees []*Tree
	for n, tr := range prog.Trees {
		_, ok := n.(*IncludeNode)
		require.True(t, ok)
		trees = append(trees, tr)
	}
	require.Len(t, trees, 2)
	assert.NotSame(t, trees[0], trees[1])
	assert.Equal(t, len(`{% for v in xs %}{% include "p.md" %}{% endfor %}{% with v = 1 %}{% include "p.md" %}{% endwith %}`)+2*len("{{ v }}"), prog.Inlined)
}

// TestCheckErrorFields checks what a problem carries besides its message.
func TestCheckErrorFields(t *testing.T) {
	_, err := check("\n  {{ usr | shout }}", []string{"user"}, nil, nil)
	var list ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 2)
	assert.Equal(t, &Error{File: "t.md", Pos: 6, Line: 2, Col: 6, Kind: Undeclared, Name: "usr",
		Msg: `undeclared variable "usr" (declare it in index.json); did you mean "user"?`}, list[0])
	assert.Equal(t, Unsupported, list[1].Kind)
	assert.Equal(t, "shout", list[1].Name)
}

// TestCheckSupportedListsFollowTheCatalog checks that the lists in the
// messages are the catalog's, so they cannot drift from the runtime.
func TestCheckSupportedListsFollowTheCatalog(t *testing.T) {
	tr, err := Parse("t.md", "{{ x | shout }}{{ x is odd }}{{ x.shout() }}", Options{})
	require.NoError(t, err)
	cat := Catalog{
		Filters: map[string]Spec{"zeta": {}, "alpha": {}, "refused": {Refused: "no"}},
		Tests:   map[string]Spec{"even": {}},
		Methods: map[string]Spec{"lower": {}, "split": {}},
	}
	_, err = Check(tr, &Config{Catalog: cat, Declared: []string{"x"}})
	assert.EqualError(t, err, "t.md:1:8: filter \"shout\" is not supported; supported filters: alpha, zeta\n"+
		"t.md:1:24: test \"odd\" is not supported; supported tests: even\n"+
		"t.md:1:35: method shout(…) is not supported; supported methods: lower, split")
}

func TestProgramUsed(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		declared []string
		files    files
		used     []string
	}{
		{"read", "{{ a }}{% if b %}{% endif %}", []string{"a", "b", "c"}, nil, []string{"a", "b"}},
		{"read in every branch", "{% if a %}{% elif b %}{{ c }}{% else %}{{ d }}{% endif %}", []string{"a", "b", "c", "d", "e"}, nil, []string{"a", "b", "c", "d"}},
		{"read in a loop and a macro", "{% for i in xs %}{{ y }}{% endfor %}{% macro m() %}{{ z }}{% endmacro %}", []string{"xs", "y", "z"}, nil, []string{"xs", "y", "z"}},
		{"shadowed by with is not a read", "{% with a = 1 %}{{ a }}{% endwith %}", []string{"a"}, nil, nil},
		{"read before set", "{% set a = a + 1 %}{{ a }}", []string{"a"}, nil, []string{"a"}},
		{"shadowed by a loop variable", "{% for a in xs %}{{ a }}{% endfor %}", []string{"a", "xs"}, nil, []string{"xs"}},
		{"shadowed by a parameter", "{% macro m(a) %}{{ a }}{% endmacro %}", []string{"a"}, nil, nil},
		{"read in an include", `{% include "p.md" %}`, []string{"a", "b"}, files{"p.md": "{{ b }}"}, []string{"b"}},
		{"read in an import with context", `{% import "m.md" as m with context %}`, []string{"a"}, files{"m.md": "{{ a }}"}, []string{"a"}},
		{"read in a with value", "{% with w = a %}{% endwith %}", []string{"a"}, nil, []string{"a"}},
		{"set before any read is not a read", "{% set a = 1 %}{{ a }}{% for i in xs %}{{ a }}{% endfor %}", []string{"a", "xs"}, nil, []string{"xs"}},
		{"set block before any read", "{% set a %}x{% endset %}{{ a }}", []string{"a"}, nil, nil},
		{"tuple set before any read", "{% set a, b = 1, 2 %}{{ a }}{{ b }}", []string{"a", "b"}, nil, nil},
		{"read after a set in an include", `{% set a = 1 %}{% include "p.md" %}`, []string{"a"}, files{"p.md": "{{ a }}"}, nil},
		// A set inside a tag may not run: the passed value may be read.
		{"set in a branch", "{% if c %}{% set a = 1 %}{% endif %}{{ a }}", []string{"a", "c"}, nil, []string{"a", "c"}},
		{"set in a loop", "{% for i in xs %}{% set a = i %}{% endfor %}{{ a }}", []string{"a", "xs"}, nil, []string{"a", "xs"}},
		// A macro's body is checked when its frame is complete, whatever
		// the order: its reads count.
		{"read in a macro defined before the set", "{% macro m() %}{{ a }}{% endmacro %}{{ m() }}{% set a = 1 %}", []string{"a"}, nil, []string{"a"}},
		{"read in a macro defined after the set", "{% set a = 1 %}{% macro m() %}{{ a }}{% endmacro %}{{ m() }}", []string{"a"}, nil, []string{"a"}},
		{"read before a later set", "{{ a }}{% set a = 1 %}{{ a }}", []string{"a"}, nil, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := check(tt.src, tt.declared, tt.files, nil)
			require.NoError(t, err)
			var used []string
			for v, ok := range prog.Used {
				if ok {
					used = append(used, v)
				}
			}
			slices.Sort(used)
			assert.Equal(t, tt.used, used)
		})
	}
}

// TestProgramUsedDespiteProblems checks that Used is filled even when the
// template has problems (the loader reports unused variables anyway).
func TestProgramUsedDespiteProblems(t *testing.T) {
	prog, err := check("{{ a }}{{ nope }}", []string{"a", "b"}, nil, nil)
	require.Error(t, err)
	require.NotNil(t, prog)
	assert.Equal(t, map[string]bool{"a": true}, prog.Used)
}

func TestProgramChat(t *testing.T) {
	prog, err := check(`{% chat role="user" %}x{% endchat %}`, nil, nil, nil)
	require.NoError(t, err)
	assert.True(t, prog.Chat)
	prog, err = check("x", nil, nil, nil)
	require.NoError(t, err)
	assert.False(t, prog.Chat)
	// A chat block in an included file makes a chat template too.
	prog, err = check(`{% include "p.md" %}`, nil, files{"p.md": `{% chat role="system" %}s{% endchat %}`}, nil)
	require.NoError(t, err)
	assert.True(t, prog.Chat)
}

// TestCheckResolvesEveryName checks that every name read or assigned gets
// a binding in Refs, and that the frames are recorded.
func TestCheckResolvesEveryName(t *testing.T) {
	prog, err := check(everyCheckedKind, []string{"xs", "d"}, files{"p.md": "{{ xs }}", "m.md": "{% macro f() %}{% endmacro %}"}, nil)
	require.NoError(t, err)
	InspectAll(prog.Tree.Root, func(n Node) bool {
		switch n := n.(type) {
		case *NameExpr:
			assert.NotNil(t, prog.Refs[n], "name %s at %d has no binding", n.Name, n.Pos)
		case *ForNode, *WithNode, *MacroNode, *CallBlockNode, *IncludeNode, *ImportNode:
			assert.NotNil(t, prog.Frame[n], "%T has no frame", n)
		}
		return true
	})
	for n, tr := range prog.Trees {
		InspectAll(tr.Root, func(c Node) bool {
			if x, ok := c.(*NameExpr); ok {
				assert.NotNil(t, prog.Refs[x], "name %s in %s (from %T) has no binding", x.Name, tr.Source.Name, n)
			}
			return true
		})
	}
}

const everyCheckedKind = `{% for k, v in d.items() if k recursive %}{{ loop.index }}{{ loop(v) }}{% else %}{% endfor %}` +
	`{% set s = 1 %}{% set ns = namespace(n=0) %}{% set ns.n = s %}{% set blk | upper %}{{ s }}{% endset %}` +
	`{% with w = s %}{{ w }}{% endwith %}{% include "p.md" %}{% import "m.md" as m %}{% from "m.md" import f as g %}` +
	`{% macro mac(p, q=p) %}{{ caller() }}{{ varargs }}{{ kwargs }}{{ q }}{% endmacro %}{% call(c) mac(1) %}{{ c }}{% endcall %}` +
	`{{ m.f() }}{{ g() }}{{ range(3) | join(", ") }}{{ xs is defined }}`

// TestCheckMacroDefaultsInTheMacroScope: as in Jinja, a parameter's default
// is evaluated when the macro is called, in its scope, so the a of c=a is
// the parameter, not the a set before the macro.
func TestCheckMacroDefaultsInTheMacroScope(t *testing.T) {
	tr, err := Parse("t.md", "{% set a = 9 %}{% macro m(a=1, c=a) %}{{ c }}{% endmacro %}", Options{})
	require.NoError(t, err)
	prog, err := Check(tr, &Config{})
	require.NoError(t, err)
	m := tr.Root[1].(*MacroNode)
	ref := prog.Refs[m.Params[1].Default.(*NameExpr)]
	require.NotNil(t, ref)
	assert.Same(t, prog.Frame[m], ref.Frame, "the default's a is the parameter")
}
