package jinjasuite

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"testing/fstest"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Request is one render (or compile) the shim asks for: a template set
// (the files of the Jinja2 environment's loader, and the template itself),
// the environment's options, and the context.
type Request struct {
	// Op is "compile" (load the set: what Jinja2 does at from_string and
	// get_template) or "render".
	Op string `json:"op"`
	// Files are the set's templates by path (the loader's names).
	Files map[string]string `json:"files"`
	// Entry is the path of the template to compile or render.
	Entry   string  `json:"entry"`
	Options Options `json:"options"`
	// Context holds the render's variables, each a tagged value
	// (values.go). Compile ignores it.
	Context map[string]json.RawMessage `json:"context"`
}

// Options are the Jinja2 environment settings promptkit has, each mapped
// to the manager's option of the same name.
type Options struct {
	TrimBlocks          bool `json:"trim_blocks"`
	LStripBlocks        bool `json:"lstrip_blocks"`
	KeepTrailingNewline bool `json:"keep_trailing_newline"`
	// Undefined is the set's "undefined" setting: "lenient" for Jinja2's
	// default Undefined, "strict" for its StrictUndefined.
	Undefined string `json:"undefined"`
}

// Response is the output of a render, or the error promptkit gave.
type Response struct {
	Output *string  `json:"output,omitempty"`
	Error  *Failure `json:"error,omitempty"`
}

// Failure is promptkit's error, classed as the Jinja2 exception it stands
// for (classify.go).
type Failure struct {
	// Kind is a Jinja2 or Python exception class (TemplateSyntaxError,
	// UndefinedError, TypeError…), "PromptkitError" for an error that is
	// none of them, or "NotApplicable" when the request asks for
	// something promptkit cannot be given (Message says what).
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Name is the template the error concerns (a missing one for
	// TemplateNotFound), Line its line when known.
	Name string `json:"name,omitempty"`
	Line int    `json:"line,omitempty"`
	// Parse says the template itself does not parse: compile found the
	// error before any check.
	Parse bool `json:"parse,omitempty"`
}

// entryName is the index.json entry of the template a request renders.
const entryName = "t"

// Serve answers requests read from r, one JSON object a line, with one
// JSON response a line on w, until r ends.
func Serve(r io.Reader, w io.Writer) error {
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 0, 1<<16), 64<<20)
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var req Request
		var resp Response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			resp.Error = &Failure{Kind: "HarnessError", Message: "bad request: " + err.Error()}
		} else {
			resp = Handle(req)
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return in.Err()
}

// Handle compiles or renders one request through a manager loaded from
// an in-memory set: index.json names one entry, the requested template,
// and declares the context's names and every name the template reads that
// nothing in it binds (in Jinja2 any name may come from the context; a
// name the render does not pass is undefined, as Jinja2's is).
func Handle(req Request) Response {
	vars := map[string]any{}
	unsendable := map[string]string{} // why, by name
	for name, raw := range req.Context {
		v, err := DecodeValue(raw)
		var na errUnsendable
		switch {
		case errors.As(err, &na):
			unsendable[name] = string(na)
			continue
		case err != nil:
			return Response{Error: &Failure{Kind: "NotApplicable", Message: fmt.Sprintf("the variable %s: %v", name, err)}}
		}
		vars[name] = v
	}
	if req.Op == "compile" {
		if _, err := jinja.Parse(req.Entry, req.Files[req.Entry], req.Options.jinja()); err != nil {
			f := classify(err, req.Entry, true)
			f.Parse = true
			return Response{Error: f}
		}
	}
	// A value the shim cannot send is declared, not passed: if the
	// template reads it (a declaration it uses), the render is not
	// applicable. When the set does not load, it loads again without
	// them: if the front end then finds it reads one, the failure is not
	// promptkit's to answer for either.
	names := slices.Sorted(maps.Keys(vars))
	all := append(slices.Clone(names), slices.Sorted(maps.Keys(unsendable))...)
	m, _, f := load(req, all)
	if f != nil && len(unsendable) > 0 {
		var added []string
		m, added, f = load(req, names)
		for _, name := range added {
			if why, ok := unsendable[name]; ok {
				return Response{Error: &Failure{Kind: "NotApplicable", Message: why}}
			}
		}
	}
	if f != nil {
		return Response{Error: f}
	}
	if len(unsendable) > 0 {
		unused := map[string]bool{}
		for _, u := range m.UnusedDeclarations() {
			for _, v := range u.Variables {
				unused[v] = true
			}
		}
		for _, name := range slices.Sorted(maps.Keys(unsendable)) {
			if !unused[name] && declaresVar(m, name) {
				return Response{Error: &Failure{Kind: "NotApplicable", Message: unsendable[name]}}
			}
		}
	}
	if req.Op == "compile" {
		return Response{}
	}
	out, err := m.Render(entryName, vars)
	if err != nil {
		return Response{Error: classify(err, req.Entry, false)}
	}
	return Response{Output: &out}
}

// undefined is the index's "undefined" setting: lenient unless asked.
func (o Options) undefined() string {
	if o.Undefined == "strict" {
		return "strict"
	}
	return "lenient"
}

func (o Options) jinja() jinja.Options {
	return jinja.Options{TrimBlocks: o.TrimBlocks, LStripBlocks: o.LStripBlocks, KeepTrailingNewline: o.KeepTrailingNewline}
}

// declaresVar reports whether the entry of m declares name.
func declaresVar(m *manager.Manager, name string) bool {
	t, _ := m.Lookup(entryName)
	return slices.ContainsFunc(t.Variables, func(v manager.Variable) bool { return v.Name == name })
}

// load loads the request's set, declaring names and then every name the
// front end finds undeclared (added), until it finds none.
func load(req Request, names []string) (m *manager.Manager, added []string, f *Failure) {
	var opts []manager.Option
	if req.Options.TrimBlocks {
		opts = append(opts, manager.WithTrimBlocks())
	}
	if req.Options.LStripBlocks {
		opts = append(opts, manager.WithLStripBlocks())
	}
	if req.Options.KeepTrailingNewline {
		opts = append(opts, manager.WithKeepTrailingNewline())
	}
	declared := map[string]bool{}
	for _, n := range names {
		declared[n] = true
	}
	names = slices.Clone(names)
	var prev error // the last load's error, when names were added since
	for {
		fsys, err := setFS(req, names)
		if err != nil {
			return nil, added, &Failure{Kind: "HarnessError", Message: err.Error()}
		}
		m, err := manager.New(fsys, opts...)
		if err == nil {
			return m, added, nil
		}
		if prev != nil && errors.Is(err, manager.ErrIndex) {
			// A name the index cannot declare (reserved): the template
			// is refused for reading it.
			return nil, added, classify(prev, req.Entry, true)
		}
		var more []string
		for _, p := range manager.Problems(err) {
			if !errors.Is(p.Kind, manager.ErrUndeclaredVariable) {
				continue
			}
			for _, v := range p.Variables {
				if !declared[v] {
					declared[v] = true
					more = append(more, v)
				}
			}
		}
		if len(more) == 0 {
			return nil, added, classify(err, req.Entry, true)
		}
		prev = err
		added = append(added, more...)
		names = append(names, more...)
		sort.Strings(names)
	}
}

// setFS is the request's set: its files and an index.json whose one entry
// is the requested template, every name optional.
func setFS(req Request, names []string) (fstest.MapFS, error) {
	type variable struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	}
	vars := make([]variable, len(names))
	for i, n := range names {
		vars[i] = variable{Name: n}
	}
	index, err := json.Marshal(map[string]any{
		"version": 1,
		"templates": map[string]any{
			entryName: map[string]any{"path": req.Entry, "variables": vars, "undefined": req.Options.undefined()},
		},
	})
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{manager.IndexFile: {Data: index}}
	for p, src := range req.Files {
		if p == manager.IndexFile {
			return nil, fmt.Errorf("a template named %s", p)
		}
		fsys[p] = &fstest.MapFile{Data: []byte(src)}
	}
	return fsys, nil
}
