package manager

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
)

// Manager loads a template set and renders its templates. It is safe for
// concurrent use: renders read one immutable snapshot of the set through
// an atomic pointer and take no lock.
type Manager struct {
	cfg  *config
	fsys fs.FS
	root *os.Root // set by Open; closed by Close
	cur  atomic.Pointer[snapshot]

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
	if fsys == nil {
		return nil, fmt.Errorf("%w: nil fs.FS", ErrTemplate)
	}
	m := &Manager{cfg: cfg, fsys: fsys}
	s, err := load(fsys, cfg)
	if err != nil {
		return nil, err
	}
	s.gen = 1
	m.cur.Store(s)
	cfg.logger.Info("promptkit: template set loaded", "templates", len(s.names), "generation", s.gen)
	return m, nil
}

// Open loads the template set in the directory dir (index.json at its
// root). Files are read through os.Root, so neither a path nor a symlink
// can reach outside dir.
func Open(dir string, opts ...Option) (*Manager, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &LoadError{Problems: []*Error{{Kind: ErrTemplate, Path: dir, Msg: "cannot open the template directory", Err: cleanFSErr(err)}}}
	}
	m, err := New(root.FS(), opts...)
	if err != nil {
		root.Close()
		return nil, err
	}
	m.root = root
	return m, nil
}

// Close releases the manager's resources. Renders after Close still use
// the last loaded set.
func (m *Manager) Close() error {
	var err error
	m.closeOnce.Do(func() {
		m.closed.Store(true)
		if m.root != nil {
			err = m.root.Close()
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
	}
	return out
}

// Lookup describes one template.
func (m *Manager) Lookup(name string) (Template, bool) {
	c, ok := m.cur.Load().templates[name]
	if !ok {
		return Template{}, false
	}
	return c.info.clone(), true
}

func (t Template) clone() Template {
	t.Variables = append([]Variable(nil), t.Variables...)
	return t
}

// Unused returns, for each template that declares variables it never
// references, those variable names (sorted). promptkit check reports them.
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
