package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/internal/atomicfile"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/setdiff"
)

// The preview page's fixtures (package fixture): the set's saved samples,
// to fill the form with; a new one saved from the form, when the server
// may write into the set's directory (WithFixtureWrites); and the rendered
// diff between the last two generations of the set — every fixture
// rendered at each generation, compared — so an author sees what an edit
// did to every sample at once.
//
//	GET  /v1/fixtures        the fixtures, their inputs, and whether the page may save one
//	POST /v1/fixtures        {"template", "name", "vars", "golden"}: save one
//	GET  /v1/fixtures/diff   every fixture's output in the last two generations

// WithFixtureWrites lets the preview page save the form's values as a new
// fixture of the set (POST /v1/fixtures): into fixtures/TEMPLATE.json,
// with, when asked, a golden file of the current output. It needs
// WithPreview and a set in a directory (Dir); every file is written
// atomically, through the directory's os.Root. Without it the endpoint
// answers 403 and the page hides its save form.
func WithFixtureWrites() Option {
	return func(c *config) error {
		c.writes = true
		return nil
	}
}

// renders remembers every fixture rendered at the last two generations.
type renders struct {
	work sync.Mutex // one rendering at a time
	mu   sync.Mutex // prev and cur
	prev *generationRender
	cur  *generationRender
}

// generationRender is one generation's rendering of the set's fixtures.
type generationRender struct {
	Generation uint64 `json:"generation"`
	Digest     string `json:"digest"`
	// Problems are the fixture files' problems, when they did not load.
	Problems  []string `json:"problems"`
	rendering setdiff.Rendering
}

// followRenders renders the fixtures of the set m serves now and at each
// successful reload, for the preview page's rendered diff.
func (s *Server) followRenders(m *manager.Manager) {
	if !s.cfg.preview {
		return
	}
	go s.renderGeneration(m, false)
	m.Subscribe(func(ev manager.ReloadEvent) {
		if ev.Err == nil {
			go s.renderGeneration(m, false)
		}
	})
}

// renderGeneration renders the fixtures at m's generation now, unless it
// is rendered already (again, when the fixture files changed: again).
func (s *Server) renderGeneration(m *manager.Manager, again bool) {
	s.renders.work.Lock()
	defer s.renders.work.Unlock()
	s.renders.mu.Lock()
	cur := s.renders.cur
	s.renders.mu.Unlock()
	if cur != nil && cur.Generation == m.Generation() && !again {
		return
	}
	var g *generationRender
	consistent(m, func() {
		g = &generationRender{Generation: m.Generation(), Digest: m.Digest(), Problems: []string{}}
		suite, err := fixture.Load(s.files)
		if err != nil {
			g.Problems = fixtureProblems(err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if g.rendering, err = setdiff.Render(ctx, m, suite); err != nil {
			g.Problems = []string{err.Error()}
		}
	})
	s.renders.mu.Lock()
	defer s.renders.mu.Unlock()
	switch cur := s.renders.cur; {
	case cur != nil && cur.Generation > g.Generation:
		// A newer generation was rendered first.
	case cur != nil && cur.Generation == g.Generation:
		s.renders.cur = g // the fixture files changed
	default:
		s.renders.prev, s.renders.cur = cur, g
	}
}

func fixtureProblems(err error) []string {
	var le *fixture.LoadError
	if errors.As(err, &le) {
		out := make([]string, len(le.Problems))
		for i, p := range le.Problems {
			out[i] = p.Error()
		}
		return out
	}
	return []string{err.Error()}
}

// fixtureJSON is one fixture in GET /v1/fixtures.
type fixtureJSON struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	File        string          `json:"file"`
	Line        int             `json:"line"`
	Kind        string          `json:"kind"`
	Target      string          `json:"target"`
	Output      string          `json:"output"`
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input"`
}

type fixtureList struct {
	Writable bool          `json:"writable"`
	Fixtures []fixtureJSON `json:"fixtures"`
	Problems []string      `json:"problems"`
}

func (s *Server) writable() bool { return s.cfg.writes && s.root != nil }

// listFixtures serves GET /v1/fixtures: the fixture files as they are on
// disk now.
func (s *Server) listFixtures(w http.ResponseWriter, _ *http.Request) {
	out := fixtureList{Writable: s.writable(), Fixtures: []fixtureJSON{}, Problems: []string{}}
	suite, err := fixture.Load(s.files)
	if err != nil {
		out.Problems = fixtureProblems(err)
		writeJSON(w, http.StatusOK, out)
		return
	}
	for _, f := range suite.Fixtures {
		out.Fixtures = append(out.Fixtures, fixtureJSON{ID: f.ID(), Name: f.Name, File: f.File, Line: f.Line, Kind: f.Kind(),
			Target: f.Target(), Output: string(f.Output), Description: f.Description, Input: f.Input()})
	}
	writeJSON(w, http.StatusOK, out)
}

// renderDiff is the body of GET /v1/fixtures/diff.
type renderDiff struct {
	Before   *generationRender  `json:"before"`
	After    *generationRender  `json:"after"`
	Rendered []setdiff.Rendered `json:"rendered"`
}

// fixturesDiff serves GET /v1/fixtures/diff: the generation serving is
// rendered first if it is not yet.
func (s *Server) fixturesDiff(w http.ResponseWriter, _ *http.Request) {
	m := s.manager(w)
	if m == nil {
		return
	}
	s.renderGeneration(m, false)
	s.renders.mu.Lock()
	out := renderDiff{Before: s.renders.prev, After: s.renders.cur, Rendered: []setdiff.Rendered{}}
	s.renders.mu.Unlock()
	switch {
	case out.After == nil:
	case out.Before == nil:
		out.Rendered = setdiff.DiffRenderings(setdiff.Rendering{}, out.After.rendering)
	default:
		out.Rendered = setdiff.DiffRenderings(out.Before.rendering, out.After.rendering)
	}
	writeJSON(w, http.StatusOK, out)
}

// saveRequest is the body of POST /v1/fixtures.
type saveRequest struct {
	Template string          `json:"template"`
	Name     string          `json:"name"`
	Vars     json.RawMessage `json:"vars"`
	// Golden asks for a golden file of the current output beside it.
	Golden bool `json:"golden"`
}

var fixtureName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*$`)

// saveFixture serves POST /v1/fixtures: the form's values as a new
// fixture in fixtures/TEMPLATE.json, and its golden file when asked (the
// output rendered now, written first, so the fixture never names a
// missing file). Every file is written atomically, through the set's
// os.Root.
func (s *Server) saveFixture(w http.ResponseWriter, r *http.Request) {
	if !s.writable() {
		writeProblem(w, requestProblem(kindForbidden, "this server saves no fixtures: start it with a directory and --save-fixtures"), nil)
		return
	}
	b, ok := s.readBody(w, r)
	if !ok {
		return
	}
	var req saveRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeProblem(w, requestProblem(kindBadRequest, `want {"template", "name", "vars", "golden"}: `+err.Error()), nil)
		return
	}
	if !fixtureName.MatchString(req.Name) {
		writeProblem(w, requestProblem(kindBadRequest, fmt.Sprintf("%q is not a fixture name (letters, digits, _, . and -)", req.Name)), nil)
		return
	}
	m := s.manager(w)
	if m == nil {
		return
	}
	if _, found := m.Lookup(req.Template); !found {
		writeError(w, &manager.Error{Kind: manager.ErrUnknownTemplate, Template: req.Template, Msg: fmt.Sprintf("unknown template %q", req.Template)})
		return
	}
	var vars map[string]any
	if len(bytes.TrimSpace(req.Vars)) > 0 {
		v, err := manager.DecodeJSON(req.Vars)
		if vars, ok = v.(map[string]any); err != nil || !ok {
			writeProblem(w, requestProblem(kindBadRequest, `"vars" must be a JSON object of variables`), nil)
			return
		}
	}
	// The output it renders now: a fixture of a render that fails is no
	// sample worth keeping, and a golden file needs it.
	fx := fixture.New{Name: req.Name, Template: req.Template, Output: fixture.Text, Vars: req.Vars}
	out, err := m.Render(req.Template, vars)
	if errors.Is(err, manager.ErrChatTemplate) {
		var msgs []manager.Message
		if msgs, err = m.RenderMessages(req.Template, vars); err == nil {
			fx.Output = fixture.Messages
			out, err = fixture.MarshalMessages(msgs)
		}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	file := path.Join(fixture.Dir, req.Template+".json")
	golden := ""
	if req.Golden {
		ext := ".txt"
		if fx.Output == fixture.Messages {
			ext = ".json"
		}
		fx.Golden = path.Join("golden", req.Template, req.Name+ext)
		golden = path.Join(fixture.Dir, fx.Golden)
	}
	old, err := fs.ReadFile(s.files, file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		writeProblem(w, requestProblem(kindConflict, err.Error()), nil)
		return
	}
	data, err := fixture.AddFixture(file, old, fx)
	if err != nil {
		writeProblem(w, requestProblem(kindConflict, err.Error()), nil)
		return
	}
	if golden != "" {
		if _, err := fs.Stat(s.files, golden); err == nil {
			writeProblem(w, requestProblem(kindConflict, golden+" exists already: pick another name"), nil)
			return
		}
		if err := s.writeSetFile(golden, []byte(out)); err != nil {
			writeProblem(w, requestProblem(kindConflict, err.Error()), nil)
			return
		}
	}
	if err := s.writeSetFile(file, data); err != nil {
		writeProblem(w, requestProblem(kindConflict, err.Error()), nil)
		return
	}
	s.cfg.log.Info("fixture saved", "file", file, "fixture", req.Name, "golden", golden)
	s.renderGeneration(m, true) // the new fixture joins the rendering
	writeJSON(w, http.StatusCreated, map[string]any{"id": path.Base(req.Template) + "/" + req.Name, "file": file, "golden": golden})
}

// writeSetFile writes a file of the set's directory atomically.
func (s *Server) writeSetFile(name string, data []byte) error {
	if d := path.Dir(name); d != "." {
		if err := s.root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
			return err
		}
	}
	return atomicfile.WriteIn(s.root, filepath.FromSlash(name), data, 0o644)
}
