package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Push pushes the set s to ref, "registry/repo:label", with message in its
// annotations, and records the label's move in the label's history (see
// History). The set is checked again first (its files must make its
// digest): load it with Load, which refuses a set with problems, so a
// broken set never reaches the registry. Blobs the registry already has
// are not uploaded again.
func (c *Client) Push(ctx context.Context, s *Set, ref, message string) (Info, error) {
	r, err := labelRef(ref)
	if err != nil {
		return Info{}, err
	}
	if err := s.verify(); err != nil {
		return Info{}, err
	}
	repo, err := c.repository(r)
	if err != nil {
		return Info{}, err
	}
	now := time.Now()
	store, desc, err := pack(ctx, s, message, now)
	if err != nil {
		return Info{}, fmt.Errorf("fleet: pack: %w", err)
	}
	if err := store.Tag(ctx, desc, r.Reference); err != nil {
		return Info{}, err
	}
	if _, err := oras.Copy(ctx, store, r.Reference, repo, r.Reference, oras.DefaultCopyOptions); err != nil {
		return Info{}, fmt.Errorf("fleet: push %s: %w", ref, err)
	}
	if err := repo.Tag(ctx, desc, historyTag(r.Reference, now)); err != nil {
		return Info{}, fmt.Errorf("fleet: push %s: history tag: %w", ref, err)
	}
	data, err := content.FetchAll(ctx, store, desc)
	if err != nil {
		return Info{}, err
	}
	_, info, err := parseManifest(desc, data)
	return info, err
}

// Pull reads the set ref names ("registry/repo:label" or
// "registry/repo@sha256:…") and writes its files into dir, which must not
// exist or be empty. Every file is checked against its blob digest, and
// the set, loaded from the files written, against the digest the manifest
// names; on any failure dir is left as it was. The files appear in dir at
// once (written beside it, then renamed into place).
func (c *Client) Pull(ctx context.Context, ref, dir string) (Info, error) {
	r, err := parseRef(ref)
	if err != nil {
		return Info{}, err
	}
	repo, err := c.repository(r)
	if err != nil {
		return Info{}, err
	}
	if err := checkEmpty(dir); err != nil {
		return Info{}, err
	}
	s, info, err := fetchSet(ctx, repo, r.Reference)
	if err != nil {
		return Info{}, err
	}
	if err := installSet(s, dir); err != nil {
		return Info{}, err
	}
	return info, nil
}

// Tag points label at the set ref names: promote a tested set
// (Tag(ctx, "reg/prompts:staging", "production")), or roll back by
// pointing the label at an earlier manifest again
// (Tag(ctx, "reg/prompts@sha256:…", "production")). Only a promptkit set
// can be labelled. The move is recorded in the label's history. With
// WithGate, the gate decides first whether the set may go there (see
// Gate); WithActor and WithForce record who moved it and what the move
// overrode.
func (c *Client) Tag(ctx context.Context, ref, label string, opts ...TagOption) (Info, error) {
	cfg := &tagConfig{}
	for _, o := range opts {
		o(cfg)
	}
	r, err := parseRef(ref)
	if err != nil {
		return Info{}, err
	}
	if err := checkLabel(label); err != nil {
		return Info{}, err
	}
	repo, err := c.repository(r)
	if err != nil {
		return Info{}, err
	}
	man, info, err := fetchManifestDesc(ctx, repo, r.Reference)
	if err != nil {
		return Info{}, err
	}
	refusal, err := c.gate(ctx, repo, man, label, cfg)
	if err != nil {
		return Info{}, err
	}
	if err := repo.Tag(ctx, man, label); err != nil {
		return Info{}, fmt.Errorf("fleet: tag %s as %s: %w", ref, label, err)
	}
	now := time.Now()
	hist := historyTag(label, now)
	if err := repo.Tag(ctx, man, hist); err != nil {
		return Info{}, fmt.Errorf("fleet: tag %s as %s: history tag: %w", ref, label, err)
	}
	if err := c.record(ctx, repo, man, label, hist, cfg, refusal, now); err != nil {
		return info, err
	}
	return info, nil
}

// Resolve returns what ref names now, reading only its manifest.
func (c *Client) Resolve(ctx context.Context, ref string) (Info, error) {
	r, err := parseRef(ref)
	if err != nil {
		return Info{}, err
	}
	repo, err := c.repository(r)
	if err != nil {
		return Info{}, err
	}
	_, info, err := fetchManifest(ctx, repo, r.Reference)
	return info, err
}

// fetchManifestDesc is fetchManifest that also returns the manifest's
// descriptor, for tagging.
func fetchManifestDesc(ctx context.Context, repo *remote.Repository, reference string) (desc ocispec.Descriptor, info Info, err error) {
	desc, data, err := fetchManifestBytes(ctx, repo, reference)
	if err != nil {
		return desc, Info{}, err
	}
	_, info, err = parseManifest(desc, data)
	return desc, info, err
}

// checkEmpty refuses a directory with files in it.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return fmt.Errorf("fleet: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("%w: %s", ErrDirNotEmpty, dir)
	}
	return nil
}

// installSet writes s into a new directory beside dir, loads it from there
// as a host would (manager.Open) and checks its digest, then renames it
// to dir (which may exist, empty).
func installSet(s *Set, dir string) error {
	tmp, err := writeTemp(s, filepath.Dir(filepath.Clean(dir)))
	if err != nil {
		return err
	}
	// os.Rename refuses to replace a directory, even an empty one: remove
	// it first (os.Remove removes only an empty directory).
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		os.RemoveAll(tmp)
		return fmt.Errorf("fleet: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("fleet: %w", err)
	}
	return nil
}

// writeTemp writes s into a new temporary directory in parent and checks
// it by loading it from disk; it returns the directory.
func writeTemp(s *Set, parent string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("fleet: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".promptkit-pull-")
	if err != nil {
		return "", fmt.Errorf("fleet: %w", err)
	}
	if err := writeFiles(tmp, s.Files); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := writeFiles(tmp, s.Fixtures); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("fleet: %w", err)
	}
	m, err := manager.Open(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	got := m.Digest()
	m.Close()
	if got != s.Digest {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("%w: the files written make %s, not %s", ErrDigest, got, s.Digest)
	}
	return tmp, nil
}

// writeFiles writes files (slash paths) under dir, through os.Root so no
// path leaves it.
func writeFiles(dir string, files map[string][]byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	defer root.Close()
	for p, data := range files {
		if d := filepath.Dir(filepath.FromSlash(p)); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("fleet: %w", err)
			}
		}
		if err := root.WriteFile(filepath.FromSlash(p), data, 0o644); err != nil {
			return fmt.Errorf("fleet: %w", err)
		}
	}
	return nil
}
