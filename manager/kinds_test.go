package manager

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// The kinds table is the one map of kinds: every sentinel has one row,
// one name and a status; every kind of problem of the front end and the
// engine stands for exactly one sentinel.
func TestKindsTable(t *testing.T) {
	names, errs := map[string]bool{}, map[error]bool{}
	front := map[jinja.Kind]error{}
	for _, k := range kinds {
		assert.False(t, names[k.name], "name %s twice", k.name)
		assert.False(t, errs[k.err], "sentinel %v twice", k.err)
		names[k.name], errs[k.err] = true, true
		assert.Contains(t, []int{404, 409, 422, 503}, k.status, k.name)
		s, ok := KindStatus(k.name)
		assert.True(t, ok)
		assert.Equal(t, k.status, s)
		assert.Equal(t, k.name, ErrorKind(fmt.Errorf("wrapped: %w", k.err)))
		for _, f := range k.front {
			_, dup := front[f]
			assert.False(t, dup, "front-end kind %d in two rows", f)
			front[f] = k.err
		}
	}
	for k := jinja.Syntax; k <= jinja.Undefined; k++ {
		assert.Contains(t, front, k, "jinja.Kind %d stands for no sentinel", k)
		assert.Equal(t, front[k], kindOf(k))
	}
	_, ok := KindStatus("nope")
	assert.False(t, ok)
	assert.Equal(t, "other", ErrorKind(errors.New("x")))
	assert.Equal(t, "", ErrorKind(nil))
}
