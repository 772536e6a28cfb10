package fleet

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Set is a checked template set, as it travels: its digest and exactly the
// files the digest covers (index.json and every file a template reads),
// nothing else from its directory.
type Set struct {
	// Digest is the set's digest (manager.Manager.Digest).
	Digest string
	// Templates is the number of templates.
	Templates int
	// Files maps each file's slash path, relative to the set's root, to
	// its bytes.
	Files map[string][]byte
	// Fixtures maps the path of each file of the set's fixtures directory
	// (FixturesDir) to its bytes. They travel with the set, outside its
	// digest.
	Fixtures map[string][]byte
}

// Paths returns the set's file paths: index.json first, then the others
// in byte order.
func (s *Set) Paths() []string {
	paths := slices.Sorted(maps.Keys(s.Files))
	if i := slices.Index(paths, manager.IndexFile); i > 0 {
		paths = slices.Delete(paths, i, i+1)
		paths = slices.Insert(paths, 0, manager.IndexFile)
	}
	return paths
}

// Load loads and checks the template set in dir, as promptkit check does:
// a set that does not load is refused with manager's *LoadError (every
// problem), and a set that declares variables a template never uses with
// ErrUnused. The files of its fixtures directory come along (Fixtures). Files are read through os.Root, as manager.Open reads them,
// so neither a path nor a symlink leaves dir; a ConfigMap's ..data
// symlinks are followed inside it.
func Load(dir string, opts ...manager.Option) (*Set, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("fleet: template set: %w", err)
	}
	defer root.Close()
	return loadFS(root.FS(), opts...)
}

// loadFS loads the set in fsys, recording the files the manager reads, and
// checks that those files alone make the same set.
func loadFS(fsys fs.FS, opts ...manager.Option) (*Set, error) {
	rec := &recordingFS{fsys: fsys}
	m, err := manager.New(rec, opts...)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	if err := unusedError(m); err != nil {
		return nil, err
	}
	files, err := rec.recorded()
	if err != nil {
		return nil, err
	}
	fixtures, err := loadFixtures(fsys, files)
	if err != nil {
		return nil, err
	}
	s := &Set{Digest: m.Digest(), Templates: len(m.Templates()), Files: files, Fixtures: fixtures}
	// The recorded files are what travels: they alone must make this set.
	// This fails if the set changed while it was read, or if the manager
	// ever reads a file the recorder misses.
	if err := s.verify(); err != nil {
		return nil, err
	}
	return s, nil
}

// verify loads the set from its own files and checks that it has the
// digest it claims and that it uses every file it carries.
func (s *Set) verify() error {
	mfs := fstest.MapFS{}
	for p, data := range s.Files {
		mfs[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	rec := &recordingFS{fsys: mfs}
	m, err := manager.New(rec)
	if err != nil {
		return err
	}
	defer m.Close()
	s.Templates = len(m.Templates())
	if got := m.Digest(); got != s.Digest {
		return fmt.Errorf("%w: the files make %s, not %s", ErrDigest, got, s.Digest)
	}
	used, err := rec.recorded()
	if err != nil {
		return err
	}
	var extra []string
	for p := range s.Files {
		if _, ok := used[p]; !ok {
			extra = append(extra, p)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Errorf("%w: files the set does not use: %s", ErrNotSet, strings.Join(extra, ", "))
	}
	return nil
}

// unusedError reports declared variables a template never uses, one a
// line, as promptkit check prints them.
func unusedError(m *manager.Manager) error {
	unused := m.UnusedDeclarations()
	if len(unused) == 0 {
		return nil
	}
	lines := make([]string, len(unused))
	for i, u := range unused {
		lines[i] = u.String()
	}
	return fmt.Errorf("%w:\n%s", ErrUnused, strings.Join(lines, "\n"))
}

// recordingFS passes reads through to fsys and remembers every regular
// file read successfully, so a load tells which files a set uses without
// knowing how the manager reads them: through fs.ReadFile (ReadFile here)
// or Open.
type recordingFS struct {
	fsys fs.FS

	mu     sync.Mutex
	read   map[string][]byte // contents seen by ReadFile
	opened map[string]bool   // regular files opened
}

func (r *recordingFS) Open(name string) (fs.File, error) {
	f, err := r.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		r.mu.Lock()
		if r.opened == nil {
			r.opened = map[string]bool{}
		}
		r.opened[name] = true
		r.mu.Unlock()
	}
	return f, nil
}

func (r *recordingFS) ReadFile(name string) ([]byte, error) {
	data, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.read == nil {
		r.read = map[string][]byte{}
	}
	r.read[name] = data
	r.mu.Unlock()
	return data, nil
}

// recorded returns every file read, with its contents (read again for a
// file only opened).
func (r *recordingFS) recorded() (map[string][]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := maps.Clone(r.read)
	if out == nil {
		out = map[string][]byte{}
	}
	for name := range r.opened {
		if _, ok := out[name]; ok {
			continue
		}
		data, err := fs.ReadFile(r.fsys, name)
		if err != nil {
			return nil, fmt.Errorf("fleet: template set: %w", err)
		}
		out[name] = data
	}
	if _, ok := out[manager.IndexFile]; !ok {
		return nil, fmt.Errorf("%w: index.json was not read", ErrNotSet)
	}
	return out, nil
}
