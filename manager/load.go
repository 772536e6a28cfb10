package manager

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/flosch/pongo2/v6"
)

// A snapshot is one loaded, fully checked template set. It is immutable:
// a reload builds a new one and swaps it in whole.
type snapshot struct {
	templates map[string]*compiled
	names     []string // sorted
	gen       uint64
	overrides map[string]override // templates replaced by Override (override.go)
	digest    string              // of the files loaded (digest.go)
}

// compiled is one template, ready to render.
type compiled struct {
	info     Template
	pt       *pongo2.Template
	source   string // the pongo2 source, for debugging and benchmarks
	required []string
	declared map[string]*Variable
	defaults map[string]any // optional variables with a default
	unused   []string       // declared but never referenced
	chat     bool           // has {% chat %} blocks: renders with RenderMessages
	run      *rootCapture   // the body and execution context a render runs (captured at load)
}

// loader holds the state of one load: parsed files are shared between
// the entries that use or include them.
type loader struct {
	fsys     fs.FS
	cfg      *config
	set      *pongo2.TemplateSet
	parsed   map[string]parsedFile
	files    map[string][]byte // every file read, for the set's digest
	problems []*Error
}

type parsedFile struct {
	nodes []node
	src   string
	err   error
}

// load reads index.json and every template from fsys, and checks and
// compiles them all. A set with any problem is refused: the error is a
// *LoadError listing every problem.
func load(fsys fs.FS, cfg *config) (*snapshot, error) {
	l := &loader{fsys: fsys, cfg: cfg, set: newPongoSet(), parsed: map[string]parsedFile{}, files: map[string][]byte{}}
	data, err := fs.ReadFile(fsys, IndexFile)
	if err != nil {
		return nil, &LoadError{Problems: []*Error{{Kind: ErrIndex, Path: IndexFile, Msg: "cannot read the index", Err: cleanFSErr(err)}}}
	}
	l.files[IndexFile] = data
	entries, problems := parseIndex(data)
	l.problems = problems
	s := &snapshot{templates: map[string]*compiled{}}
	for _, e := range entries {
		if c := l.compileEntry(e); c != nil {
			s.templates[e.Name] = c
			s.names = append(s.names, e.Name)
		}
	}
	if len(l.problems) > 0 {
		return nil, &LoadError{Problems: l.problems}
	}
	sort.Strings(s.names)
	s.digest = fileDigest(l.files)
	for _, c := range s.templates {
		c.info.SetDigest = s.digest
	}
	return s, nil
}

func (l *loader) problem(e *Error) { l.problems = append(l.problems, e) }

// readFile reads and parses one file once per load.
func (l *loader) readFile(p string) parsedFile {
	if pf, ok := l.parsed[p]; ok {
		return pf
	}
	data, err := fs.ReadFile(l.fsys, p)
	var pf parsedFile
	if err != nil {
		pf.err = err
	} else {
		if l.files != nil {
			l.files[p] = data
		}
		pf.src = string(data)
		pf.nodes, pf.err = parseTemplate(pf.src)
	}
	l.parsed[p] = pf
	return pf
}

func (l *loader) compileEntry(e Template) *compiled {
	return l.compileParsed(e, l.readFile(e.Path))
}

// compileParsed compiles entry e from its parsed top-level file pf.
func (l *loader) compileParsed(e Template, pf parsedFile) *compiled {
	nproblems := len(l.problems)
	if pf.err != nil {
		l.fileError(e.Name, e.Path, pf.err)
		return nil
	}
	h := sha256.New()
	h.Write([]byte(pf.src))
	nodes, ok := l.resolveIncludes(e.Name, e.Path, pf.nodes, []string{e.Path}, h)
	if !ok {
		return nil
	}
	if err := checkDepth(nodes, 0); err != nil {
		l.syntaxProblem(e.Name, e.Path, err)
		return nil
	}
	e.Hash = hex.EncodeToString(h.Sum(nil))
	c := &compiled{info: e, declared: map[string]*Variable{}, defaults: map[string]any{}}
	var chatProblems []*Error
	c.chat, chatProblems = checkChat(nodes, e.Path)
	for _, p := range chatProblems {
		p.Template = e.Name
		l.problem(p)
	}
	declared := map[string]bool{}
	for i := range e.Variables {
		v := &c.info.Variables[i]
		declared[v.Name] = true
		c.declared[v.Name] = v
		if v.Required {
			c.required = append(c.required, v.Name)
		}
		if v.HasDefault {
			c.defaults[v.Name] = v.Default
		}
	}
	sort.Strings(c.required)
	used, undeclared := analyze(nodes, e.Path, declared)
	for _, r := range undeclared {
		l.problem(&Error{Kind: ErrUndeclaredVariable, Template: e.Name, Path: r.file, Line: r.p.line, Col: r.p.col, Variables: []string{r.name},
			Msg: fmt.Sprintf("undeclared variable %q (declare it in index.json under %q)", r.name, e.Name)})
	}
	for _, v := range e.Variables {
		if !used[v.Name] {
			c.unused = append(c.unused, v.Name)
		}
	}
	src, err := translate(nodes)
	if err != nil {
		l.syntaxProblem(e.Name, e.Path, err)
		return nil
	}
	if len(l.problems) > nproblems {
		return nil
	}
	pt, err := l.set.FromString(src)
	if err != nil {
		// The translator produced source pongo2 refused: a promptkit bug,
		// reported with pongo2's error rather than hidden.
		l.problem(&Error{Kind: ErrTemplate, Template: e.Name, Path: e.Path, Msg: "internal error: pongo2 refused the translated template", Err: err})
		return nil
	}
	run, err := captureRoot(pt)
	if err != nil {
		l.problem(&Error{Kind: ErrTemplate, Template: e.Name, Path: e.Path, Msg: "internal error: cannot prepare the translated template", Err: err})
		return nil
	}
	c.pt, c.source, c.run = pt, src, run
	return c
}

// resolveIncludes replaces every {% include %} by the parsed file, checked
// for cycles and confined to the template root.
func (l *loader) resolveIncludes(name, file string, nodes []node, stack []string, h io.Writer) ([]node, bool) {
	ok := true
	var walk func(nodes []node, file string, stack []string) []node
	walk = func(nodes []node, file string, stack []string) []node {
		out := make([]node, len(nodes))
		for i, n := range nodes {
			switch n := n.(type) {
			case *includeNode:
				inc := *n
				if err := checkPath(n.path); err != nil {
					l.problem(&Error{Kind: ErrSandbox, Template: name, Path: file, Line: n.p.line, Col: n.p.col, Msg: fmt.Sprintf("include %q: %v", n.path, err)})
					ok = false
					out[i] = &inc
					continue
				}
				p := path.Clean(n.path)
				for _, s := range stack {
					if s == p {
						l.problem(&Error{Kind: ErrTemplate, Template: name, Path: file, Line: n.p.line, Col: n.p.col, Msg: fmt.Sprintf("include cycle: %s -> %s", strings.Join(stack, " -> "), p)})
						ok = false
					}
				}
				if !ok {
					out[i] = &inc
					continue
				}
				if len(stack) >= maxIncludeDepth {
					l.problem(&Error{Kind: ErrTemplate, Template: name, Path: file, Line: n.p.line, Col: n.p.col, Msg: fmt.Sprintf("includes nested deeper than %d", maxIncludeDepth)})
					ok = false
					out[i] = &inc
					continue
				}
				pf := l.readFile(p)
				if pf.err != nil {
					l.fileError(name, p, pf.err)
					ok = false
					out[i] = &inc
					continue
				}
				fmt.Fprintf(h, "\x00%s\x00%s", p, pf.src)
				inc.path = p
				inc.body = walk(pf.nodes, p, append(stack[:len(stack):len(stack)], p))
				out[i] = &inc
			case *ifNode:
				c := *n
				c.bodies = make([][]node, len(n.bodies))
				for j, b := range n.bodies {
					c.bodies[j] = walk(b, file, stack)
				}
				if n.elseBody != nil {
					c.elseBody = walk(n.elseBody, file, stack)
				}
				out[i] = &c
			case *forNode:
				c := *n
				c.body = walk(n.body, file, stack)
				if n.elseBody != nil {
					c.elseBody = walk(n.elseBody, file, stack)
				}
				out[i] = &c
			case *withNode:
				c := *n
				c.body = walk(n.body, file, stack)
				out[i] = &c
			case *chatNode:
				c := *n
				c.file = file
				c.body = walk(n.body, file, stack)
				out[i] = &c
			case *setNode:
				c := *n
				if n.body != nil {
					c.body = walk(n.body, file, stack)
				}
				out[i] = &c
			default:
				out[i] = n
			}
		}
		return out
	}
	res := walk(nodes, file, stack)
	return res, ok
}

// checkDepth refuses templates nested deeper than maxNestingDepth blocks.
func checkDepth(nodes []node, depth int) error {
	if depth > maxNestingDepth {
		if len(nodes) > 0 {
			return &syntaxError{p: nodes[0].position(), kind: ErrTemplate, msg: fmt.Sprintf("blocks nested deeper than %d", maxNestingDepth)}
		}
		return &syntaxError{kind: ErrTemplate, msg: fmt.Sprintf("blocks nested deeper than %d", maxNestingDepth)}
	}
	for _, n := range nodes {
		var kids [][]node
		switch n := n.(type) {
		case *ifNode:
			kids = append(kids, n.bodies...)
			kids = append(kids, n.elseBody)
		case *forNode:
			kids = [][]node{n.body, n.elseBody}
		case *withNode:
			kids = [][]node{n.body}
		case *setNode:
			kids = [][]node{n.body}
		case *includeNode:
			kids = [][]node{n.body}
		case *chatNode:
			kids = [][]node{n.body}
		}
		for _, k := range kids {
			if err := checkDepth(k, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *loader) syntaxProblem(name, file string, err error) {
	var se *syntaxError
	if errors.As(err, &se) {
		l.problem(&Error{Kind: se.kind, Template: name, Path: file, Line: se.p.line, Col: se.p.col, Msg: se.msg})
		return
	}
	l.problem(&Error{Kind: ErrTemplate, Template: name, Path: file, Msg: "cannot compile", Err: err})
}

func (l *loader) fileError(name, file string, err error) {
	var se *syntaxError
	if errors.As(err, &se) {
		l.syntaxProblem(name, file, err)
		return
	}
	kind := ErrTemplate
	if strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes") {
		kind = ErrSandbox
		l.problem(&Error{Kind: kind, Template: name, Path: file, Msg: "the file is a symlink that leaves the template root", Err: cleanFSErr(err)})
		return
	}
	l.problem(&Error{Kind: kind, Template: name, Path: file, Msg: "cannot read the template", Err: cleanFSErr(err)})
}

// cleanFSErr drops the path from an fs error: the Error already names it.
func cleanFSErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func asErr[T any](err error, target *T) bool { return errors.As(err, target) }
