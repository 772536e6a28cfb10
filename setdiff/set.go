package setdiff

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Set is one side of a diff: a template set, loaded and checked, with its
// fixtures and the files it is made of.
type Set struct {
	// Name says where the set comes from, for people: a directory,
	// "git:REF", a registry reference.
	Name string
	fsys fs.FS
	m    *manager.Manager
	// suite is the set's fixtures.
	suite *fixture.Suite
	// files are the set's files — every file the manager read — by path.
	files map[string][]byte
}

// Open loads the template set at the root of fsys, as manager.New does
// (every check), and its fixtures (fixture.Load). name names it in the
// report. Close it when done.
func Open(name string, fsys fs.FS, opts ...fixture.Option) (*Set, error) {
	rec := &recordingFS{fsys: fsys, read: map[string]bool{}}
	m, err := manager.New(rec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	suite, err := fixture.Load(fsys, opts...)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &Set{Name: name, fsys: fsys, m: m, suite: suite, files: map[string][]byte{}}
	for _, p := range rec.paths() {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s.files[p] = data
	}
	return s, nil
}

// Digest is the set's digest (manager.Manager.Digest).
func (s *Set) Digest() string { return s.m.Digest() }

// Manager is the set's manager.
func (s *Set) Manager() *manager.Manager { return s.m }

// Fixtures are the set's fixtures.
func (s *Set) Fixtures() *fixture.Suite { return s.suite }

// Close closes the set's manager.
func (s *Set) Close() error { return s.m.Close() }

// recordingFS passes reads through and remembers the regular files read,
// so a load says which files make a set without knowing how the manager
// reads them.
type recordingFS struct {
	fsys fs.FS
	mu   sync.Mutex
	read map[string]bool
}

func (r *recordingFS) Open(name string) (fs.File, error) {
	f, err := r.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		r.mu.Lock()
		r.read[name] = true
		r.mu.Unlock()
	}
	return f, nil
}

func (r *recordingFS) paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.read))
}
