package manager

import (
	"io/fs"
	"maps"
	"path"
	"slices"
)

// Reloads that cost what they change.
//
// A watching manager is told which files changed when the watcher can
// tell (every event of the burst named a regular file). Such a reload
// recompiles only the templates whose sources — the entry's file and
// every file it includes, imports or extends — hold a changed file, and
// keeps every other compiled template as it is: they are immutable, so
// the old set and the new share them. The digest is recomputed from the
// hashes the set keeps of its files. The new set is checked whole and
// swapped in one step, as a full reload is.
//
// A reload reads the set whole when the list is unknown, when index.json
// or another file no template lists changed (the index decides which
// templates exist and what they declare), when overrides are in force,
// or when any file the set uses is reached through a symlink: an edit
// through the link names the link's target, not the path the set read.

// otherFiles lists the files of s that no template's sources name.
func otherFiles(s *snapshot) []string {
	listed := map[string]bool{}
	for _, c := range s.templates {
		for _, p := range c.sources {
			listed[p] = true
		}
	}
	var out []string
	for p := range s.files {
		if !listed[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// allPlain reports whether every file of the set, and every directory on
// the way to it, is a plain file or directory of the root, not a symlink.
// Only a set read through os.Root can tell.
func allPlain(fsys fs.FS, files map[string]fileSum) bool {
	r, ok := fsys.(rootFS)
	if !ok {
		return false
	}
	plain := map[string]bool{}
	for p := range files {
		for q := p; q != "."; q = path.Dir(q) {
			ok, seen := plain[q]
			if !seen {
				fi, err := r.root.Lstat(q)
				ok = err == nil && fi.Mode()&fs.ModeSymlink == 0
				plain[q] = ok
			}
			if !ok {
				return false
			}
			if seen {
				break // the rest of the way was checked before
			}
		}
	}
	return true
}

// loadChanged applies a change of the files changed to prev, read from
// fsys. ok is false when it cannot (see above): the caller loads the set
// whole.
func loadChanged(fsys fs.FS, cfg *config, prev *snapshot, changed []string, log readLog) (s *snapshot, err error, ok bool) {
	if changed == nil || !prev.applies || len(prev.overrides) > 0 {
		return nil, nil, false
	}
	touched := make(map[string]bool, len(changed))
	for _, p := range changed {
		touched[p] = true
	}
	if touched[IndexFile] || slices.ContainsFunc(prev.others, func(p string) bool { return touched[p] }) {
		return nil, nil, false
	}
	l := newLoader(fsys, cfg)
	l.prev, l.log = prev, log
	// The maps are cloned, not rebuilt: with 10,000 templates a clone
	// costs a fraction of a millisecond, inserting them one by one many.
	next := &snapshot{templates: maps.Clone(prev.templates), names: prev.names, others: prev.others, schemaFiles: prev.schemaFiles, paths: prev.paths}
	sameFiles := true
	for _, name := range prev.names {
		c := prev.templates[name]
		if !slices.ContainsFunc(c.sources, func(p string) bool { return touched[p] }) {
			continue
		}
		e := c.info
		e.Hash = ""
		e.Variables = slices.Clone(e.Variables) // the new template's declared map points into its own
		nc := l.compileFile(e)
		if nc == nil {
			continue
		}
		next.templates[name] = nc
		next.compiled++
		sameFiles = sameFiles && slices.Equal(nc.sources, c.sources) && !slices.ContainsFunc(nc.sources, func(p string) bool {
			_, now := l.files[p]
			_, before := prev.files[p]
			return now != before // an ignored missing include that now exists, or the reverse
		})
	}
	if len(l.problems) > 0 {
		return nil, l.loadError(), true
	}
	if sameFiles {
		// The set reads the files it read before: only sums change.
		next.files = maps.Clone(prev.files)
		for p, f := range l.files {
			next.files[p] = f
		}
	} else {
		next.files = make(map[string]fileSum, len(prev.files))
		for _, p := range prev.others {
			next.files[p] = prev.files[p]
		}
		for name, c := range next.templates {
			// A recompiled template's files are what this load read (a
			// source it could not read is not part of the digest); the
			// others' are what the set serving read.
			from := prev.files
			if c != prev.templates[name] {
				from = l.files
			}
			for _, p := range c.sources {
				if f, ok := from[p]; ok {
					next.files[p] = f
				}
			}
		}
		next.paths = slices.Sorted(maps.Keys(next.files))
	}
	next.digest = fileDigest(next.paths, next.files)
	next.applies = allPlain(fsys, l.files)
	return next, nil, true
}
