package manager

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkReloadLatency measures, for a watched set, the time from the
// moment an editor-style save lands (a temporary file renamed over the
// template; the clock starts when the rename returns) to the first Render
// that returns the new text, over at least 200 edits, and reports the
// median and the 99th percentile. The target is a p99 under the debounce
// period + 50 ms. rename-p99-ms is the rename system call itself, which a
// busy disk can make slow; it is not part of the latency.
//
//	go test -run '^$' -bench ReloadLatency -benchtime 1x ./manager/
func BenchmarkReloadLatency(b *testing.B) {
	for _, d := range []time.Duration{DefaultDebounce, 20 * time.Millisecond} {
		b.Run("debounce="+d.String(), func(b *testing.B) { benchReloadLatency(b, d) })
	}
}

func benchReloadLatency(b *testing.B, debounce time.Duration) {
	dir := b.TempDir()
	a := filepath.Join(dir, "a.md")
	writeFile(b, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(b, a, "edit 0")
	m, err := Open(dir, WithWatch(), WithDebounce(debounce))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()

	edits := max(b.N, 200)
	lat := make([]time.Duration, 0, edits)
	renames := make([]time.Duration, 0, edits) // the rename system calls themselves
	b.ResetTimer()
	for i := 1; i <= edits; i++ {
		want := fmt.Sprintf("edit %d", i)
		writeFile(b, a+".tmp", want)
		before := time.Now()
		if err := os.Rename(a+".tmp", a); err != nil {
			b.Fatal(err)
		}
		start := time.Now() // the rename has landed
		renames = append(renames, start.Sub(before))
		for {
			out, err := m.Render("a", nil)
			if err != nil {
				b.Fatal(err)
			}
			if out == want {
				break
			}
			if time.Since(start) > 10*time.Second {
				b.Fatalf("edit %d never rendered; last error %v", i, m.LastError())
			}
			time.Sleep(20 * time.Microsecond)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	slices.Sort(renames)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	p99 := lat[(len(lat)*99+99)/100-1]
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(float64(len(lat)), "edits")
	b.ReportMetric(ms(renames[(len(renames)*99+99)/100-1]), "rename-p99-ms")
	if target := debounce + 50*time.Millisecond; p99 > target {
		b.Logf("p99 %v is over the target %v (debounce + 50 ms)", p99, target)
	}
}
