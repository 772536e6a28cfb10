package manager

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchSetDir writes benchSetFS(n) to a directory.
func benchSetDir(b *testing.B, n int) string {
	dir := b.TempDir()
	for p, f := range benchSetFS(n) {
		writeFile(b, filepath.Join(dir, p), string(f.Data))
	}
	return dir
}

// BenchmarkReloadOneEdit reloads a set of 10,000 templates after one of
// them was edited: "applied" recompiles what the edit touches (a watcher
// that knows the file), "whole" reads and compiles the set again (what
// an edit of index.json, or an unknown change, costs).
func BenchmarkReloadOneEdit(b *testing.B) {
	const n = 10000
	dir := benchSetDir(b, n)
	cfg, err := newConfig([]Option{WithWatch()})
	if err != nil {
		b.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	fsys := newRootFS(root)
	prev, err := load(fsys, cfg, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	const edited = "templates/t04242.md"
	b.Run("applied", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			writeFile(b, filepath.Join(dir, edited), fmt.Sprintf("第 %d 次修改：{{ name }}", i))
			s, err, ok := loadChanged(fsys, cfg, prev, []string{edited}, nil)
			if err != nil || !ok {
				b.Fatal(err, ok)
			}
			prev = s
		}
	})
	b.Run("whole", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			writeFile(b, filepath.Join(dir, edited), fmt.Sprintf("第 %d 次修改：{{ name }}", i))
			s, err := load(fsys, cfg, prev, nil)
			if err != nil {
				b.Fatal(err)
			}
			prev = s
		}
	})
}

// BenchmarkWatchOneEdit is the same edit end to end: saved by rename in a
// watched set of 10,000 templates, until the new text renders. The
// debounce (20 ms here) is part of each op; reload-ms is the reload's own
// Duration and compiled/op the templates it compiled, as ReloadEvent
// reports them.
func BenchmarkWatchOneEdit(b *testing.B) {
	const n = 10000
	dir := benchSetDir(b, n)
	m, err := Open(dir, WithWatch(), WithDebounce(20*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	events := make(chan ReloadEvent, 64)
	defer m.Subscribe(func(ev ReloadEvent) { events <- ev })()
	p := filepath.Join(dir, "templates", "t04242.md")
	var reload time.Duration
	compiled := 0
	i := 0
	for b.Loop() {
		i++
		writeFile(b, p+".tmp", fmt.Sprintf("第 %d 次修改：{{ name }}", i))
		if err := os.Rename(p+".tmp", p); err != nil {
			b.Fatal(err)
		}
		want := fmt.Sprintf("第 %d 次修改：x", i)
		for {
			ev := <-events
			if ev.Err != nil {
				b.Fatal(ev.Err)
			}
			reload += ev.Duration
			compiled += ev.Compiled
			if got, _ := m.Render("t04242", map[string]any{"name": "x"}); got == want {
				break
			}
		}
	}
	b.ReportMetric(float64(reload.Microseconds())/1000/float64(b.N), "reload-ms")
	b.ReportMetric(float64(compiled)/float64(b.N), "compiled/op")
}
