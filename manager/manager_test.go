package manager_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// set builds an in-memory template set from an index and files.
func set(index string, files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"index.json": {Data: []byte(index)}}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return fsys
}

const faqIndex = `{"version": 1, "templates": {
  "faq": {"path": "faq.md", "description": "常见问题", "variables": ["question", {"name": "tone", "required": false, "default": "正式"}, {"name": "nick", "required": false}]}
}}`

func TestRenderStrictVariables(t *testing.T) {
	m, err := manager.New(set(faqIndex, map[string]string{
		"faq.md": "问题：{{ question }}；语气：{{ tone }}{% if nick is defined %}；昵称：{{ nick }}{% endif %}{{ nick | default('') }}",
	}))
	require.NoError(t, err)

	tests := []struct {
		name    string
		tmpl    string
		vars    map[string]any
		want    string
		wantErr error
		inMsg   []string
	}{
		{"all passed", "faq", map[string]any{"question": "怎么退货", "tone": "轻松", "nick": "小王"}, "问题：怎么退货；语气：轻松；昵称：小王小王", nil, nil},
		{"default applies", "faq", map[string]any{"question": "q"}, "问题：q；语气：正式", nil, nil},
		{"nil is None", "faq", map[string]any{"question": nil}, "问题：None；语气：正式", nil, nil},
		{"unknown template", "nope", nil, "", manager.ErrUnknownTemplate, []string{`"nope"`, "faq"}},
		{"missing", "faq", map[string]any{}, "", manager.ErrMissingVariables, []string{"question", `"faq"`, "faq.md"}},
		{"missing before extra", "faq", map[string]any{"bogus": 1}, "", manager.ErrMissingVariables, []string{"question"}},
		{"extra sorted", "faq", map[string]any{"question": "q", "zeta": 1, "alpha": 2}, "", manager.ErrExtraVariables, []string{"alpha, zeta"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Render(tc.tmpl, tc.vars)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				for _, s := range tc.inMsg {
					assert.Contains(t, err.Error(), s)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestRenderErrorFields(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["b","a","c"]}}}`, map[string]string{"t.md": "{{a}}{{b}}{{c}}"}))
	require.NoError(t, err)
	_, err = m.Render("t", map[string]any{"b": 1})
	var e *manager.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "t", e.Template)
	assert.Equal(t, "t.md", e.Path)
	assert.Equal(t, []string{"a", "c"}, e.Variables)
	assert.Equal(t, `t.md: template "t": missing variables: a, c`, err.Error())
}

// Variables are found by name alike in a template that declares a few
// (looked up by a scan) and one that declares many (by an index): the
// extra variables of a render are named, and a declared one is known.
func TestDeclaredVariablesFewAndMany(t *testing.T) {
	for _, n := range []int{2, 12} {
		var names, src []string
		vars := map[string]any{}
		for i := range n {
			name := fmt.Sprintf("v%02d", i)
			names = append(names, `"`+name+`"`)
			src = append(src, "{{ "+name+" }}")
			vars[name] = i
		}
		index := `{"version":1,"templates":{"t":{"path":"t.md","variables":[` + strings.Join(names, ",") + `]}}}`
		m, err := manager.New(set(index, map[string]string{"t.md": strings.Join(src, ",")}))
		require.NoError(t, err, n)
		_, err = m.Render("t", vars)
		require.NoError(t, err, n)
		vars["zz"], vars["aa"] = 1, 2
		_, err = m.Render("t", vars)
		require.ErrorIs(t, err, manager.ErrExtraVariables, n)
		var e *manager.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, []string{"aa", "zz"}, e.Variables, n)
		_, ok := m.TextForm("t", fmt.Sprintf("v%02d", n-1))
		assert.True(t, ok, n)
		_, ok = m.TextForm("t", "zz")
		assert.False(t, ok, n)
	}
}

func TestRenderDoesNotModifyVars(t *testing.T) {
	m, err := manager.New(set(faqIndex, map[string]string{"faq.md": "{{ question }}{{ tone }}"}))
	require.NoError(t, err)
	vars := map[string]any{"question": nil}
	_, err = m.Render("faq", vars)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"question": nil}, vars)
}

func TestUndeclaredVariableEveryBranch(t *testing.T) {
	src := "第一行\n{% if flag %}{{ secret }}{% elif other %}{% else %}{% for x in xs %}{{ x.name }}{{ hidden }}{% endfor %}{% endif %}\n{{ loop_outside }}"
	_, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"p/t.md","variables":["flag","xs"]}}}`, map[string]string{"p/t.md": src}))
	require.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	ps := manager.Problems(err)
	var lines []string
	for _, p := range ps {
		lines = append(lines, p.Error())
	}
	assert.Equal(t, []string{
		`p/t.md:2:17: template "t": undeclared variable "secret" (declare it in index.json under "t")`,
		`p/t.md:2:34: template "t": undeclared variable "other" (declare it in index.json under "t")`,
		`p/t.md:2:84: template "t": undeclared variable "hidden" (declare it in index.json under "t")`,
		`p/t.md:3:4: template "t": undeclared variable "loop_outside" (declare it in index.json under "t")`,
	}, lines)
	var e *manager.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, []string{"secret"}, e.Variables)
}

func TestLocalsAreNotVariables(t *testing.T) {
	src := `{% set sep = "、" %}{% for k, v in m.items() %}{{ k }}={{ v }}{{ sep }}{% endfor %}{% with n = 2 %}{{ n }}{% endwith %}{% for x in xs %}{{ loop.index }}{{ x }}{% else %}空{% endfor %}`
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["m","xs"]}}}`, map[string]string{"t.md": src}))
	require.NoError(t, err)
	got, err := m.Render("t", map[string]any{"m": map[string]any{"b": 2, "a": 1}, "xs": []string{}})
	require.NoError(t, err)
	assert.Equal(t, "a=1、b=2、2空", got)
}

func TestUnusedVariablesReported(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["used","spare",{"name":"opt","required":false}]}}}`, map[string]string{"t.md": "{{ used }}"}))
	require.NoError(t, err, "an unused variable does not stop the set from loading")
	assert.Equal(t, map[string][]string{"t": {"spare", "opt"}}, m.Unused())
	assert.Equal(t, []manager.UnusedDeclaration{{Template: "t", Path: "t.md", Variables: []string{"spare", "opt"}}}, m.UnusedDeclarations())
	assert.Equal(t, `t.md: template "t": declared variables never used: spare, opt`, m.UnusedDeclarations()[0].String())

	// A set refused for another reason still tells of its unused declarations.
	_, err = manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["used","spare"]},"u":{"path":"u.md"}}}`,
		map[string]string{"t.md": "{{ used }}", "u.md": "{{ nope }}"}))
	le, ok := errors.AsType[*manager.LoadError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, []manager.UnusedDeclaration{{Template: "t", Path: "t.md", Variables: []string{"spare"}}}, le.Unused)
}

func TestLoadReportsEveryProblem(t *testing.T) {
	index := `{"version":1,"templates":{
	  "a":{"path":"a.md","variables":["x"]},
	  "b":{"path":"b.md","variables":[]},
	  "c":{"path":"missing.md"},
	  "d":{"path":"d.md","variables":[]}
	}}`
	_, err := manager.New(set(index, map[string]string{
		"a.md": "{{ x }}{{ y }}",
		"b.md": "line1\n{% if %}",
		"d.md": "{{ 1 | random }}",
	}))
	require.Error(t, err)
	var le *manager.LoadError
	require.ErrorAs(t, err, &le)
	require.Len(t, le.Problems, 4, err.Error())
	assert.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	assert.ErrorIs(t, err, manager.ErrTemplate)
	assert.ErrorIs(t, err, manager.ErrUnsupported)
	msg := err.Error()
	assert.Contains(t, msg, "a.md:1:11:")
	assert.Contains(t, msg, "b.md:2:7:")
	assert.Contains(t, msg, `missing.md: template "c": cannot read the template`)
	assert.Contains(t, msg, `d.md:1:8: template "d": filter "random" is not supported: it picks at random`)
}

func TestIndexValidation(t *testing.T) {
	tests := []struct {
		name  string
		index string
		kind  error
		msg   string
	}{
		{"bad json", "{\"version\":1,\n  ,}", manager.ErrIndex, "index.json:2:3: invalid JSON"},
		{"unknown top key", `{"version":1,"templates":{},"extra":1}`, manager.ErrIndex, `unknown key "extra"`},
		{"wrong version", `{"version":2,"templates":{}}`, manager.ErrIndex, "unsupported version 2"},
		{"unknown entry key", `{"version":1,"templates":{"t":{"path":"t.md","varz":[]}}}`, manager.ErrIndex, `template "t": invalid entry: unknown field "varz"`},
		{"unknown variable key", `{"version":1,"templates":{"t":{"path":"t.md","variables":[{"name":"a","requird":false}]}}}`, manager.ErrIndex, `unknown field "requird"`},
		{"entry key case matters", `{"version":1,"templates":{"t":{"Path":"t.md"}}}`, manager.ErrIndex, `unknown field "Path" (allowed: path, description, variables, undefined, model, tools, output, cache, budget)`},
		{"variable key case matters", `{"version":1,"templates":{"t":{"path":"t.md","variables":[{"Name":"a"}]}}}`, manager.ErrIndex, `unknown field "Name"`},
		{"duplicate variable", `{"version":1,"templates":{"t":{"path":"t.md","variables":["a","a"]}}}`, manager.ErrIndex, `variable "a" is declared twice`},
		{"bad variable name", `{"version":1,"templates":{"t":{"path":"t.md","variables":["1a"]}}}`, manager.ErrIndex, `invalid variable name "1a"`},
		{"reserved variable name", `{"version":1,"templates":{"t":{"path":"t.md","variables":["loop"]}}}`, manager.ErrIndex, `variable name "loop" is reserved`},
		{"required with default", `{"version":1,"templates":{"t":{"path":"t.md","variables":[{"name":"a","default":1}]}}}`, manager.ErrIndex, `has a default but is required`},
		{"empty path", `{"version":1,"templates":{"t":{"path":""}}}`, manager.ErrIndex, `template "t": missing or empty "path"`},
		{"absolute path", `{"version":1,"templates":{"t":{"path":"/etc/passwd"}}}`, manager.ErrSandbox, `template "t": path "/etc/passwd": absolute paths are not allowed`},
		{"dotdot path", `{"version":1,"templates":{"t":{"path":"templates/../../secret.md"}}}`, manager.ErrSandbox, `would leave the template root`},
		{"bad template name", `{"version":1,"templates":{"a b":{"path":"t.md"}}}`, manager.ErrIndex, `invalid template name`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manager.New(set(tc.index, map[string]string{"t.md": "x"}))
			require.ErrorIs(t, err, tc.kind)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestSandboxSymlinkOutsideRoot(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("TOP SECRET"), 0o644))
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "templates", "leak.md")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates", "inc.md"), []byte(`{% include "templates/leak.md" %}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.json"), []byte(`{"version":1,"templates":{
		"leak":{"path":"templates/leak.md"},
		"inc":{"path":"templates/inc.md"}}}`), 0o644))
	_, err := manager.Open(dir)
	require.ErrorIs(t, err, manager.ErrSandbox)
	assert.NotContains(t, err.Error(), "TOP SECRET")
	var le *manager.LoadError
	require.ErrorAs(t, err, &le)
	assert.Len(t, le.Problems, 2, err.Error())
}

func TestSandboxIncludes(t *testing.T) {
	tests := []struct {
		name, src string
		kind      error
		msg       string
	}{
		{"absolute", `{% include "/etc/passwd" %}`, manager.ErrSandbox, "absolute paths are not allowed"},
		{"dotdot", `{% include "../x.md" %}`, manager.ErrSandbox, "would leave the template root"},
		{"dynamic", `{% include name %}`, manager.ErrUnsupported, "literal path"},
		{"cycle", `{% include "a.md" %}`, manager.ErrTemplate, "include cycle: a.md -> b.md -> a.md"},
		{"ssi", `{% ssi "/etc/passwd" %}`, manager.ErrUnsupported, `tag "ssi" is not supported`},
		{"extends", `{% extends "b.md" %}`, manager.ErrTemplate, "include cycle: a.md -> b.md -> a.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manager.New(set(`{"version":1,"templates":{"a":{"path":"a.md"}}}`, map[string]string{
				"a.md": tc.src, "b.md": `{% include "a.md" %}`,
			}))
			if tc.name == "cycle" {
				_, err = manager.New(set(`{"version":1,"templates":{"a":{"path":"b.md"}}}`, map[string]string{
					"a.md": `{% include "b.md" %}`, "b.md": `{% include "a.md" %}`,
				}))
				require.ErrorIs(t, err, tc.kind)
				assert.Contains(t, err.Error(), "include cycle: b.md -> a.md -> b.md")
				return
			}
			require.ErrorIs(t, err, tc.kind)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestIncludeSharesVariablesAndHash(t *testing.T) {
	files := map[string]string{"main.md": `头{% include "parts/rule.md" %}尾`, "parts/rule.md": "规则：{{ rule }}"}
	index := `{"version":1,"templates":{"main":{"path":"main.md","variables":["rule"]}}}`
	m, err := manager.New(set(index, files))
	require.NoError(t, err)
	got, err := m.Render("main", map[string]any{"rule": "只用文档"})
	require.NoError(t, err)
	assert.Equal(t, "头规则：只用文档尾", got)
	h1 := m.Templates()[0].Hash

	files["parts/rule.md"] = "规则改了：{{ rule }}"
	m2, err := manager.New(set(index, files))
	require.NoError(t, err)
	assert.NotEqual(t, h1, m2.Templates()[0].Hash, "editing an included file changes the hash")

	_, err = manager.New(set(index, map[string]string{"main.md": files["main.md"], "parts/rule.md": "{{ other }}"}))
	require.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	assert.Contains(t, err.Error(), "parts/rule.md:1:4:", "the error points into the included file")
}

// A misspelled global function is an undeclared name, with the global
// it may mean.
func TestMisspelledGlobal(t *testing.T) {
	_, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": "{{ x }}{{ rnage(3) }}"}))
	require.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	assert.EqualError(t, err, `t.md:1:11: template "t": undeclared variable "rnage" (declare it in index.json under "t"); did you mean "range"?`)
}

func TestUnsupportedConstructsNameAlternative(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"{{ x|default:'a' }}", "write Jinja's default(arg)"},
		{"{% cycle 'a' 'b' %}", "loop.cycle('a', 'b') inside the loop"},
		{"{% for x in xs %}{{ loop.lenght }}{% endfor %}", `t.md:1:26: template "t": loop has no attribute "lenght"; did you mean "length"?`},
		{"{% for x in xs %}{{ loop.nope }}{% endfor %}", `loop has no attribute "nope"; it has: index, index0`},
		{"{{ x | wordwarp }}", `t.md:1:8: template "t": filter "wordwarp" is not supported; did you mean "wordwrap"?`},
		{"{{ x | nosuch }}", `filter "nosuch" is not supported; supported filters:`},
		{"{{ x is evn }}", `t.md:1:9: template "t": test "evn" is not supported; did you mean "even"?`},
		{"{{ x.uppr() }}", `t.md:1:6: template "t": method uppr(…) is not supported; did you mean "upper"?`},
		{"{{ x | random }}", "non-reproducible"},
		{"{{ x is callabel }}", `test "callabel" is not supported`},
		{"{{ lipsum() }}", `global "lipsum" is not supported: it writes random text`},
		{"{{ xs.append(1) }}", "templates cannot change the values they are given"},
		{"{% do xs.append(1) %}", `tag "do" is not supported`},
		{"{% autoescape true %}x{% endautoescape %}", "promptkit never HTML-escapes output"},
		{"{{ x | add(1) }}", `filter "add" is Django's, not Jinja's`},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			_, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["x","xs"]}}}`, map[string]string{"t.md": tc.src}))
			require.ErrorIs(t, err, manager.ErrUnsupported)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Contains(t, err.Error(), "t.md:1:")
		})
	}
}

func TestSyntaxErrorsPositioned(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"a\n{% if x %}", "t.md:2:1: template \"t\": {% if %} is never closed"},
		{"{{ x ", "unclosed tag"},
		{"{# never closed", "t.md:1:1: template \"t\": unclosed comment"},
		{"{% endfor %}", "unexpected {% endfor %}"},
		{"{{ 'abc }}", "unclosed string literal"},
		{"{{ x + }}", "unexpected end of tag"},
		{"{% for in xs %}{% endfor %}", `"in" cannot be a loop variable`},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			_, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["x","xs"]}}}`, map[string]string{"t.md": tc.src}))
			require.ErrorIs(t, err, manager.ErrTemplate)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestOutputNeverHTMLEscaped(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": `<a href="{{ x }}">{{ x|upper }}</a>{{ x ~ "&" }}`}))
	require.NoError(t, err)
	got, err := m.Render("t", map[string]any{"x": `<b>"&'`})
	require.NoError(t, err)
	assert.Equal(t, `<a href="<b>"&'"><B>"&'</a><b>"&'&`, got)
}

func TestValuesAreNeverTemplateCode(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": `[{{ x }}]`}))
	require.NoError(t, err)
	for _, v := range []string{"{{ x }}", "{% ssi \"/etc/passwd\" %}", "{% promptkit_root %}", "{{ _pkf.None }}", "{# c #}"} {
		got, err := m.Render("t", map[string]any{"x": v})
		require.NoError(t, err)
		assert.Equal(t, "["+v+"]", got)
	}
}

func TestTextThatLooksLikePongo2(t *testing.T) {
	src := "{% raw %}{% ssi \"/etc/passwd\" %}{{ x }}{% endraw %}|{{ '{%' }}|{{ \"{{\" }}"
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{"t.md": src}))
	require.NoError(t, err)
	got, err := m.Render("t", nil)
	require.NoError(t, err)
	assert.Equal(t, "{% ssi \"/etc/passwd\" %}{{ x }}|{%|{{", got)
}

func TestOutputLimit(t *testing.T) {
	src := `{% for a in xs %}{% for b in xs %}{% for c in xs %}{{ a }}{{ b }}{{ c }}{% endfor %}{% endfor %}{% endfor %}`
	fsys := set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["xs"]}}}`, map[string]string{"t.md": src})
	m, err := manager.New(fsys, manager.WithMaxOutputBytes(1000))
	require.NoError(t, err)
	xs := make([]int, 100)
	_, err = m.Render("t", map[string]any{"xs": xs})
	require.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), `template "t"`)

	m2, err := manager.New(fsys, manager.WithMaxIterations(500))
	require.NoError(t, err)
	_, err = m2.Render("t", map[string]any{"xs": xs})
	require.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), "loop iterations")

	got, err := m2.Render("t", map[string]any{"xs": []int{1, 2}})
	require.NoError(t, err, "the manager keeps working after a limit")
	assert.Equal(t, "111112121122211212221222", got)
}

func TestOptionsValidated(t *testing.T) {
	fsys := set(faqIndex, map[string]string{"faq.md": "{{ question }}{{ tone }}{{ nick }}"})
	for _, o := range []manager.Option{manager.WithMaxOutputBytes(0), manager.WithMaxIterations(-1), manager.WithLogger(nil)} {
		_, err := manager.New(fsys, o)
		require.ErrorIs(t, err, manager.ErrTemplate)
	}
}

func TestRenderConcurrent(t *testing.T) {
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				intent := strings.Repeat("测", g+1)
				out, err := m.Render("title", map[string]any{"intent": intent})
				if !assert.NoError(t, err) || !assert.Contains(t, out, "<intent>"+intent+"</intent>") {
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func TestDefaultSetLoadsAndDescribes(t *testing.T) {
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tp := range m.Templates() {
		names[tp.Name] = true
		assert.Len(t, tp.Hash, 64)
		assert.NotEmpty(t, tp.Description, tp.Name)
	}
	for _, n := range []string{"agent_system", "title", "polish", "planner_board", "injection", "context_note", "subagent_system"} {
		assert.True(t, names[n], n)
	}
	assert.Empty(t, m.Unused(), "every declared variable of the default set is used")
	_, err = m.Render("agent_system", map[string]any{"title": "t", "intent": "i"})
	require.ErrorIs(t, err, manager.ErrMissingVariables)
}

func TestOpenMissingDir(t *testing.T) {
	_, err := manager.Open(filepath.Join(t.TempDir(), "nope"))
	require.ErrorIs(t, err, manager.ErrTemplate)
}

func TestLocalsCannotShadowInternals(t *testing.T) {
	for _, src := range []string{
		"{% with loop = 1 %}{% endwith %}", "{% set loop = 1 %}", "{% for loop in xs %}{% endfor %}",
		"{% set none = 1 %}", "{% macro loop() %}{% endmacro %}",
	} {
		_, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["xs"]}}}`, map[string]string{"t.md": src}))
		require.ErrorIs(t, err, manager.ErrTemplate, src)
	}
}

func TestPrintGoValues(t *testing.T) {
	type user struct {
		Name string
		Age  int
	}
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["u","us","p"]}}}`, map[string]string{"t.md": "{{ u }}|{{ us }}|{{ p }}|{{ u.Name }}"}))
	require.NoError(t, err)
	got, err := m.Render("t", map[string]any{"u": user{"甲", 3}, "us": []user{{"乙", 4}}, "p": &user{"丙", 5}})
	require.NoError(t, err, "a struct value prints instead of recursing forever")
	assert.Equal(t, "{'Name': '甲', 'Age': 3}|[{'Name': '乙', 'Age': 4}]|{'Name': '丙', 'Age': 5}|甲", got,
		"a struct prints as the dict of its exported fields, as Python prints a dict")
}
