package manager_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

const composeIndex = `{"version":1,"templates":{
  "foobar": {"path":"foobar.md","variables":["foo","bar",{"name":"baz","required":false,"default":"z"}]},
  "qa":     {"path":"qa.md","variables":["context_str","query_str"]},
  "chat":   {"path":"chat.md","variables":["system","question"]}
}}`

func composeManager(t *testing.T) *manager.Manager {
	t.Helper()
	m, err := manager.New(set(composeIndex, map[string]string{
		"foobar.md": "{{ foo }} {{ bar }} {{ baz }}",
		"qa.md":     "Here is some context: {{ context_str }} and here is a query: {{ query_str }}",
		"chat.md":   `{% chat role="system" %}{{ system }}{% endchat %}{% chat role="user" %}{{ question }}{% endchat %}`,
	}))
	require.NoError(t, err)
	return m
}

func TestPartialThenRender(t *testing.T) {
	m := composeManager(t)
	p, err := m.Partial("foobar", map[string]any{"foo": "abc"})
	require.NoError(t, err)
	out, err := p.Render(map[string]any{"bar": "def"})
	require.NoError(t, err)
	assert.Equal(t, "abc def z", out)

	out, err = p.Render(map[string]any{"bar": "def", "foo": "call wins", "baz": "y"})
	require.NoError(t, err)
	assert.Equal(t, "call wins def y", out)
	assert.Equal(t, "foobar", p.Name())
}

func TestPartialStrictOnTheUnion(t *testing.T) {
	m := composeManager(t)
	p, err := m.Partial("foobar", map[string]any{"foo": "abc"})
	require.NoError(t, err)

	_, err = p.Render(nil)
	require.ErrorIs(t, err, manager.ErrMissingVariables)
	var e *manager.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, []string{"bar"}, e.Variables, "a bound variable is not missing")

	_, err = p.Render(map[string]any{"bar": 1, "bogus": 2})
	require.ErrorIs(t, err, manager.ErrExtraVariables)
	assert.Contains(t, err.Error(), "bogus")

	_, err = m.Partial("foobar", map[string]any{"bogus": 1})
	require.ErrorIs(t, err, manager.ErrExtraVariables, "an undeclared bound value is refused at once")

	_, err = m.Partial("nope", nil)
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
}

func TestPartialLeavesOriginalUnchanged(t *testing.T) {
	m := composeManager(t)
	bound := map[string]any{"foo": "one"}
	p1, err := m.Partial("foobar", bound)
	require.NoError(t, err)
	bound["foo"] = "changed by the caller"
	bound["bar"] = "added by the caller"

	p2, err := p1.Partial(map[string]any{"foo": "two", "bar": "b"})
	require.NoError(t, err)

	out, err := p1.Render(map[string]any{"bar": "x"})
	require.NoError(t, err)
	assert.Equal(t, "one x z", out, "p1 keeps its own copy and is not changed by p2")
	out, err = p2.Render(nil)
	require.NoError(t, err)
	assert.Equal(t, "two b z", out)
	out, err = m.Render("foobar", map[string]any{"foo": "f", "bar": "b"})
	require.NoError(t, err)
	assert.Equal(t, "f b z", out, "the template itself is unchanged")
}

func TestFunctionMapping(t *testing.T) {
	m := composeManager(t)
	// The seed's example: reformat the context with bullet points.
	bullets := func(vars map[string]any) (any, error) {
		parts := strings.Split(vars["context_str"].(string), "\n\n")
		for i, s := range parts {
			parts[i] = "- " + s
		}
		return strings.Join(parts, "\n\n"), nil
	}
	p, err := m.Partial("qa", nil, manager.WithFunc("context_str", bullets))
	require.NoError(t, err)
	out, err := p.Render(map[string]any{"context_str": "a\n\nb", "query_str": "q"})
	require.NoError(t, err)
	assert.Equal(t, "Here is some context: - a\n\n- b and here is a query: q", out)
}

func TestFunctionMappingComputesRequiredVariable(t *testing.T) {
	m := composeManager(t)
	var seen map[string]any
	p, err := m.Partial("foobar", map[string]any{"foo": "f"}, manager.WithFunc("bar", func(vars map[string]any) (any, error) {
		seen = vars
		vars["foo"] = "mutated" // the function's own copy
		return "from " + vars["baz"].(string), nil
	}))
	require.NoError(t, err)
	out, err := p.Render(map[string]any{"baz": "call", "bar": "passed value loses"})
	require.NoError(t, err)
	assert.Equal(t, "f from call call", out)
	assert.Equal(t, map[string]any{"foo": "mutated", "bar": "passed value loses", "baz": "call"}, seen,
		"the function sees the bound and passed values")

	_, err = p.Render(nil)
	require.Error(t, err, "without baz the function fails on the nil assertion")
	require.ErrorIs(t, err, manager.ErrVariableFunc)
}

func TestFunctionsSeeTheSameInputs(t *testing.T) {
	m := composeManager(t)
	p, err := m.Partial("foobar", nil,
		manager.WithFunc("foo", func(vars map[string]any) (any, error) { return "foo saw bar=" + str(vars["bar"]), nil }),
		manager.WithFunc("bar", func(vars map[string]any) (any, error) { return "bar saw foo=" + str(vars["foo"]), nil }),
	)
	require.NoError(t, err)
	out, err := p.Render(map[string]any{"foo": "F", "bar": "B"})
	require.NoError(t, err)
	assert.Equal(t, "foo saw bar=B bar saw foo=F z", out)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func TestFunctionMappingErrors(t *testing.T) {
	m := composeManager(t)
	boom := errors.New("boom")
	failing, err := m.Partial("foobar", map[string]any{"foo": 1}, manager.WithFunc("bar", func(map[string]any) (any, error) { return nil, boom }))
	require.NoError(t, err)
	_, err = failing.Render(nil)
	require.ErrorIs(t, err, manager.ErrVariableFunc)
	require.ErrorIs(t, err, boom)
	var e *manager.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "foobar", e.Template)
	assert.Equal(t, []string{"bar"}, e.Variables)
	assert.Equal(t, `foobar.md: template "foobar": function for variable "bar" failed: boom`, err.Error())

	panicking, err := m.Partial("foobar", map[string]any{"foo": 1}, manager.WithFunc("bar", func(map[string]any) (any, error) { panic("oops") }))
	require.NoError(t, err)
	_, err = panicking.Render(nil)
	require.ErrorIs(t, err, manager.ErrVariableFunc)
	assert.Contains(t, err.Error(), `template "foobar": function for variable "bar" failed: panic: oops`)
	_, err = panicking.RenderMessages(nil)
	require.ErrorIs(t, err, manager.ErrVariableFunc)

	for name, opt := range map[string]manager.PromptOption{
		"nil function": manager.WithFunc("bar", nil),
		"invalid name": manager.WithFunc("not a name", func(map[string]any) (any, error) { return 1, nil }),
	} {
		_, err := m.Partial("foobar", nil, opt)
		require.ErrorIs(t, err, manager.ErrTemplate, name)
	}
	f := func(map[string]any) (any, error) { return 1, nil }
	_, err = m.Partial("foobar", nil, manager.WithFunc("bar", f), manager.WithFunc("bar", f))
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), `variable "bar" is given two functions`)

	_, err = m.Partial("foobar", nil, manager.WithFunc("nope", f))
	require.ErrorIs(t, err, manager.ErrExtraVariables)
	assert.Contains(t, err.Error(), "functions for variables not declared in index.json: nope")
}

func TestLaterPartialReplacesFunction(t *testing.T) {
	m := composeManager(t)
	p1, err := m.Partial("foobar", map[string]any{"foo": "f"}, manager.WithFunc("bar", func(map[string]any) (any, error) { return "one", nil }))
	require.NoError(t, err)
	p2, err := p1.Partial(nil, manager.WithFunc("bar", func(map[string]any) (any, error) { return "two", nil }))
	require.NoError(t, err)
	out1, err := p1.Render(nil)
	require.NoError(t, err)
	out2, err := p2.Render(nil)
	require.NoError(t, err)
	assert.Equal(t, "f one z", out1)
	assert.Equal(t, "f two z", out2)
}

func TestVariableMapping(t *testing.T) {
	m := composeManager(t)
	p, err := m.Partial("qa", nil, manager.WithVarMapping(map[string]string{"my_context": "context_str", "my_query": "query_str"}))
	require.NoError(t, err)
	out, err := p.Render(map[string]any{"my_context": "context", "my_query": "query"})
	require.NoError(t, err)
	assert.Equal(t, "Here is some context: context and here is a query: query", out)

	out, err = p.Render(map[string]any{"my_context": "c", "query_str": "unmapped names pass unchanged"})
	require.NoError(t, err)
	assert.Equal(t, "Here is some context: c and here is a query: unmapped names pass unchanged", out)

	_, err = p.Render(map[string]any{"my_context": "a", "context_str": "b", "my_query": "q"})
	require.ErrorIs(t, err, manager.ErrExtraVariables)
	assert.Contains(t, err.Error(), `"context_str" and "my_context" both give variable "context_str"`)

	_, err = p.Render(map[string]any{"my_context": "a", "my_query": "q", "my_other": 1})
	require.ErrorIs(t, err, manager.ErrExtraVariables)
	assert.Contains(t, err.Error(), "my_other")

	// A mapping applies to bound values too, and a bound value keeps the
	// template's name.
	q, err := p.Partial(map[string]any{"my_context": "bound"})
	require.NoError(t, err)
	out, err = q.Render(map[string]any{"my_query": "q"})
	require.NoError(t, err)
	assert.Equal(t, "Here is some context: bound and here is a query: q", out)
	out, err = q.Render(map[string]any{"my_query": "q", "my_context": "call wins"})
	require.NoError(t, err)
	assert.Equal(t, "Here is some context: call wins and here is a query: q", out)

	_, err = m.Partial("qa", nil, manager.WithVarMapping(map[string]string{"a": "not valid"}))
	require.ErrorIs(t, err, manager.ErrTemplate)
	_, err = m.Partial("qa", nil,
		manager.WithVarMapping(map[string]string{"a": "context_str"}),
		manager.WithVarMapping(map[string]string{"a": "query_str"}))
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), `"a" maps to both`)
}

func TestPromptRenderMessages(t *testing.T) {
	m := composeManager(t)
	p, err := m.Partial("chat", map[string]any{"sys": "Be brief."},
		manager.WithVarMapping(map[string]string{"sys": "system"}))
	require.NoError(t, err)
	msgs, err := p.RenderMessages(map[string]any{"question": "Why?"})
	require.NoError(t, err)
	assert.Equal(t, []manager.Message{text("system", "Be brief."), text("user", "Why?")}, msgs)
	_, err = p.Render(map[string]any{"question": "Why?"})
	require.ErrorIs(t, err, manager.ErrChatTemplate)
}

func TestPromptConcurrent(t *testing.T) {
	m := composeManager(t)
	p, err := m.Partial("foobar", map[string]any{"foo": "f"},
		manager.WithFunc("baz", func(vars map[string]any) (any, error) { return str(vars["bar"]) + "!", nil }))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				bar := strings.Repeat("b", i+j%3)
				out, err := p.Render(map[string]any{"bar": bar})
				if !assert.NoError(t, err) || !assert.Equal(t, "f "+bar+" "+bar+"!", out) {
					return
				}
			}
		}()
	}
	wg.Wait()
}
