package setdiff

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/service"
)

// Report is what changed from set A to set B.
type Report struct {
	A SetInfo `json:"a"`
	B SetInfo `json:"b"`
	// Templates are the templates added, removed or changed, by name.
	Templates []TemplateDiff `json:"templates"`
	// Files are the other files of the sets that changed: index.json,
	// included files, schema files.
	Files []FileDiff `json:"files"`
	// Changes are the contract's changes, each classed by its rule.
	Changes []Change `json:"changes"`
	// Rendered is every fixture's output before and after, by fixture ID.
	Rendered []Rendered `json:"rendered"`
	// Notes say what could not be compared, and why.
	Notes []string `json:"notes"`
}

// SetInfo names one side.
type SetInfo struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// The status of a template, a file or a fixture from A to B.
const (
	Added     = "added"
	Removed   = "removed"
	Changed   = "changed"
	Unchanged = "unchanged"
)

// TemplateDiff is one template added, removed or changed.
type TemplateDiff struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Path is the template's file in B (in A when removed); OldPath its
	// file in A when it moved.
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	// Diff is the unified diff of the template's file ("" when only a
	// file it includes changed: see Files).
	Diff string `json:"diff"`
}

// FileDiff is one other file of the sets added, removed or changed.
type FileDiff struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Diff   string `json:"diff"`
}

// Rendered is one fixture's output in A and in B.
type Rendered struct {
	// Fixture is the fixture's ID (fixture.Fixture.ID); Kind and Target
	// what it goes through.
	Fixture string `json:"fixture"`
	Kind    string `json:"kind"`
	Target  string `json:"target"`
	// Status is Changed or Unchanged (the outputs), or Added or Removed
	// (the fixture itself, which is rendered in both sets all the same).
	Status string `json:"status"`
	// Input is the fixture's input in B (in A when only A has it);
	// InputChanged is true when A's differs, and InputBefore is then A's.
	// Each set renders its own version of the fixture, or the other's
	// where it has none.
	Input        json.RawMessage `json:"input"`
	InputChanged bool            `json:"input_changed"`
	InputBefore  json.RawMessage `json:"input_before,omitempty"`
	Before       Outcome         `json:"before"`
	After        Outcome         `json:"after"`
	// Diff is the unified diff of the outputs ("" when unchanged).
	Diff string `json:"diff"`
	// Tokens are the outputs' numbers of tokens, with a counter
	// (WithCount).
	Tokens *TokenDelta `json:"tokens,omitempty"`
}

// Outcome is what a fixture rendered in one set: its text, or its error.
type Outcome struct {
	Text  string `json:"text"`
	Error string `json:"error,omitempty"`
	// Kind is the error's kind (service.ErrorKind), or "unknown_template"
	// and "unknown_builder" when the set lacks what the fixture goes
	// through.
	Kind string `json:"kind,omitempty"`
}

// TokenDelta is a fixture's number of tokens before and after.
type TokenDelta struct {
	Before int `json:"before"`
	After  int `json:"after"`
	Delta  int `json:"delta"`
}

// Breaking counts the breaking changes.
func (r *Report) Breaking() int {
	n := 0
	for _, c := range r.Changes {
		if c.Class == Breaking {
			n++
		}
	}
	return n
}

// Option configures Compare.
type Option func(*config)

type config struct {
	count func(string) (int, error)
}

// WithCount counts the tokens of every rendered output (see
// fixture.WithCount), so Rendered carries their numbers and deltas.
func WithCount(count func(text string) (int, error)) Option {
	return func(c *config) { c.count = count }
}

// Compare compares set a (before) with set b (after): the templates and
// files that changed, with unified diffs; the contract's changes, each
// found and classed by a rule (see Rules); and every fixture of either
// set rendered in both.
func Compare(ctx context.Context, a, b *Set, opts ...Option) (*Report, error) {
	cfg := &config{}
	for _, o := range opts {
		o(cfg)
	}
	r := &Report{A: SetInfo{a.Name, a.Digest()}, B: SetInfo{b.Name, b.Digest()},
		Templates: []TemplateDiff{}, Files: []FileDiff{}, Changes: []Change{}, Rendered: []Rendered{}, Notes: []string{}}
	r.sources(a, b)

	c := &comparer{ra: newSchemaReader(a.fsys), rb: newSchemaReader(b.fsys), seen: map[string]bool{}}
	c.compareContracts(contracts(a), contracts(b))
	r.Changes = append(r.Changes, c.changes...)
	r.Notes = append(r.Notes, c.notes...)

	rendered, err := render(ctx, a, b, cfg)
	if err != nil {
		return nil, err
	}
	r.Rendered = rendered
	return r, nil
}

func contracts(s *Set) map[string]*Template {
	out := map[string]*Template{}
	for _, t := range s.m.Templates() {
		out[t.Name] = contractOf(t)
	}
	return out
}

// sources diffs the templates' files and the sets' other files.
func (r *Report) sources(a, b *Set) {
	ta, tb := map[string]string{}, map[string]string{}
	hashA, hashB := map[string]string{}, map[string]string{}
	for _, t := range a.m.Templates() {
		ta[t.Name], hashA[t.Name] = t.Path, t.Hash
	}
	for _, t := range b.m.Templates() {
		tb[t.Name], hashB[t.Name] = t.Path, t.Hash
	}
	shown := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(union2(ta, tb))) {
		pa, inA := ta[name]
		pb, inB := tb[name]
		d := TemplateDiff{Name: name, Path: pb}
		switch {
		case !inA:
			d.Status = Added
			d.Diff = fixture.Diff("/dev/null", "b/"+pb, "", string(b.files[pb]))
		case !inB:
			d.Status, d.Path = Removed, pa
			d.Diff = fixture.Diff("a/"+pa, "/dev/null", string(a.files[pa]), "")
		case hashA[name] != hashB[name] || pa != pb:
			d.Status = Changed
			if pa != pb {
				d.OldPath = pa
			}
			d.Diff = fixture.Diff("a/"+pa, "b/"+pb, string(a.files[pa]), string(b.files[pb]))
		default:
			continue
		}
		shown[pa], shown[pb] = inA, inB
		r.Templates = append(r.Templates, d)
	}
	for _, p := range slices.Sorted(maps.Keys(union2(a.files, b.files))) {
		if shown[p] {
			continue
		}
		da, inA := a.files[p]
		db, inB := b.files[p]
		f := FileDiff{Path: p}
		switch {
		case !inA:
			f.Status, f.Diff = Added, fixture.Diff("/dev/null", "b/"+p, "", string(db))
		case !inB:
			f.Status, f.Diff = Removed, fixture.Diff("a/"+p, "/dev/null", string(da), "")
		case !bytes.Equal(da, db):
			f.Status, f.Diff = Changed, fixture.Diff("a/"+p, "b/"+p, string(da), string(db))
		default:
			continue
		}
		r.Files = append(r.Files, f)
	}
}

// render renders every fixture of either set in both: in each set its
// own version of the fixture, or the other set's where it has none, so a
// fixture only the old set has shows what the new set does to its input.
func render(ctx context.Context, a, b *Set, cfg *config) ([]Rendered, error) {
	var opts []fixture.Option
	if cfg.count != nil {
		opts = append(opts, fixture.WithCount(cfg.count))
	}
	runA, err := fixture.NewRunner(a.m, a.suite, opts...)
	if err != nil {
		return nil, err
	}
	runB, err := fixture.NewRunner(b.m, b.suite, opts...)
	if err != nil {
		return nil, err
	}
	byID := func(s *Set) map[string]*fixture.Fixture {
		out := map[string]*fixture.Fixture{}
		for _, f := range s.suite.Fixtures {
			out[f.ID()] = f
		}
		return out
	}
	inA, inB := byID(a), byID(b)
	out := []Rendered{}
	for _, id := range slices.Sorted(maps.Keys(union2(inA, inB))) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fa, fb := inA[id], inB[id]
		status := ""
		switch {
		case fa == nil:
			fa, status = fb, Added
		case fb == nil:
			fb, status = fa, Removed
		}
		out = append(out, rendered(id, fa, fb, sampleOf(runA.Run(ctx, fa)), sampleOf(runB.Run(ctx, fb)), status))
	}
	return out, nil
}

// rendered compares one fixture's samples: fa rendered before, fb after;
// status is Added or Removed, or "" to tell Changed from Unchanged.
func rendered(id string, fa, fb *fixture.Fixture, before, after Sample, status string) Rendered {
	rd := Rendered{Fixture: id, Kind: fb.Kind(), Target: fb.Target(), Input: fb.Input(), Status: status,
		Before: before.Outcome, After: after.Outcome}
	if !bytes.Equal(fa.Input(), fb.Input()) {
		rd.InputChanged, rd.InputBefore = true, fa.Input()
	}
	if rd.Status == "" {
		rd.Status = Unchanged
		if rd.Before != rd.After {
			rd.Status = Changed
		}
	}
	if rd.Before != rd.After {
		rd.Diff = fixture.Diff("before: "+id, "after: "+id, rd.Before.shown(), rd.After.shown())
	}
	if before.Tokens != nil && after.Tokens != nil {
		rd.Tokens = &TokenDelta{Before: *before.Tokens, After: *after.Tokens, Delta: *after.Tokens - *before.Tokens}
	}
	return rd
}

// outputOf is what a fixture's run rendered, or why it did not.
func outputOf(res *fixture.Result) Outcome {
	for _, f := range res.Failures {
		if f.Check == fixture.CheckTarget {
			kind := "unknown_template"
			if res.Fixture.Kind() == "builder" {
				kind = "unknown_builder"
			}
			return Outcome{Error: f.Message, Kind: kind}
		}
	}
	if res.Err != nil {
		return Outcome{Error: res.Err.Error(), Kind: service.ErrorKind(res.Err)}
	}
	return Outcome{Text: res.Output}
}

// shown is the output as its diff shows it: the text, or the error.
func (o Outcome) shown() string {
	if o.Error != "" {
		return "error (" + o.Kind + "): " + o.Error + "\n"
	}
	return o.Text
}
