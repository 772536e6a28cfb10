package manager_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// The classes of attack of the sandbox, each with the behaviour that
// holds instead: every case ends with a typed error, quickly, and none
// needs gigabytes or minutes (the budgets themselves bound them).

// hangBound bounds what the sandbox tests' fixed code takes: far above
// the seconds it takes on a loaded, shared machine (under the race
// detector too), far below the minutes — or the exhausted memory — of the
// bugs the tests keep away. Speed itself is measured by benchmarks.
const hangBound = slowdown * 30 * time.Second

func oneTemplate(t testing.TB, src string, vars []string, opts ...manager.Option) (*manager.Manager, error) {
	t.Helper()
	decl := `[]`
	if len(vars) > 0 {
		decl = `["` + strings.Join(vars, `","`) + `"]`
	}
	return manager.New(set(`{"version":1,"templates":{"t":{"path":"t.md","variables":`+decl+`}}}`, map[string]string{"t.md": src}), opts...)
}

// Parts that include each other many times, or one large part included
// many times, are refused at load, in milliseconds, naming the chain.
func TestSandboxIncludeAmplification(t *testing.T) {
	files := map[string]string{}
	for i := range 10 {
		next := ""
		if i < 9 {
			next = strings.Repeat(`{% include "p`+string(rune('0'+i+1))+`.md" %}`, 10)
		}
		files["p"+string(rune('0'+i))+".md"] = "x" + next
	}
	files["big.md"] = strings.Repeat("y", 1<<20)
	files["t.md"] = `{% include "p0.md" %}`
	files["u.md"] = strings.Repeat(`{% include "big.md" %}`, 3000)
	for name, want := range map[string]string{"t": "p0.md -> p1.md", "u": "u.md -> big.md"} {
		start := time.Now()
		_, err := manager.New(set(`{"version":1,"templates":{"`+name+`":{"path":"`+name+`.md"}}}`, files))
		require.ErrorIs(t, err, manager.ErrTemplate)
		assert.Contains(t, err.Error(), "would exceed 4194304 bytes of source")
		assert.Contains(t, err.Error(), want)
		assert.Less(t, time.Since(start), hangBound)
	}
}

// Values built during a render are charged before they are built: each
// of these would allocate gigabytes without the memory budget.
func TestSandboxMemoryBudget(t *testing.T) {
	for name, src := range map[string]string{
		"tojson":        `{% set s = "x" * 1000000 %}{{ ([s] * 100) | tojson }}`,
		"repr of list":  `{% set s = "x" * 1000000 %}{{ ([s] * 100) | string }}`,
		"concat":        `{% set s = "x" * 3000000 %}{{ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s }}`,
		"nested join":   `{% set s = "x" * 1000000 %}{{ [[s] * 50, [s] * 50] | join }}`,
		"set locals":    `{% set ns = namespace(l=[]) %}{% for i in range(200) %}{% set ns.l = ns.l + ["x" * 1000000] %}{% endfor %}{{ ns.l | length }}`,
		"reverse slice": `{% set s = "x" * 30000000 %}{{ s[::-1] | length }}`,
		"to list":       `{% set s = "x" * 10000000 %}{{ s | list | length }}`,
		"split":         `{% set s = "x " * 10000000 %}{{ s.split() | length }}`,
		"loop lists":    `{% for i in range(1000) %}{{ range(100000) | list | length }}{% endfor %}`,
		// Sizes a builtin knows before it builds: charged first.
		"format width":          `{{ "{:>1000000000}".format("x") }}`,
		"format precision":      `{{ "{:.1000000000f}".format(1.0) }}`,
		"format repr width":     `{{ "{!r:>1000000000}".format("x") }}`,
		"percent width":         `{{ "%2000000000s" % "x" }}`,
		"percent precision":     `{{ "%.1000000000f" % 1.0 }}`,
		"percent int precision": `{{ "%.1000000000d" % 1 }}`,
		"format filter width":   `{{ "%1000000000d" | format(1) }}`,
		"expandtabs":            `{{ ("\t" * 1000).expandtabs(1000000) }}`,
		"strftime_now":          `{% for i in range(100) %}{{ strftime_now("%c" * 3000000) | length }}{% endfor %}`,
	} {
		t.Run(name, func(t *testing.T) {
			m, err := oneTemplate(t, src, nil)
			require.NoError(t, err)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err = m.Render("t", nil)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, manager.ErrOutputLimit)
			assert.Contains(t, err.Error(), "t.md:1:")
			assert.Contains(t, err.Error(), "(WithMaxMemory)", "the memory budget stopped it, before the output limit")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<30), "allocated before it stopped")
			assert.Less(t, time.Since(start), hangBound)
		})
	}
}

// Widths and precisions beyond what Go's fmt takes (ten million) make
// Python's result when the budget holds it, never a Go artefact
// ("%!(NOVERB)%!(EXTRA string=x)").
func TestSandboxFormatBeyondGo(t *testing.T) {
	m, err := oneTemplate(t, `{{ ("%20000000s" % "x") | length }} {{ ("%.20000000f" % 1.0) | length }} {{ ("%-20000000d|" % 7)[-3:] }} {{ "{:>20000000}".format("x") | length }} {{ ("\t" * 2).expandtabs(15000000) | length }}`,
		nil, manager.WithMaxMemory(256<<20))
	require.NoError(t, err)
	out, err := m.Render("t", nil)
	require.NoError(t, err)
	assert.Equal(t, "20000000 20000002   | 20000000 30000000", out)
}

// Work is bounded by work, not by iterations: quadratic filters are
// linear, and a render stops at its context's deadline.
func TestSandboxWorkAndDeadlines(t *testing.T) {
	m, err := oneTemplate(t, `{{ range(100000) | unique | list | length }}`, nil)
	require.NoError(t, err)
	start := time.Now()
	out, err := m.Render("t", nil)
	require.NoError(t, err)
	assert.Equal(t, "100000", out)
	assert.Less(t, time.Since(start), hangBound, "unique is linear (quadratic took minutes)")

	slow := `{% for i in range(1000) %}{% for j in range(1000) %}{{ "" }}{% endfor %}{% endfor %}`
	m, err = oneTemplate(t, slow, nil, manager.WithMaxIterations(100_000_000), manager.WithMaxWork(1<<40))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = m.RenderContext(ctx, "t", nil)
	require.ErrorIs(t, err, manager.ErrCanceled)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), `t.md:1:`)

	m, err = oneTemplate(t, slow, nil, manager.WithMaxIterations(100_000_000), manager.WithMaxWork(1<<40), manager.WithMaxRenderTime(20*time.Millisecond))
	require.NoError(t, err)
	_, err = m.Render("t", nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	m, err = oneTemplate(t, slow, nil, manager.WithMaxIterations(100_000_000), manager.WithMaxWork(10_000))
	require.NoError(t, err)
	_, err = m.Render("t", nil)
	require.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), "WithMaxWork")
}

// hostile is a host value with methods, function fields and an
// unexported secret.
type hostile struct {
	Name   string
	Fn     func() string
	secret string
	calls  *int
}

func (h hostile) Delete() string { *h.calls++; return "deleted" }

// Templates call no host code, and never see unexported fields.
func TestSandboxValuesAreData(t *testing.T) {
	calls := 0
	o := hostile{Name: "n", Fn: func() string { calls++; return "called" }, secret: "s3cret", calls: &calls}
	fns := map[string]any{"f": func() string { calls++; return "called" }}
	for _, src := range []string{
		"[{{ o.Delete }}]", "[{% if o.Delete %}yes{% endif %}]", "[{{ o['Delete'] }}]", "[{{ o.Delete | upper }}]",
		"[{{ m.f }}]", "[{{ 's3c' in (o | string) }}]", "[{% if o.secret %}leak{% endif %}]",
	} {
		m, err := oneTemplate(t, src, []string{"o", "m"})
		require.NoError(t, err)
		out, err := m.Render("t", map[string]any{"o": o, "m": fns})
		if err != nil {
			// A strict set: a method is no attribute, so o.Delete is undefined.
			require.ErrorIs(t, err, manager.ErrUndefined, src)
		}
		assert.NotContains(t, out, "deleted", src)
		assert.NotContains(t, out, "leak", src)
		assert.NotContains(t, out, "True", src)
	}
	m, err := oneTemplate(t, "{{ o }}", []string{"o"})
	require.NoError(t, err)
	out, err := m.Render("t", map[string]any{"o": o})
	require.NoError(t, err)
	assert.Equal(t, "{'Name': 'n', 'Fn': <Go func() string>}", out, "exported data only; no address")
	assert.Zero(t, calls, "no method or function of the host ran")
}

// A value that contains itself prints as Python prints it; comparing or
// encoding it ends with an error, never a crash.
func TestSandboxCyclicValues(t *testing.T) {
	self := map[string]any{}
	self["self"] = self
	list := []any{1}
	list[0] = list
	m, err := oneTemplate(t, "{{ d }}|{{ l }}|{{ l == l }}", []string{"d", "l"})
	require.NoError(t, err)
	out, err := m.Render("t", map[string]any{"d": self, "l": list})
	require.NoError(t, err)
	assert.Equal(t, "{'self': {...}}|[[...]]|True", out)

	m, err = oneTemplate(t, "{{ d | tojson }}", []string{"d"})
	require.NoError(t, err)
	_, err = m.Render("t", map[string]any{"d": self})
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "contains itself")

	other := map[string]any{}
	other["self"] = other
	m, err = oneTemplate(t, "{{ a == b }}", []string{"a", "b"})
	require.NoError(t, err)
	_, err = m.Render("t", map[string]any{"a": self, "b": other})
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "nested deeper")
}

// Files that are not templates neither wedge nor flood a load: the FIFO
// is refused without a writer ever coming (were the load to open it, it
// would wait for one: the watchdog then plays the writer and fails the
// test), and the sparse giant is refused by its size, unread.
func TestSandboxFilesThatAreNotTemplates(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"index.json": `{"version":1,"templates":{"t":{"path":"t.md"},"big":{"path":"big.md"}}}`})
	fifo := filepath.Join(dir, "t.md")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	f, err := os.Create(filepath.Join(dir, "big.md"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(50<<30)) // sparse: 50 GB that take no disk
	require.NoError(t, f.Close())
	done := make(chan error, 1)
	go func() {
		_, err := manager.Open(dir)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(hangBound):
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil { // free the blocked open
			w.Close()
		}
		t.Fatal("the load waited on a FIFO")
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "t.md: template \"t\": cannot read the template: not a regular file (a named pipe)")
	assert.Contains(t, err.Error(), "big.md: template \"big\": cannot read the template: file too large: 53687091200 bytes, over the limit of 16777216 (WithMaxFileBytes)")
}

// A template truncated to zero bytes in the middle of a save does not go
// live: the reload keeps the set serving.
func TestSandboxEmptyDuringSave(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"index.json": `{"version":1,"templates":{"t":{"path":"t.md"}}}`, "t.md": "v1"})
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	writeFiles(t, dir, map[string]string{"t.md": ""})
	err = m.Reload(context.Background())
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "the file is empty, and was 2 bytes in the set serving")
	out, err := m.Render("t", nil)
	require.NoError(t, err)
	assert.Equal(t, "v1", out)
}

// Loading is linear in a template's size, whatever its shape.
func TestSandboxLinearLoad(t *testing.T) {
	for name, src := range map[string]string{
		"adjacent strings": "{{ " + strings.Repeat(`"a" `, 200_000) + "}}",
		"one long line":    strings.Repeat("文字 {{ x }} ", 250_000),
		"many lines":       strings.Repeat("line {{ x }}\n", 300_000),
		"many tags":        strings.Repeat("{% if x %}a{% endif %}", 150_000),
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			m, err := oneTemplate(t, src, []string{"x"}, manager.WithMaxFileBytes(16<<20))
			require.NoError(t, err)
			assert.Less(t, time.Since(start), hangBound, "%d bytes (BenchmarkLoadLarge times it)", len(src))
			_, err = m.Render("t", map[string]any{"x": "y"})
			require.NoError(t, err)
		})
	}
}

// Any valid UTF-8 passes through text, raw blocks and strings exactly;
// invalid UTF-8 is refused with its position.
func TestSandboxBytesPassThrough(t *testing.T) {
	odd := "a\x01b\x00c{\x7f}\u202e{ x"
	m, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version":1,"templates":{"t":{"path":"t.md"}}}`)},
		"t.md":       {Data: []byte(odd + `{% raw %}` + odd + `{% endraw %}{{ "` + "\x01\x02" + `" }}`)},
	})
	require.NoError(t, err)
	out, err := m.Render("t", nil)
	require.NoError(t, err)
	assert.Equal(t, odd+odd+"\x01\x02", out)

	_, err = manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version":1,"templates":{"t":{"path":"t.md"}}}`)},
		"t.md":       {Data: []byte("line one\nab\xffc")},
	})
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "t.md:2:3: template \"t\": invalid UTF-8")
}
