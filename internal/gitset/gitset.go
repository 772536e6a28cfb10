// Package gitset reads a template set as a revision of a git repository
// holds it, for promptkit diff git:REF: the git command lists the tree
// (git archive), and the files are read into memory, bounded in number
// and size. Nothing is fetched: the revision must be in the local
// repository.
package gitset

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"strings"
	"testing/fstest"
	"time"
)

// Limits of a tree read: a set is prompts, not data (the registry's
// limits of a pulled set).
const (
	MaxFiles     = 10_000
	MaxFileBytes = 16 << 20
	MaxSetBytes  = 64 << 20
)

// ErrRevision is returned for a revision or path git does not have, or
// that is not a revision at all.
var ErrRevision = errors.New("gitset: no such revision")

// Open reads the tree at rev of the repository that holds dir: at the
// path p inside the repository (relative to its root, as git's REV:PATH
// reads it), or, when p is "", at dir itself. The files are held in
// memory; only regular files are read (a symlink is left out).
func Open(ctx context.Context, dir, rev, p string) (fs.FS, error) {
	switch {
	case rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n"):
		return nil, fmt.Errorf("%w: %q", ErrRevision, rev)
	case strings.ContainsAny(p, "\x00\n") || path.IsAbs(p):
		return nil, fmt.Errorf("%w: path %q: not relative to the repository's root", ErrRevision, p)
	}
	out, err := git(ctx, dir, nil, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return nil, err
	}
	lines := strings.SplitN(strings.TrimRight(string(out), "\n"), "\n", 2)
	top, prefix := lines[0], ""
	if len(lines) > 1 {
		prefix = lines[1]
	}
	if p == "" {
		p = prefix
	}
	if p = path.Clean(p); p == "." {
		p = "" // REV: is the root's tree
	}
	var tarball bytes.Buffer
	if _, err := git(ctx, top, &tarball, "archive", "--format=tar", "--end-of-options", rev+":"+p); err != nil {
		return nil, err
	}
	return readTar(&tarball)
}

// git runs git in dir; its output goes to stdout when given, else is
// returned. An error carries git's own message.
func git(ctx context.Context, dir string, stdout io.Writer, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(errb.String()), "fatal: "))
		if msg == "" {
			msg = err.Error()
		}
		if _, ok := errors.AsType[*exec.ExitError](err); ok {
			return nil, fmt.Errorf("%w: git %s: %s", ErrRevision, args[0], msg)
		}
		return nil, fmt.Errorf("gitset: git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

// readTar reads the regular files of a tar stream into memory.
func readTar(r io.Reader) (fs.FS, error) {
	fsys := fstest.MapFS{}
	tr := tar.NewReader(r)
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fsys, nil
		}
		if err != nil {
			return nil, fmt.Errorf("gitset: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(h.Name)
		switch {
		case !fs.ValidPath(name):
			return nil, fmt.Errorf("gitset: a file outside the tree: %q", h.Name)
		case len(fsys) >= MaxFiles:
			return nil, fmt.Errorf("gitset: more than %d files", MaxFiles)
		case h.Size > MaxFileBytes:
			return nil, fmt.Errorf("gitset: %s is %d bytes, more than %d", name, h.Size, MaxFileBytes)
		case total+h.Size > MaxSetBytes:
			return nil, fmt.Errorf("gitset: the files are more than %d bytes together", MaxSetBytes)
		}
		data, err := io.ReadAll(io.LimitReader(tr, MaxFileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("gitset: %s: %w", name, err)
		}
		total += int64(len(data))
		fsys[name] = &fstest.MapFile{Data: data, Mode: 0o644, ModTime: h.ModTime}
	}
}
