package setdiff

import (
	"context"
	"maps"
	"slices"

	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Rendering is every fixture of one set rendered on it, by fixture ID: a
// generation of a set as the preview page remembers it, to show what the
// next one changed.
type Rendering map[string]Sample

// Sample is one fixture rendered.
type Sample struct {
	Fixture *fixture.Fixture
	Outcome Outcome
	// Tokens is the output's number of tokens, with a counter.
	Tokens *int
}

func sampleOf(res *fixture.Result) Sample {
	return Sample{Fixture: res.Fixture, Outcome: outputOf(res), Tokens: res.Tokens}
}

// Render renders every fixture of suite on the set of m.
func Render(ctx context.Context, m *manager.Manager, suite *fixture.Suite, opts ...Option) (Rendering, error) {
	cfg := &config{}
	for _, o := range opts {
		o(cfg)
	}
	var fopts []fixture.Option
	if cfg.count != nil {
		fopts = append(fopts, fixture.WithCount(cfg.count))
	}
	r, err := fixture.NewRunner(m, suite, fopts...)
	if err != nil {
		return nil, err
	}
	out := Rendering{}
	for _, f := range suite.Fixtures {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[f.ID()] = sampleOf(r.Run(ctx, f))
	}
	return out, nil
}

// DiffRenderings compares two renderings of a set — two generations of
// one directory, say — fixture by fixture, as Compare's Rendered: a
// fixture only before is Removed (rendered before only), one only after
// Added.
func DiffRenderings(before, after Rendering) []Rendered {
	out := []Rendered{}
	for _, id := range slices.Sorted(maps.Keys(union2(before, after))) {
		b, inB := before[id]
		a, inA := after[id]
		switch {
		case !inB:
			out = append(out, rendered(id, a.Fixture, a.Fixture, Sample{}, a, Added))
		case !inA:
			out = append(out, rendered(id, b.Fixture, b.Fixture, b, Sample{}, Removed))
		default:
			out = append(out, rendered(id, b.Fixture, a.Fixture, b, a, ""))
		}
	}
	return out
}
