package service

import (
	"testing"

	"github.com/seed-e7d2830f/promptkit/builders"
)

// BenchmarkAgentSystem measures Service.Build("agent_system") beside
// Manager.Render of the same template with the same variables, in the same
// run: the difference is what the service and the builder add (dispatch,
// the context's copy of the data, the key check, escaping).
func BenchmarkAgentSystem(b *testing.B) {
	m := defaultSet(b)
	s, err := New(m)
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

	b.Run("Manager.Render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.Render("agent_system", vars); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Service.Build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Build("agent_system", task, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
