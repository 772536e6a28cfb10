package fleet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/atomicfile"
)

// cache is a follower's disk cache, so a host restarts with its last good
// set when the registry is down:
//
//	DIR/sets/sha256-HEX/      the files of one pulled set, by manifest digest
//	DIR/sets/sha256-HEX.json  what it is (meta), written once the files are in place
//	DIR/current -> sets/sha256-HEX   the set serving, a symlink
//
// A set directory appears whole (written beside, checked, renamed); the
// symlink moves whole (a new link renamed over the old). The manager reads
// DIR/current, and every reload opens it afresh, so moving the link and
// reloading is a swap.
type cache struct{ dir string }

// meta is what the cache knows about one set, beside its files.
type meta struct {
	Ref       string    `json:"ref"`
	Manifest  string    `json:"manifest"`
	SetDigest string    `json:"set_digest"`
	Created   time.Time `json:"created,omitzero"`
	Message   string    `json:"message,omitempty"`
	Pulled    time.Time `json:"pulled"`
}

func (c cache) name(manifest string) string { return strings.Replace(manifest, ":", "-", 1) }

func (c cache) setDir(manifest string) string {
	return filepath.Join(c.dir, "sets", c.name(manifest))
}

func (c cache) current() string { return filepath.Join(c.dir, "current") }

// lookup returns the meta of a complete cached set.
func (c cache) lookup(manifest string) (meta, bool) {
	data, err := os.ReadFile(c.setDir(manifest) + ".json")
	if err != nil {
		return meta{}, false
	}
	var m meta
	if json.Unmarshal(data, &m) != nil || m.Manifest != manifest {
		return meta{}, false
	}
	if st, err := os.Stat(c.setDir(manifest)); err != nil || !st.IsDir() {
		return meta{}, false
	}
	return m, true
}

// store writes a verified set into the cache.
func (c cache) store(s *Set, info Info, ref string) (meta, error) {
	sets := filepath.Join(c.dir, "sets")
	tmp, err := writeTemp(s, sets)
	if err != nil {
		return meta{}, err
	}
	final := c.setDir(info.Manifest)
	// A directory without its meta is the remains of an interrupted store.
	os.RemoveAll(final)
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return meta{}, fmt.Errorf("fleet: cache: %w", err)
	}
	m := meta{Ref: ref, Manifest: info.Manifest, SetDigest: info.SetDigest, Created: info.Created,
		Message: info.Message, Pulled: time.Now().UTC()}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return meta{}, err
	}
	if err := writeAtomic(final+".json", data); err != nil {
		return meta{}, err
	}
	return m, nil
}

// drop removes manifest's set from the cache.
func (c cache) drop(manifest string) {
	os.Remove(c.setDir(manifest) + ".json")
	os.RemoveAll(c.setDir(manifest))
}

// serving returns the manifest the current link points at ("" if none).
func (c cache) serving() string {
	target, err := os.Readlink(c.current())
	if err != nil {
		return ""
	}
	name := filepath.Base(target)
	if !strings.HasPrefix(name, "sha256-") {
		return ""
	}
	return strings.Replace(name, "-", ":", 1)
}

// point moves the current link to manifest's set ("" removes it) and
// returns the manifest it pointed at before.
func (c cache) point(manifest string) (prev string, err error) {
	prev = c.serving()
	if manifest == "" {
		if err := os.Remove(c.current()); err != nil && !os.IsNotExist(err) {
			return prev, fmt.Errorf("fleet: cache: %w", err)
		}
		return prev, nil
	}
	tmp := c.current() + ".new"
	os.Remove(tmp)
	if err := os.Symlink(filepath.Join("sets", c.name(manifest)), tmp); err != nil {
		return prev, fmt.Errorf("fleet: cache: %w", err)
	}
	if err := os.Rename(tmp, c.current()); err != nil {
		os.Remove(tmp)
		return prev, fmt.Errorf("fleet: cache: %w", err)
	}
	return prev, nil
}

// prune removes all but the keep most recently pulled sets; the sets named
// in protect stay whatever their age.
func (c cache) prune(keep int, protect ...string) {
	sets := filepath.Join(c.dir, "sets")
	entries, err := os.ReadDir(sets)
	if err != nil {
		return
	}
	type set struct {
		manifest string
		pulled   time.Time
	}
	var all []set
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, "sha256-") {
			continue
		}
		manifest := strings.Replace(name, "-", ":", 1)
		m, _ := c.lookup(manifest)
		all = append(all, set{manifest, m.Pulled})
	}
	slices.SortFunc(all, func(a, b set) int { return b.pulled.Compare(a.pulled) })
	for i, s := range all {
		if i < keep || slices.Contains(protect, s.manifest) {
			continue
		}
		c.drop(s.manifest)
	}
}

// writeAtomic writes data to path through a temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("fleet: cache: %w", err)
	}
	return nil
}
