package manager_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

const overrideIndex = `{"version":1,"templates":{
  "greet": {"path":"greet.md","variables":["name"]},
  "other": {"path":"other.md","variables":["x"]},
  "chat":  {"path":"chat.md","variables":["q"]}
}}`

func overrideManager(t *testing.T) *manager.Manager {
	t.Helper()
	m, err := manager.New(set(overrideIndex, map[string]string{
		"greet.md":      "Hello {{ name }}.",
		"other.md":      "x={{ x }}",
		"chat.md":       `{% chat role="user" %}{{ q }}{% endchat %}`,
		"parts/sig.md":  "-- {{ name }}",
		"parts/loop.md": `{% include "parts/loop.md" %}`,
	}))
	require.NoError(t, err)
	return m
}

func TestOverrideReplacesSource(t *testing.T) {
	m := overrideManager(t)
	before, _ := m.Lookup("greet")
	require.NoError(t, m.Override("greet", `Bonjour {{ name }} ! {% include "parts/sig.md" %}`))

	out, err := m.Render("greet", map[string]any{"name": "Ana"})
	require.NoError(t, err)
	assert.Equal(t, "Bonjour Ana ! -- Ana", out)
	after, _ := m.Lookup("greet")
	assert.NotEqual(t, before.Hash, after.Hash, "the hash follows the source")
	assert.Equal(t, "greet.md", after.Path)
	assert.Equal(t, before.Variables, after.Variables)
	assert.Equal(t, map[string]string{"greet": `Bonjour {{ name }} ! {% include "parts/sig.md" %}`}, m.Overrides())

	out, err = m.Render("other", map[string]any{"x": 1})
	require.NoError(t, err)
	assert.Equal(t, "x=1", out, "other templates are untouched")

	_, err = m.Render("greet", map[string]any{"name": "Ana", "extra": 1})
	require.ErrorIs(t, err, manager.ErrExtraVariables, "the declaration stays strict")
}

func TestOverrideCanWrapTheFile(t *testing.T) {
	m := overrideManager(t)
	require.NoError(t, m.Override("greet", `{% include "greet.md" %} Welcome back.`))
	out, err := m.Render("greet", map[string]any{"name": "Ana"})
	require.NoError(t, err)
	assert.Equal(t, "Hello Ana. Welcome back.", out)
}

func TestOverrideRefusedLeavesSetServing(t *testing.T) {
	tests := []struct {
		name   string
		tmpl   string
		source string
		kind   error
		want   []string
	}{
		{"undeclared variable", "greet", "Hi {{ name }} from {{ city }}", manager.ErrUndeclaredVariable,
			[]string{`greet.md (override):1:23: template "greet": undeclared variable "city"`}},
		{"syntax error", "greet", "Hi\n{% if name %}", manager.ErrTemplate,
			[]string{"greet.md (override):2:1:", "never closed"}},
		{"unsupported", "greet", "{% macro x() %}{% endmacro %}", manager.ErrUnsupported,
			[]string{`tag "macro" is not supported`}},
		{"include outside root", "greet", `{% include "../secret.md" %}`, manager.ErrSandbox,
			[]string{"would leave the template root"}},
		{"include missing", "greet", `{% include "parts/nope.md" %}`, manager.ErrTemplate,
			[]string{"parts/nope.md"}},
		{"include cycle", "greet", `{% include "parts/loop.md" %}`, manager.ErrTemplate,
			[]string{"include cycle"}},
		{"unknown template", "nope", "x", manager.ErrUnknownTemplate,
			[]string{`template "nope": cannot override an unknown template (known: chat, greet, other)`}},
		{"text to chat", "greet", `{% chat role="user" %}{{ name }}{% endchat %}`, manager.ErrChatTemplate,
			[]string{"would make a chat template (rendered with RenderMessages) out of a text template"}},
		{"chat to text", "chat", `{{ q }}`, manager.ErrChatTemplate,
			[]string{"would make a text template"}},
		{"chat structure", "chat", "{% chat role=\"user\" %}{{ q }}{% endchat %}\nstray", manager.ErrTemplate,
			[]string{"chat.md (override):2:1:", "text outside a {% chat %} block"}},
		{"unknown role", "chat", `{% chat role="tool" %}{{ q }}{% endchat %}`, manager.ErrTemplate,
			[]string{`unknown chat role "tool"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := overrideManager(t)
			before, _ := m.Lookup(tc.tmpl)
			err := m.Override(tc.tmpl, tc.source)
			require.ErrorIs(t, err, tc.kind)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Empty(t, m.Overrides())
			after, _ := m.Lookup(tc.tmpl)
			assert.Equal(t, before, after)
			out, err := m.Render("greet", map[string]any{"name": "Ana"})
			require.NoError(t, err)
			assert.Equal(t, "Hello Ana.", out)
		})
	}
}

func TestOverrideAllIsAllOrNothing(t *testing.T) {
	m := overrideManager(t)
	err := m.OverrideAll(map[string]string{"greet": "Hi {{ name }}", "other": "{{ y }}", "nope": "x"})
	require.Error(t, err)
	ps := manager.Problems(err)
	require.Len(t, ps, 2, "every problem is reported: %v", err)
	assert.ErrorIs(t, err, manager.ErrUnknownTemplate)
	assert.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	out, err := m.Render("greet", map[string]any{"name": "Ana"})
	require.NoError(t, err)
	assert.Equal(t, "Hello Ana.", out, "the valid one was not applied either")

	require.NoError(t, m.OverrideAll(map[string]string{"greet": "Hi {{ name }}", "other": "X {{ x }}"}))
	assert.Len(t, m.Overrides(), 2)
	require.NoError(t, m.OverrideAll(nil))
}

func TestOverrideChatTemplate(t *testing.T) {
	m := overrideManager(t)
	require.NoError(t, m.Override("chat", `{% chat role="system" %}Be brief.{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`))
	msgs, err := m.RenderMessages("chat", map[string]any{"q": "Why?"})
	require.NoError(t, err)
	assert.Equal(t, []manager.Message{text("system", "Be brief."), text("user", "Why?")}, msgs)
}

func TestRemoveOverride(t *testing.T) {
	m := overrideManager(t)
	require.NoError(t, m.Override("greet", "One {{ name }}"))
	require.NoError(t, m.Override("greet", "Two {{ name }}"))
	out, err := m.Render("greet", map[string]any{"name": "A"})
	require.NoError(t, err)
	assert.Equal(t, "Two A", out)

	require.NoError(t, m.RemoveOverride("greet"))
	out, err = m.Render("greet", map[string]any{"name": "A"})
	require.NoError(t, err)
	assert.Equal(t, "Hello A.", out, "the file's version, not the first override")
	assert.Empty(t, m.Overrides())

	require.NoError(t, m.RemoveOverride("greet"), "removing again is a no-op")
	require.ErrorIs(t, m.RemoveOverride("nope"), manager.ErrUnknownTemplate)
}

func TestPartialFollowsOverride(t *testing.T) {
	m := overrideManager(t)
	p, err := m.Partial("greet", map[string]any{"name": "Ana"})
	require.NoError(t, err)
	require.NoError(t, m.Override("greet", "Hey {{ name }}"))
	out, err := p.Render(nil)
	require.NoError(t, err)
	assert.Equal(t, "Hey Ana", out)
}

func TestOverrideOnClosedManager(t *testing.T) {
	m := overrideManager(t)
	require.NoError(t, m.Close())
	require.ErrorIs(t, m.Override("greet", "x"), manager.ErrClosed)
	require.ErrorIs(t, m.RemoveOverride("greet"), manager.ErrClosed)
}

// Renders during a stream of overrides see one version or another, whole.
func TestOverrideWhileRendering(t *testing.T) {
	m := overrideManager(t)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				out, err := m.Render("greet", map[string]any{"name": "A"})
				if !assert.NoError(t, err) {
					return
				}
				if out != "Hello A." && !(strings.HasPrefix(out, "v") && strings.HasSuffix(out, " A")) {
					assert.Fail(t, "torn render", out)
					return
				}
			}
		}()
	}
	var ow sync.WaitGroup
	for g := range 3 {
		ow.Add(1)
		go func() {
			defer ow.Done()
			for i := range 30 {
				assert.NoError(t, m.Override("greet", fmt.Sprintf("v%d.%d {{ name }}", g, i)))
			}
		}()
	}
	ow.Wait()
	stop.Store(true)
	wg.Wait()
	assert.Len(t, m.Overrides(), 1)
}
