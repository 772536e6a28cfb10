package bench

import (
	"strings"
	"testing"
)

func loadWorkloads(tb testing.TB) []Workload {
	tb.Helper()
	ws, err := LoadWorkloads()
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
			if !Applies(e, w) {
				continue
			}
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
			if !Applies(e, w) {
				continue
			}
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

// TestChatVariantsSameText checks that each chat variant holds its
// template's text: the texts of its messages, joined, are the golden
// output but for whitespace. So RenderMessages and Render time the same
// work.
func TestChatVariantsSameText(t *testing.T) {
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, w := range loadWorkloads(t) {
		t.Run(w.Name, func(t *testing.T) {
			m, err := managerFor(w)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := m.RenderMessages(w.Name+"_chat", w.Vars)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for _, msg := range msgs {
				text.WriteString(msg.Text())
			}
			if got, want := squeeze(text.String()), squeeze(w.Golden); got != want {
				t.Fatalf("the chat variant's text differs from the template's\n got: %q\nwant: %q", got, want)
			}
			if w.Name == "fewshot" && len(msgs) != 4 {
				t.Fatalf("fewshot has %d messages, want 4", len(msgs))
			}
		})
	}
}
