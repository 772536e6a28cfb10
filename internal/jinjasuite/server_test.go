package jinjasuite_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jinjasuite"
)

// render asks Handle to render src as "<string>" among files, with the
// tagged values of ctx (JSON text by name).
func render(src string, files map[string]string, ctx map[string]string, opt jinjasuite.Options) jinjasuite.Response {
	all := map[string]string{"<string>": src}
	for k, v := range files {
		all[k] = v
	}
	req := jinjasuite.Request{Op: "render", Files: all, Entry: "<string>", Options: opt, Context: map[string]json.RawMessage{}}
	for k, v := range ctx {
		req.Context[k] = json.RawMessage(v)
	}
	return jinjasuite.Handle(req)
}

func TestHandle(t *testing.T) {
	files := map[string]string{
		"layout.html": "<{% block body %}base{% endblock %}>",
		"macros.html": "{% macro hi(n) %}hi {{ n }}{% endmacro %}",
		"part.html":   "[{{ name }}]",
	}
	for _, tc := range []struct {
		name, src string
		ctx       map[string]string
		opt       jinjasuite.Options
		out       string
		kind      string // the error's kind, when it fails
		msg       string // a part of its message
	}{
		{name: "variables", src: "{{ name|upper }} {{ n + 1 }}", ctx: map[string]string{"name": `"ann"`, "n": "41"}, out: "ANN 42"},
		{name: "a name not passed is undefined", src: "{{ missing|default('d') }}|{{ missing is defined }}", out: "d|False"},
		{name: "a passed name the template does not read", src: "x", ctx: map[string]string{"unused": "1"}, out: "x"},
		{name: "include", src: "{% include 'part.html' %}", ctx: map[string]string{"name": `"x"`}, out: "[x]"},
		{name: "extends", src: "{% extends 'layout.html' %}{% block body %}{{ super() }}+{% endblock %}", out: "<base+>"},
		{name: "import", src: "{% import 'macros.html' as m %}{{ m.hi(1) }}", out: "hi 1"},
		{name: "trim_blocks", src: "{% if true %}\nx{% endif %}", opt: jinjasuite.Options{TrimBlocks: true}, out: "x"},
		{name: "lstrip_blocks", src: "  {% if true %}x{% endif %}", opt: jinjasuite.Options{LStripBlocks: true}, out: "x"},
		{name: "keep_trailing_newline", src: "x\n", opt: jinjasuite.Options{KeepTrailingNewline: true}, out: "x\n"},
		{name: "tuple", src: "{{ t }} {{ t[0] }}", ctx: map[string]string{"t": `{"$tuple": [1, "a"]}`}, out: "(1, 'a') 1"},
		{name: "dict in order", src: "{{ d }} {{ d[1] }}", ctx: map[string]string{"d": `{"$dict": [["b", 1], [1, "one"]]}`}, out: "{'b': 1, 1: 'one'} one"},
		{name: "named tuple", src: "{{ u.name }} {{ u[1] }} {{ u|length }}", ctx: map[string]string{"u": `{"$namedtuple": [["name", "ann"], ["age", 3]]}`}, out: "ann 3 2"},
		{name: "object", src: "{{ o.name }} {{ o['name'] }} {{ o is mapping }} {{ o.nope is defined }}", ctx: map[string]string{"o": `{"$object": [["name", "ann"]]}`}, out: "ann ann False False"},
		{name: "object printed by __str__", src: "{{ o }} {{ [o, o]|join(',') }} {{ o.v }}", ctx: map[string]string{"o": `{"$object": [["v", 3]], "$str": "three"}`}, out: "three three,three 3"},
		{name: "markup", src: "{{ m|e }} {{ s|e }}", ctx: map[string]string{"m": `{"$markup": "<b>"}`, "s": `"<b>"`}, out: "<b> &lt;b&gt;"},
		{name: "floats", src: "{{ f }} {{ i }} {{ g }}", ctx: map[string]string{"f": "1.0", "i": `{"$float": "-inf"}`, "g": "2"}, out: "1.0 -inf 2"},
		{name: "an integer beyond 64 bits", src: "{{ big }} {{ big + 1 }}", ctx: map[string]string{"big": `{"$bigint": "12345678901234567890"}`}, out: "12345678901234567890 12345678901234567891"},
		{name: "an integer beyond 64 bits in a list", src: "{{ xs|length }} {{ xs[1] }}", ctx: map[string]string{"xs": `[1, {"$bigint": "-99999999999999999999"}]`}, out: "2 -99999999999999999999"},
		{name: "Jinja2's default Undefined: lenient", src: "[{{ missing }}]{% if missing %}y{% endif %}", out: "[]"},
		{name: "StrictUndefined: strict", src: "[{{ missing }}]", opt: jinjasuite.Options{Undefined: "strict"}, kind: "UndefinedError", msg: "missing is undefined"},
		{name: "undefined", src: "{{ missing.attr.deeper }}", kind: "UndefinedError", msg: "undefined"},
		{name: "unknown filter", src: "{{ 1|nofilter }}", kind: "TemplateAssertionError", msg: `filter "nofilter" is not supported`},
		{name: "syntax", src: "{% for %}", kind: "TemplateSyntaxError", msg: "expected a name to assign to"},
		{name: "missing include", src: "{% include 'nope.html' %}", kind: "TemplateNotFound", msg: "no such file"},
		{name: "not iterable", src: "{% for x in none %}{% endfor %}", kind: "TypeError", msg: "not iterable"},
		{name: "extends twice", src: "{% extends 'layout.html' %}{% extends 'layout.html' %}", kind: "TemplateRuntimeError", msg: "extended multiple times"},
		{name: "an unsendable value read", src: "{{ f() }}", ctx: map[string]string{"f": `{"$na": "the variable f is a Python callable"}`}, kind: "NotApplicable", msg: "Python callable"},
		{name: "an unsendable value not read", src: "ok", ctx: map[string]string{"f": `{"$na": "the variable f is a Python callable"}`}, out: "ok"},
		{name: "an unsendable value shadows a global", src: "{{ namespace() }}", ctx: map[string]string{"namespace": `{"$na": "the variable namespace is a Python type"}`}, kind: "NotApplicable", msg: "Python type"},
		{name: "an unsendable value read where the set fails", src: "{{ f.m() }}{% for %}", ctx: map[string]string{"f": `{"$na": "an object with methods"}`}, kind: "TemplateSyntaxError"},
		{name: "an unsendable value read in a template promptkit refuses", src: "{{ f.m() }}", ctx: map[string]string{"f": `{"$na": "an object with methods"}`}, kind: "NotApplicable", msg: "an object with methods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := render(tc.src, files, tc.ctx, tc.opt)
			if tc.kind == "" {
				require.Nil(t, resp.Error)
				require.NotNil(t, resp.Output)
				assert.Equal(t, tc.out, *resp.Output)
				return
			}
			require.NotNil(t, resp.Error, "rendered %v", resp.Output)
			assert.Equal(t, tc.kind, resp.Error.Kind, resp.Error.Message)
			assert.Contains(t, resp.Error.Message, tc.msg)
		})
	}
}

// TestCompile: compile says a template that does not parse is refused as
// it stands (Parse), and names what is missing.
func TestCompile(t *testing.T) {
	compile := func(src string) jinjasuite.Response {
		return jinjasuite.Handle(jinjasuite.Request{Op: "compile", Entry: "t.html", Files: map[string]string{"t.html": src}})
	}
	assert.Equal(t, jinjasuite.Response{}, compile("{{ x }}"))
	r := compile("a\n{% for x in xs %}")
	require.NotNil(t, r.Error)
	assert.Equal(t, "TemplateSyntaxError", r.Error.Kind)
	assert.True(t, r.Error.Parse)
	assert.Equal(t, 2, r.Error.Line)
	r = compile("{% include 'nope.html' %}")
	require.NotNil(t, r.Error)
	assert.Equal(t, jinjasuite.Failure{Kind: "TemplateNotFound", Name: "nope.html", Line: 1,
		Message: `include "nope.html": no such file (paths are relative to the template set's root)`}, *r.Error)
	r = compile("{{ x|nofilter }}")
	require.NotNil(t, r.Error)
	assert.False(t, r.Error.Parse, "a check, not a parse")
}

// TestServe: one process answers request after request, a line each.
func TestServe(t *testing.T) {
	var in bytes.Buffer
	for _, src := range []string{"{{ 1 + 1 }}", "{{ x }}", "{% if %}"} {
		line, err := json.Marshal(jinjasuite.Request{Op: "render", Entry: "t", Files: map[string]string{"t": src}, Context: map[string]json.RawMessage{"x": json.RawMessage(`"y"`)}})
		require.NoError(t, err)
		in.Write(append(line, '\n'))
	}
	in.WriteString("not json\n")
	var out bytes.Buffer
	require.NoError(t, jinjasuite.Serve(&in, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4)
	assert.JSONEq(t, `{"output": "2"}`, lines[0])
	assert.JSONEq(t, `{"output": "y"}`, lines[1])
	assert.Contains(t, lines[2], `"kind":"TemplateSyntaxError"`)
	assert.Contains(t, lines[3], `"kind":"HarnessError"`)
}
