package jinjaoracle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTB records what a test under a Golden would report.
type fakeTB struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) end() {
	for _, fn := range f.cleanups {
		fn()
	}
}

// A recording run writes the live answers; a later run serves them, and
// fails when the live oracle answers otherwise.
func TestGoldenRecordsAndChecks(t *testing.T) {
	o := Require(t)
	path := filepath.Join(t.TempDir(), "g.json")

	t.Setenv(RecordEnv, "1")
	tb := &fakeTB{TB: t}
	r := Record(tb, path)
	a := r.Render(tb, "{{ x ~ '!' }}", map[string]any{"x": "hi"})
	assert.Equal(t, "hi!", a.Out)
	big := r.Render(tb, "{{ 'ab' * 10000 }}", nil)
	assert.True(t, big.Kept(), "a live answer is whole")
	tb.end()
	assert.Empty(t, tb.errs)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"out": "hi!"`)
	assert.NotContains(t, string(data), "abababab", "a large output is recorded by its digest")
	goldens.Delete(path)

	t.Setenv(RecordEnv, "")
	tb = &fakeTB{TB: t}
	r = Record(tb, path)
	assert.Equal(t, "hi!", r.Render(tb, "{{ x ~ '!' }}", map[string]any{"x": "hi"}).Out)
	r.Render(tb, "{{ 'not recorded' }}", nil)
	tb.end()
	require.Len(t, tb.errs, 1)
	assert.Contains(t, tb.errs[0], "no answer recorded")
	goldens.Delete(path)

	// A stale answer: the file says otherwise than Jinja2.
	require.Contains(t, string(data), `"out": "hi!"`)
	stale := strings.Replace(string(data), `"out": "hi!"`, `"out": "hi?"`, 1)
	require.NoError(t, os.WriteFile(path, []byte(stale), 0o644))
	tb = &fakeTB{TB: t}
	r = Record(tb, path)
	r.Render(tb, "{{ x ~ '!' }}", map[string]any{"x": "hi"})
	tb.end()
	require.Len(t, tb.errs, 1)
	assert.Contains(t, tb.errs[0], "differs from Jinja2 "+o.Jinja2)
	goldens.Delete(path)
}
