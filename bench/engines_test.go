package bench

import "testing"

func loadWorkloads(tb testing.TB) []Workload {
	tb.Helper()
	ws, err := LoadWorkloads(WorkloadDir)
	if err != nil {
		tb.Fatal(err)
	}
	return ws
}

// TestOutputsIdentical checks every engine's output against Jinja2's, byte
// for byte, before anything is timed.
func TestOutputsIdentical(t *testing.T) {
	for _, w := range loadWorkloads(t) {
		for _, e := range Engines {
			t.Run(w.Name+"/"+BenchName(e), func(t *testing.T) {
				r, err := e.Prepare(w)
				if err != nil {
					t.Fatal(err)
				}
				got, err := r.Output()
				if err != nil {
					t.Fatal(err)
				}
				if want := Expected(e, w); got != want {
					t.Fatalf("output differs from Jinja2's\n got: %q\nwant: %q", got, want)
				}
			})
		}
	}
}

// BenchmarkEngines renders each workload with each Go engine. The output
// is checked once more before timing, so a benchmark never times a wrong
// render.
func BenchmarkEngines(b *testing.B) {
	for _, w := range loadWorkloads(b) {
		for _, e := range Engines {
			b.Run(w.Name+"/"+BenchName(e), func(b *testing.B) {
				r, err := e.Prepare(w)
				if err != nil {
					b.Fatal(err)
				}
				if got, err := r.Output(); err != nil || got != Expected(e, w) {
					b.Fatalf("output differs from Jinja2's (err %v)", err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := r.Render(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
