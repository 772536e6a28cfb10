package manager

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/seed-e7d2830f/promptkit/internal/watch"
)

// Manager loads a template set and renders its templates. It is safe for
// concurrent use: renders read one immutable snapshot of the set through
// an atomic pointer and take no lock.
type Manager struct {
	cfg     *config
	fsys    fs.FS
	dir     string   // absolute template directory; set by Open, reloads re-open it
	root    *os.Root // set by Open; closed by Close
	cur     atomic.Pointer[snapshot]
	w       *watch.Watcher // set by Open with WithWatch; stopped by Close
	reloads reloadState

	closeOnce sync.Once
	closed    atomic.Bool
}

// New loads the template set whose index.json is at the root of fsys. The
// whole set is compiled and checked; a set with any problem is refused
// with a *LoadError listing every problem.
func New(fsys fs.FS, opts ...Option) (*Manager, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.watch {
		return nil, fmt.Errorf("%w: WithWatch needs a directory on disk: use Open (or call Reload)", ErrTemplate)
	}
	return newManager(fsys, cfg)
}

func newManager(fsys fs.FS, cfg *config) (*Manager, error) {
	if fsys == nil {
		return nil, fmt.Errorf("%w: nil fs.FS", ErrTemplate)
	}
	m := &Manager{cfg: cfg, fsys: fsys}
	m.reloads.init()
	s, err := load(fsys, cfg, nil, nil)
	if err != nil {
		return nil, err
	}
	s.gen = 1
	m.cur.Store(s)
	cfg.logger.Info("promptkit: template set loaded", "templates", len(s.names), "generation", s.gen, "digest", s.digest)
	return m, nil
}

// Open loads the template set in the directory dir (index.json at its
// root). Files are read through os.Root, so neither a path nor a symlink
// can reach outside dir. With WithWatch the set stays live.
func Open(dir string, opts ...Option) (*Manager, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	root, err := openRoot(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrTemplate, dir, err)
	}
	var w *watch.Watcher
	if cfg.watch {
		// Watch before loading, so a change made during the load is seen.
		w, err = watch.New(abs, watch.Options{Debounce: cfg.debounce, MaxWait: cfg.maxWait,
			PollInterval: cfg.pollInterval, Logger: cfg.logger, NewPlatform: cfg.newPlatformWatcher})
		if err != nil {
			root.Close()
			return nil, fmt.Errorf("%w: %v (WithPollInterval polls instead)", ErrTemplate, err)
		}
	}
	m, err := newManager(newRootFS(root), cfg)
	if err != nil {
		w.Stop()
		root.Close()
		return nil, err
	}
	m.dir, m.root = abs, root
	if w != nil {
		m.w = w
		w.Start(m.watchChanged) // settle.go
	}
	return m, nil
}

// Close stops watching, waits for the watcher's goroutine to end and
// releases the manager's resources. Renders after Close still use the last
// loaded set; Reload returns ErrClosed. Do not call Close from a Subscribe
// function: it would wait for itself.
func (m *Manager) Close() error {
	var err error
	m.closeOnce.Do(func() {
		m.closed.Store(true)
		err = m.w.Stop()
		if m.root != nil {
			err = errors.Join(err, m.root.Close())
		}
	})
	return err
}

// Templates describes every template of the set, sorted by name.
func (m *Manager) Templates() []Template {
	s := m.cur.Load()
	out := make([]Template, len(s.names))
	for i, n := range s.names {
		out[i] = s.templates[n].info.clone()
		out[i].SetDigest = s.digest
	}
	return out
}

// Lookup describes one template.
func (m *Manager) Lookup(name string) (Template, bool) {
	s := m.cur.Load()
	c, ok := s.templates[name]
	if !ok {
		return Template{}, false
	}
	t := c.info.clone()
	t.SetDigest = s.digest
	return t, true
}

func (t Template) clone() Template {
	t.Variables = append([]Variable(nil), t.Variables...)
	t.Contract = t.Contract.clone()
	return t
}

// SchemaFiles returns the files of the set that the typed variables'
// schemas reference with $ref (directly or through one another), as the
// set's slash paths, sorted: what a client in another language needs
// beside index.json to validate its values before it calls.
func (m *Manager) SchemaFiles() []string {
	return slices.Clone(m.cur.Load().schemaFiles)
}

// Unused returns, for each template that declares variables it never
// references, those variable names in index.json order.
func (m *Manager) Unused() map[string][]string {
	s := m.cur.Load()
	out := map[string][]string{}
	for _, n := range s.names {
		if u := s.templates[n].unused; len(u) > 0 {
			out[n] = append([]string(nil), u...)
		}
	}
	return out
}

// UnguardedReads lists, by template name, every place a strict template
// reads an optional variable that has no default without a guard (is
// defined, default(…), inside {% if x is defined %}…): a render that
// does not pass the variable fails there with ErrUndefined. Each is an
// *Error of kind ErrUndefined with its file, line and column. They do
// not stop the set from loading; promptkit check reports them.
func (m *Manager) UnguardedReads() []*Error {
	s := m.cur.Load()
	var out []*Error
	for _, n := range s.names {
		out = append(out, s.templates[n].unguarded...)
	}
	return out
}

// Files returns every file of the set the load read — index.json, each
// template, every file one includes, imports or extends, and the
// schemas' files — as slash paths, sorted.
func (m *Manager) Files() []string {
	return slices.Clone(m.cur.Load().paths)
}

// UnusedDeclarations is Unused with each template's file, sorted by
// template name: what promptkit check prints.
func (m *Manager) UnusedDeclarations() []UnusedDeclaration {
	s := m.cur.Load()
	var out []UnusedDeclaration
	for _, n := range s.names {
		c := s.templates[n]
		if len(c.unused) > 0 {
			out = append(out, UnusedDeclaration{Template: n, Path: c.info.Path, Variables: slices.Clone(c.unused)})
		}
	}
	return out
}
