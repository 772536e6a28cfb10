package main

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/internal/gitset"
)

// A set to compare is named one of three ways:
//
//	DIR                 a directory
//	git:REF[:PATH]      a revision of the git repository you are in: the
//	                    directory you are in, or PATH from its root
//	REGISTRY/REPO:LABEL a set in an OCI registry (or @sha256:… for a manifest)
//
// openSource reads it into a file system; close releases what it holds.
func (c *cli) openSource(name string, plainHTTP bool) (fsys fs.FS, close func(), err error) {
	nothing := func() {}
	if rest, ok := strings.CutPrefix(name, "git:"); ok {
		rev, p, _ := strings.Cut(rest, ":")
		fsys, err := gitset.Open(c.ctx, ".", rev, p)
		if errors.Is(err, gitset.ErrRevision) {
			return nil, nil, usagef("%s: %v", name, err)
		}
		return fsys, nothing, err
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		root, err := os.OpenRoot(name)
		if err != nil {
			return nil, nil, usagef("%s: %v", name, err)
		}
		return root.FS(), func() { root.Close() }, nil
	}
	if strings.Contains(name, "/") && strings.ContainsAny(name, ":@") {
		s, _, err := newClient(plainHTTP).Fetch(c.ctx, name)
		if errors.Is(err, fleet.ErrReference) {
			return nil, nil, usagef("%v", err)
		}
		if err != nil {
			return nil, nil, refError(err, diffUsage)
		}
		return s.FS(), nothing, nil
	}
	return nil, nil, usagef("%q is not a directory, git:REF[:PATH] or a registry reference (registry/repo:label)", name)
}
