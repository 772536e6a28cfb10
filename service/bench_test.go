package service

import (
	"slices"
	"testing"
	"time"

	"github.com/seed-e7d2830f/promptkit/builders"
)

// BenchmarkAgentSystem measures Service.Build("agent_system") beside
// Manager.Render of the same template, in the same run, with two
// baselines:
//
//   - Manager.Render: the variables map built once, before the loop: the
//     lower bound, what rendering alone costs;
//   - Manager.Render/vars-per-call: the map built, and its values escaped,
//     on every call, as a host calling the manager directly must do.
//
// The difference between Service.Build and the second is what the service
// and the builder add: dispatch, the context's copy of the data, the key
// checks. On a shared machine separate sub-benchmarks can see different
// load, so "Interleaved" runs the three in turn in each iteration and
// reports their medians and the overheads of Build over each baseline.
func BenchmarkAgentSystem(b *testing.B) {
	m := defaultSet(b)
	s, err := New(m, WithDefaultBuilders())
	if err != nil {
		b.Fatal(err)
	}
	task := builders.Task{ID: "t-1", Title: "明天北京天气", Intent: "帮我查一下明天北京会不会下雨，要不要带伞"}
	data := map[string]any{"bot_name": "麦麦"}
	vars := map[string]any{"title": task.Title, "intent": task.Intent, "bot_name": "麦麦"}

	want, err := m.Render("agent_system", vars)
	if err != nil {
		b.Fatal(err)
	}
	if got, err := s.Build("agent_system", task, data); err != nil || got != want {
		b.Fatalf("Build and Render differ: %v", err)
	}

	render := func() {
		if _, err := m.Render("agent_system", vars); err != nil {
			b.Fatal(err)
		}
	}
	renderPerCall := func() {
		if _, err := m.Render("agent_system", map[string]any{
			"title":    builders.EscapeXML(task.Title),
			"intent":   builders.EscapeXML(task.Intent),
			"bot_name": builders.EscapeXML("麦麦"),
		}); err != nil {
			b.Fatal(err)
		}
	}
	build := func() {
		if _, err := s.Build("agent_system", task, data); err != nil {
			b.Fatal(err)
		}
	}
	for _, bm := range []struct {
		name string
		f    func()
	}{
		{"Manager.Render", render},
		{"Manager.Render/vars-per-call", renderPerCall},
		{"Service.Build", build},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bm.f()
			}
		})
	}
	b.Run("Interleaved", func(b *testing.B) {
		var rs, ps, bs []time.Duration
		for b.Loop() {
			t0 := time.Now()
			render()
			t1 := time.Now()
			renderPerCall()
			t2 := time.Now()
			build()
			t3 := time.Now()
			rs, ps, bs = append(rs, t1.Sub(t0)), append(ps, t2.Sub(t1)), append(bs, t3.Sub(t2))
		}
		r, p, s := median(rs), median(ps), median(bs)
		b.ReportMetric(float64(r.Nanoseconds()), "render-ns")
		b.ReportMetric(float64(p.Nanoseconds()), "render-per-call-ns")
		b.ReportMetric(float64(s.Nanoseconds()), "build-ns")
		b.ReportMetric(100*float64(s-r)/float64(r), "overhead-%")
		b.ReportMetric(100*float64(s-p)/float64(p), "overhead-per-call-%")
	})
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}
