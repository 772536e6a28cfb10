package contextstack_test

import (
	"testing"

	. "github.com/seed-e7d2830f/promptkit/contextstack"
	"github.com/seed-e7d2830f/promptkit/message"
)

// BenchmarkAssembleRender builds the 50-layer, 100-tool stack with the
// Builder (validating tool names) and derives a request from it with the
// default template set: system prompt, tools, documents. The budget is
// 50µs per op.
func BenchmarkAssembleRender(b *testing.B) {
	m := defaultManager(b)
	layers := BenchLayers()
	base := Request{Messages: []Message{message.Text(message.RoleSystem, "old"), message.Text(message.RoleUser, "问题")}}
	b.ReportAllocs()
	for b.Loop() {
		bl := NewBuilder()
		for _, l := range layers {
			bl.Layer(l)
		}
		s, err := bl.Build()
		if err != nil {
			b.Fatal(err)
		}
		req, err := s.DeriveRequest(base, m)
		if err != nil {
			b.Fatal(err)
		}
		if len(req.Tools) != 100 || req.System == "" {
			b.Fatal("bad request")
		}
	}
}

// BenchmarkStages splits BenchmarkAssembleRender into its parts.
func BenchmarkStages(b *testing.B) {
	m := defaultManager(b)
	layers := BenchLayers()
	s, err := NewBuilder().Layer(layers[0]).Build()
	if err != nil {
		b.Fatal(err)
	}
	s = NewStack(layers...)
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bl := NewBuilder()
			for _, l := range layers {
				bl.Layer(l)
			}
			if _, err := bl.Build(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("system_prompt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.SystemPromptText(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("select_tools", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.SelectTools(Auto); err != nil {
				b.Fatal(err)
			}
		}
	})
}
