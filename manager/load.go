package manager

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
)

// Loading: read index.json, then for each entry parse its file with the
// Jinja front end, check it (every name declared or local, every
// construct supported, includes resolved and confined), and compile it
// with the engine. A set with any problem is refused whole, with every
// problem of every template.

// A snapshot is one loaded, fully checked template set. It is immutable:
// a reload builds a new one and swaps it in whole.
type snapshot struct {
	templates map[string]*compiled
	names     []string // sorted
	gen       uint64
	overrides map[string]override // templates replaced by Override (override.go)
	digest    string              // of the files loaded (digest.go)
	files     map[string]fileSum  // every file the set used, for the digest and for reloads that apply a change (reload_files.go)
	paths     []string            // the keys of files, sorted
	// others are the files of files that no template's sources list
	// (index.json, files read for the whole set): a change to one of
	// them reloads the set whole.
	others []string
	// schemaFiles are the files the typed variables' schemas read
	// ($ref), sorted: a subset of others.
	schemaFiles []string
	compiled    int // templates its load compiled (ReloadEvent.Compiled)
	// applies says a reload may apply a watcher's list of changed files
	// to this set instead of reading it whole (reload_files.go).
	applies bool
}

// compiled is one template, ready to render.
type compiled struct {
	info Template
	tmpl *engine.Template
	// byName indexes info.Variables by name when there are many
	// (declared); nil for the usual few, which a scan finds as fast.
	byName map[string]*Variable
	unused []string // declared but never referenced
	// unguarded are the reads of optional variables without a default
	// that no guard covers, in a strict template (UnguardedReads).
	unguarded []*Error
	chat      bool     // has {% chat %} blocks: renders with RenderMessages
	sizes     []int    // the source size of the entry's file and each file it includes
	sources   []string // the entry's file and every file it includes or tried to: what a change must touch to recompile the template
	// schemas are the typed variables' compiled schemas (schema.go).
	schemas []varSchema
	// bind maps each declared variable to its index among the engine's
	// variables, -1 when the template never reads it (compiled.check).
	bind []int
	// worst bounds the renders (worstcase.go): computed with
	// WithWorstCase or for an entry that declares a budget, else nil.
	worst *WorstCase
}

// loader holds the state of one load: files are read once and shared by
// the entries that use or include them.
type loader struct {
	fsys     fs.FS
	cfg      *config
	read     map[string]readFile
	files    map[string]fileSum // every file read, for the set's digest
	problems []*Error
	unused   []UnusedDeclaration
	prev     *snapshot // the set serving, when reloading (for the empty-file check)
	// schemas compiles the set's schemas, once each (schema.go).
	schemas *schema.Compiler
	// log, when not nil, records each file read with what it was when
	// read, for the check that nothing moved during the load (settle.go).
	log readLog
	// bundled are the call contracts' schemas checked so far, bundled
	// for providers, by file and offset; nil for one that was refused
	// (contract.go).
	bundled map[string]json.RawMessage
}

type readFile struct {
	data []byte
	err  error
}

// catalog is what the front end's checks know of the engine's builtins,
// made from the engine's own tables when a set is first loaded (not at
// start: most commands of the CLI load nothing).
var catalog = sync.OnceValue(func() *jinja.Catalog {
	c := engine.Catalog(engine.Options{})
	return &c
})

func newLoader(fsys fs.FS, cfg *config) *loader {
	return &loader{fsys: fsys, cfg: cfg, read: map[string]readFile{}, files: map[string]fileSum{}}
}

// load reads index.json and every template from fsys, and checks and
// compiles them all. A set with any problem is refused: the error is a
// *LoadError listing every problem.
func load(fsys fs.FS, cfg *config, prev *snapshot, log readLog) (*snapshot, error) {
	l := newLoader(fsys, cfg)
	l.prev, l.log = prev, log
	data, err := l.readFile(IndexFile)
	if err != nil {
		return nil, &LoadError{Problems: []*Error{l.fileProblem("", IndexFile, err, "cannot read the index")}}
	}
	data = trimBOM(data)
	tree := indexTree(data) // read once, for the entries and their contracts
	entries, problems := parseIndexTree(data, tree)
	l.problems = problems
	l.contracts(data, tree, entries)
	s := &snapshot{templates: map[string]*compiled{}}
	for _, e := range entries {
		if c := l.compileFile(e); c != nil {
			s.templates[e.Name] = c
			s.names = append(s.names, e.Name)
		}
	}
	if len(l.problems) > 0 {
		return nil, l.loadError()
	}
	sort.Strings(s.names)
	s.files = l.files
	s.paths = slices.Sorted(maps.Keys(s.files))
	s.digest = fileDigest(s.paths, s.files)
	s.others = otherFiles(s)
	if l.schemas != nil {
		s.schemaFiles = slices.Sorted(slices.Values(l.schemas.Files()))
	}
	s.compiled = len(s.templates)
	s.applies = l.cfg.watch && allPlain(fsys, s.files)
	return s, nil
}

func (l *loader) loadError() *LoadError {
	le := &LoadError{Problems: l.problems}
	if len(l.unused) > 0 {
		le.Unused = slices.SortedFunc(slices.Values(l.unused), func(a, b UnusedDeclaration) int { return strings.Compare(a.Template, b.Template) })
	}
	return le
}

func (l *loader) problem(e *Error) { l.problems = append(l.problems, e) }

// readFile reads one file of the set once per load: only a regular file,
// and only up to the size limit (checked before reading: a sparse 50 GB
// file is refused, not read). Reading never blocks on a FIFO or a device.
func (l *loader) readFile(p string) ([]byte, error) {
	if rf, ok := l.read[p]; ok {
		return rf.data, rf.err
	}
	data, fi, err := readSetFile(l.fsys, p, l.cfg.maxFileBytes)
	l.read[p] = readFile{data: data, err: err}
	if err == nil {
		l.files[p] = sumOf(data)
	}
	if l.log != nil {
		if err == nil {
			l.log[p] = readStat{size: fi.Size(), mod: fi.ModTime(), sum: l.files[p]}
		} else {
			l.log[p] = readStat{failed: true}
		}
	}
	return data, err
}

// errNotRegular and errFileSize are readSetFile's refusals.
var (
	errNotRegular = errors.New("not a regular file")
	errFileSize   = errors.New("file too large")
)

// readSetFile reads a file with the set's discipline, and returns what
// it was (size, modification time) when it was opened.
func readSetFile(fsys fs.FS, p string, max int64) ([]byte, fs.FileInfo, error) {
	f, err := openRegular(fsys, p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w (%s)", errNotRegular, describeMode(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, nil, fmt.Errorf("%w: %d bytes, over the limit of %d (WithMaxFileBytes)", errFileSize, fi.Size(), max)
	}
	// The size can change after Stat: read at most one byte more than
	// the limit, and refuse what is over it.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > max {
		return nil, nil, fmt.Errorf("%w: over the limit of %d bytes (WithMaxFileBytes)", errFileSize, max)
	}
	return data, fi, nil
}

// openRegular opens a file after checking, without opening it, that it is
// a regular file, so that a FIFO or a device is never opened (opening a
// FIFO blocks until a writer comes). The check and the open race only with
// a file replaced in between; the mode is checked again on the open file.
func openRegular(fsys fs.FS, p string) (fs.File, error) {
	if sfs, ok := fsys.(fs.StatFS); ok {
		fi, err := sfs.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%w (%s)", errNotRegular, describeMode(fi.Mode()))
		}
	}
	return fsys.Open(p)
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.String()
}

// compileFile compiles entry e from its file.
func (l *loader) compileFile(e Template) *compiled {
	data, err := l.readFile(e.Path)
	if err != nil {
		l.problem(l.fileProblem(e.Name, e.Path, err, "cannot read the template"))
		return nil
	}
	if l.emptyDuringSave(e, data) {
		return nil
	}
	return l.compileSource(e, e.Path, string(data))
}

// emptyDuringSave refuses a template file that is empty on a reload when
// the serving set had it non-empty: a save truncates a file before it
// writes it, and a reload that lands in between must not serve an empty
// prompt. The save's own write triggers the next reload.
func (l *loader) emptyDuringSave(e Template, data []byte) bool {
	if l.prev == nil || len(data) > 0 {
		return false
	}
	c, ok := l.prev.templates[e.Name]
	if !ok || c.info.Path != e.Path || len(c.sizes) == 0 || c.sizes[0] == 0 {
		return false
	}
	l.problem(&Error{Kind: ErrTemplate, Template: e.Name, Path: e.Path,
		Msg: fmt.Sprintf("the file is empty, and was %d bytes in the set serving: a save in progress? (the set serving is kept; an empty template is refused on reload)", c.sizes[0])})
	return true
}

// scanVariables is how many declared variables a template's lookups by
// name scan (compiled.declared) before it keeps them in a map.
const scanVariables = 8

// declared returns the declared variable called name, or nil.
func (c *compiled) declared(name string) *Variable {
	if c.byName != nil {
		return c.byName[name]
	}
	for i := range c.info.Variables {
		if c.info.Variables[i].Name == name {
			return &c.info.Variables[i]
		}
	}
	return nil
}

// compileSource checks and compiles source as entry e's template, read
// from file (the entry's path, or an override's name for it).
func (l *loader) compileSource(e Template, file, source string) *compiled {
	nproblems := len(l.problems)
	h := sha256.New()
	h.Write([]byte(source))
	c := &compiled{info: e, sizes: []int{len(source)}, sources: []string{file}}
	names := make([]string, 0, len(e.Variables))
	if len(c.info.Variables) > scanVariables {
		c.byName = make(map[string]*Variable, len(c.info.Variables))
	}
	for i := range c.info.Variables {
		v := &c.info.Variables[i]
		if c.byName != nil {
			c.byName[v.Name] = v
		}
		names = append(names, v.Name)
	}
	tree, err := jinja.Parse(file, source, l.cfg.jinja)
	if err != nil {
		l.frontProblems(e.Name, err)
		return nil
	}
	cfg := &jinja.Config{
		Catalog:         *catalog(),
		Declared:        names,
		DeclareHint:     fmt.Sprintf("declare it in index.json under %q", e.Name),
		Load:            l.includeLoader(h, c),
		MaxInlined:      l.cfg.maxInlined,
		MaxIncludeDepth: maxIncludeDepth,
	}
	prog, err := jinja.Check(tree, cfg)
	for _, v := range e.Variables {
		if prog != nil && !prog.Used[v.Name] {
			c.unused = append(c.unused, v.Name)
		}
	}
	if len(c.unused) > 0 {
		l.unused = append(l.unused, UnusedDeclaration{Template: e.Name, Path: e.Path, Variables: c.unused})
	}
	if err != nil {
		l.frontProblems(e.Name, err)
		return nil
	}
	l.checkTypes(c, prog)
	l.checkCache(c, prog)
	if len(l.problems) > nproblems {
		return nil
	}
	if l.cfg.worstCase {
		c.worst = worstCaseOf(c, prog)
	}
	if l.checkBudget(c, prog) {
		return nil
	}
	defaults := map[string]any{}
	for _, v := range e.Variables {
		if v.HasDefault {
			defaults[v.Name] = v.Default
		}
	}
	t, err := engine.Compile(prog, engine.Options{Defaults: defaults, Strict: !e.Lenient})
	if err != nil {
		l.problem(&Error{Kind: ErrTemplate, Template: e.Name, Path: file, Msg: err.Error()})
		return nil
	}
	if !e.Lenient {
		var optional []string
		for _, v := range e.Variables {
			if !v.Required && !v.HasDefault {
				optional = append(optional, v.Name)
			}
		}
		for _, fe := range jinja.UnguardedReads(prog, optional, catalog()) {
			c.unguarded = append(c.unguarded, &Error{Kind: ErrUndefined, Template: e.Name, Path: fe.File, Line: fe.Line, Col: fe.Col,
				Variables: []string{fe.Name}, Msg: fe.Msg})
		}
	}
	c.info.Hash = hex.EncodeToString(h.Sum(nil))
	c.tmpl, c.chat = t, prog.Chat
	c.bindVars()
	return c
}

// includeLoader is the front end's view of the set's files: each include,
// import or from reads its file (once per load), hashed into the entry's
// hash, and gets a fresh parse.
func (l *loader) includeLoader(h hash.Hash, c *compiled) func(string) (*jinja.Tree, error) {
	return func(p string) (*jinja.Tree, error) {
		if err := checkPath(p); err != nil {
			return nil, &jinja.LoadError{Kind: jinja.Sandbox, Msg: err.Error()}
		}
		p = path.Clean(p)
		// A source even when it cannot be read: an include that was
		// missing ("ignore missing") changes the template once it exists.
		c.sources = append(c.sources, p)
		data, err := l.readFile(p)
		if err != nil {
			kind := jinja.Include
			msg := cleanFSErr(err).Error()
			switch {
			case errors.Is(err, fs.ErrNotExist):
				msg = "no such file"
			case isEscape(err):
				kind, msg = jinja.Sandbox, "the file is a symlink that leaves the template root"
			}
			return nil, &jinja.LoadError{Kind: kind, Msg: msg}
		}
		fmt.Fprintf(h, "\x00%s\x00%s", p, data)
		c.sizes = append(c.sizes, len(data))
		return jinja.Parse(p, string(data), l.cfg.jinja)
	}
}

// frontProblems records the front end's problems.
func (l *loader) frontProblems(name string, err error) {
	var list jinja.ErrorList
	if !errors.As(err, &list) {
		l.problem(&Error{Kind: ErrTemplate, Template: name, Msg: err.Error()})
		return
	}
	for _, fe := range list {
		e := &Error{Kind: kindOf(fe.Kind), Template: name, Path: fe.File, Line: fe.Line, Col: fe.Col, Msg: fe.Msg}
		if fe.Kind == jinja.Undeclared || fe.Kind == jinja.Mistyped {
			e.Variables = []string{fe.Name}
		}
		l.problem(e)
	}
}

// fileProblem reports a file that cannot be read.
func (l *loader) fileProblem(name, file string, err error, what string) *Error {
	kind := ErrTemplate
	if file == IndexFile {
		kind = ErrIndex
	}
	switch {
	case isEscape(err):
		return &Error{Kind: ErrSandbox, Template: name, Path: file, Msg: "the file is a symlink that leaves the template root", Err: cleanFSErr(err)}
	case errors.Is(err, errNotRegular), errors.Is(err, errFileSize):
		return &Error{Kind: kind, Template: name, Path: file, Msg: what + ": " + err.Error()}
	}
	return &Error{Kind: kind, Template: name, Path: file, Msg: what, Err: cleanFSErr(err)}
}

// isEscape reports os.Root's refusal of a path that leaves the root.
func isEscape(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"))
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
