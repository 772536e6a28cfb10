package manager_test

import (
	"fmt"
	"os"
	"path/filepath"
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
		{"unsupported", "greet", "{{ name | random }}", manager.ErrUnsupported,
			[]string{`filter "random" is not supported`}},
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

// writeFiles writes files into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
}

// Overrides survive reloads; the files still load and are what
// RemoveOverride restores; a reload the override no longer fits fails
// whole and the last good set serves on.
func TestOverrideAcrossReloads(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"index.json": `{"version":1,"templates":{"greet":{"path":"greet.md","variables":["name"]},"other":{"path":"other.md"}}}`,
		"greet.md":   "Hello {{ name }}.",
		"other.md":   "other v1",
	})
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	render := func(name string, vars map[string]any) string {
		t.Helper()
		out, err := m.Render(name, vars)
		require.NoError(t, err)
		return out
	}
	name := map[string]any{"name": "Ana"}

	writeFiles(t, dir, map[string]string{"sig.md": "bye"}) // written after Open
	require.NoError(t, m.Override("greet", "Hi {{ name }}, {% include \"sig.md\" %}\n"), "an include is read from the directory as it is now")
	writeFiles(t, dir, map[string]string{"greet.md": "Hello again {{ name }}.", "other.md": "other v2"})
	require.NoError(t, m.Reload(t.Context()))
	assert.Equal(t, uint64(2), m.Generation())
	assert.Equal(t, "other v2", render("other", nil), "the reload applied")
	assert.Equal(t, "Hi Ana, bye", render("greet", name), "the override survived it")
	assert.Contains(t, m.Overrides(), "greet")

	// The override reads a variable the new index no longer declares.
	writeFiles(t, dir, map[string]string{
		"index.json": `{"version":1,"templates":{"greet":{"path":"greet.md","variables":["who"]},"other":{"path":"other.md"}}}`,
		"greet.md":   "Hello {{ who }}.",
		"other.md":   "other v3",
	})
	err = m.Reload(t.Context())
	require.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	assert.Contains(t, err.Error(), `greet.md (override):1:7: template "greet": undeclared variable "name"`)
	assert.Equal(t, err, m.LastError())
	assert.Equal(t, uint64(2), m.Generation())
	assert.Equal(t, "other v2", render("other", nil), "the last good set serves on")
	assert.Equal(t, "Hi Ana, bye", render("greet", name))

	// The template leaves the index: the reload fails until the override goes.
	writeFiles(t, dir, map[string]string{"index.json": `{"version":1,"templates":{"other":{"path":"other.md"}}}`})
	err = m.Reload(t.Context())
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
	assert.Contains(t, err.Error(), "remove the override (RemoveOverride)")

	writeFiles(t, dir, map[string]string{
		"index.json": `{"version":1,"templates":{"greet":{"path":"greet.md","variables":["name"]},"other":{"path":"other.md"}}}`,
		"greet.md":   "Hello v4 {{ name }}.",
	})
	require.NoError(t, m.Reload(t.Context()))
	require.NoError(t, m.RemoveOverride("greet"))
	assert.Equal(t, "Hello v4 Ana.", render("greet", name), "RemoveOverride restores the file as last loaded")
	assert.Equal(t, uint64(3), m.Generation(), "overrides are not loads")
}

// Overrides and reloads racing: neither loses the other's set.
func TestOverrideRacingReloads(t *testing.T) {
	fsys := set(overrideIndex, map[string]string{
		"greet.md": "Hello {{ name }}.", "other.md": "x={{ x }}", "chat.md": `{% chat role="user" %}{{ q }}{% endchat %}`,
	})
	m, err := manager.New(fsys)
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 30 {
			assert.NoError(t, m.Reload(t.Context()))
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 30 {
			assert.NoError(t, m.Override("greet", fmt.Sprintf("v%d {{ name }}", i)))
		}
	}()
	wg.Wait()
	out, err := m.Render("greet", map[string]any{"name": "A"})
	require.NoError(t, err)
	assert.Equal(t, "v29 A", out)
	assert.Equal(t, uint64(31), m.Generation())
}
