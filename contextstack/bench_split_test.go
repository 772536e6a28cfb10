package contextstack

import (
	"testing"

	"github.com/seed-e7d2830f/promptkit/message"
)

// nameRenderer "renders" a template as its name: no template runs. It
// stands in for the manager where a benchmark measures the rest.
type nameRenderer struct{}

func (nameRenderer) Render(name string, _ map[string]any) (string, error) { return name, nil }

// BenchmarkAssembleWithoutRender is BenchmarkAssembleRender with a
// renderer that runs no template: what assembly costs outside
// manager.Render (building the stack, the variables each layer passes,
// tools, documents, joining the blocks). BenchmarkAssembleRender minus
// this is the cost of the eight renders themselves.
func BenchmarkAssembleWithoutRender(b *testing.B) {
	layers := benchLayers()
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
		req, err := s.DeriveRequest(base, nameRenderer{})
		if err != nil {
			b.Fatal(err)
		}
		if len(req.Tools) != 100 || req.System == "" {
			b.Fatal("bad request")
		}
	}
}
