package manager_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// boom is a host value whose methods panic.
type boom struct{ Safe string }

func (boom) String() string { panic("String exploded") }
func (boom) Name() string   { panic("Name exploded") }

// fine is the same kind of value, without the bug.
type fine struct{}

func (fine) String() string { return "fine" }
func (fine) Name() string   { return "fine" }
func (fine) Title() string  { return "fine" }

// boomPtr panics on a nil receiver, as careless getters do.
type boomPtr struct{ name string }

func (b *boomPtr) Title() string { return b.name }

func TestPanicsInValuesAreContained(t *testing.T) {
	idx := `{"version":1,"templates":{"t":{"path":"t.md","variables":["v"]}}}`
	for name, src := range map[string]string{
		"Stringer printed":  "{{ v }}",
		"Stringer concat":   `{{ "x" ~ v }}`,
		"Stringer filtered": "{{ v|upper }}",
		"in a loop":         "{% for x in [v] %}{{ x }}{% endfor %}",
		"in a join":         "{{ [v, v]|join(', ') }}",
		"in tojson":         "{{ v|string }}",
	} {
		t.Run(name, func(t *testing.T) {
			m, err := manager.New(set(idx, map[string]string{"t.md": src}))
			require.NoError(t, err)
			_, err = m.Render("t", map[string]any{"v": boom{Safe: "ok"}})
			require.ErrorIs(t, err, manager.ErrTemplate)
			assert.Contains(t, err.Error(), `template "t"`)
			assert.Contains(t, err.Error(), "panic")

			// The manager keeps working after the panic.
			out, err := m.Render("t", map[string]any{"v": fine{}})
			require.NoError(t, err)
			assert.Contains(t, strings.ToLower(out), "fine")
		})
	}
}

// Methods of host values are never called: v.Name and v.Title are
// attribute lookups, and a struct's attributes are its exported fields.
func TestMethodsOfValuesAreNeverCalled(t *testing.T) {
	idx := `{"version":1,"templates":{"t":{"path":"t.md","variables":["v"]}}}`
	for _, tc := range []struct {
		src string
		v   any
	}{
		{"[{{ v.Name }}]", boom{Safe: "ok"}},
		{"[{{ v.Title }}]", (*boomPtr)(nil)},
		{"[{{ v.Title }}]", &boomPtr{name: "x"}},
		{"[{% if v.Name %}called{% endif %}]", boom{}},
	} {
		m, err := manager.New(set(idx, map[string]string{"t.md": tc.src}))
		require.NoError(t, err)
		out, err := m.Render("t", map[string]any{"v": tc.v})
		if err != nil {
			// A strict set: a method is no attribute, so v.Name is undefined.
			require.ErrorIs(t, err, manager.ErrUndefined, tc.src)
			continue
		}
		assert.Equal(t, "[]", out, tc.src)
	}
}

func TestPanicInVariableFunctionIsContained(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":["v"]}}}`, map[string]string{"t.md": "[{{ v }}]"}))
	require.NoError(t, err)
	p, err := m.Partial("t", nil, manager.WithFunc("v", func(map[string]any) (any, error) { panic("fn exploded") }))
	require.NoError(t, err)
	_, err = p.Render(nil)
	require.ErrorIs(t, err, manager.ErrVariableFunc)
	assert.Contains(t, err.Error(), `template "t"`)
	assert.Contains(t, err.Error(), "fn exploded")

	// A value returned by the function that panics when printed is
	// contained too, and the manager keeps rendering.
	p, err = m.Partial("t", nil, manager.WithFunc("v", func(map[string]any) (any, error) { return boom{}, nil }))
	require.NoError(t, err)
	_, err = p.Render(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `template "t"`)
	out, err := m.Render("t", map[string]any{"v": "ok"})
	require.NoError(t, err)
	assert.Equal(t, "[ok]", out)
}
