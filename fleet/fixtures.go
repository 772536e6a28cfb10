package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing/fstest"
)

// A set's fixtures (package fixture: sample inputs with what their output
// must be, and the golden files and tokenizer configs they name) live in
// its fixtures directory and travel with it, so the registry can tell
// whether a set about to be promoted passes them (see WithGate). They are
// not part of the set's digest — hosts serve the same prompts whatever
// the fixtures say — but are layers of the same manifest, of their own
// media type, MediaTypeFixture.
const (
	// FixturesDir is the directory of a set's fixtures, at its root
	// (fixture.Dir).
	FixturesDir = "fixtures"
	// MediaTypeFixture is the media type of a fixtures file's layer.
	MediaTypeFixture = "application/vnd.promptkit.set.fixture.v1"
)

// loadFixtures reads every regular file under fsys's fixtures directory,
// but those the set itself uses (files, which the digest covers).
func loadFixtures(fsys fs.FS, files map[string][]byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	var size int64
	err := fs.WalkDir(fsys, FixturesDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == FixturesDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll // a set without fixtures
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil // directories; a symlink is not followed
		}
		if _, ok := files[p]; ok {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		size += info.Size()
		switch {
		case len(out) >= MaxFiles:
			return fmt.Errorf("%w: more than %d fixture files", ErrNotSet, MaxFiles)
		case info.Size() > MaxFileBytes:
			return fmt.Errorf("%w: %s is %d bytes, more than %d", ErrNotSet, p, info.Size(), MaxFileBytes)
		case size > MaxSetBytes:
			return fmt.Errorf("%w: the fixture files are more than %d bytes together", ErrNotSet, MaxSetBytes)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		out[p] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: fixtures: %w", err)
	}
	return out, nil
}

// isFixture reports whether a layer's path is in the fixtures directory.
func isFixture(p string) bool { return strings.HasPrefix(p, FixturesDir+"/") }

// FS is the set as a file system: its files and its fixtures. Load it
// with manager.New, and its fixtures with fixture.Load.
func (s *Set) FS() fs.FS {
	mfs := fstest.MapFS{}
	for _, files := range []map[string][]byte{s.Files, s.Fixtures} {
		for p, data := range files {
			mfs[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
	}
	return mfs
}

// fixturePaths are the paths of the set's fixture files, sorted.
func (s *Set) fixturePaths() []string {
	return slices.Sorted(maps.Keys(s.Fixtures))
}

// checkFixturePath refuses a fixture layer outside the fixtures directory.
func checkFixturePath(p string) error {
	if !isFixture(p) || path.Clean(p) != p {
		return fmt.Errorf("fixture file %q is not in %s/", p, FixturesDir)
	}
	return nil
}
