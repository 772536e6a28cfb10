package jinja

import (
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
