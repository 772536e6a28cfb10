package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// The artifact: an OCI image manifest (version 1.1) whose artifactType is
// ArtifactType, with the empty config and one layer per file of the set
// (MediaTypeIndex, MediaTypeFile) and of its fixtures (MediaTypeFixture),
// each named by its path in the standard title annotation, as the oras CLI
// names files (so "oras pull" unpacks a set into a directory too). One
// blob per file means a file unchanged between two versions is one blob
// in the registry, uploaded once; the files are small text, so a tar
// layer would save little and hide them from registry UIs.
const (
	// ArtifactType is the manifest's artifactType.
	ArtifactType = "application/vnd.promptkit.set.v1"
	// MediaTypeIndex is the media type of the index.json layer.
	MediaTypeIndex = "application/vnd.promptkit.set.index.v1+json"
	// MediaTypeFile is the media type of every other file's layer.
	MediaTypeFile = "application/vnd.promptkit.set.file.v1"

	// AnnotationDigest holds the set's digest (manager.Manager.Digest).
	AnnotationDigest = "org.promptkit.set.digest"
	// AnnotationMessage holds the pusher's message (push --message).
	AnnotationMessage = "org.promptkit.set.message"
	// AnnotationCreated is the standard time of creation, RFC 3339.
	AnnotationCreated = ocispec.AnnotationCreated
	// AnnotationTitle is the standard annotation that names a layer's file.
	AnnotationTitle = ocispec.AnnotationTitle
)

// Limits on what a pull accepts, so a hostile or broken artifact cannot
// exhaust the host: a set is prompts, not data.
const (
	MaxFiles     = 10_000
	MaxFileBytes = 16 << 20 // one file; the manager's output limit is 16 MiB too
	MaxSetBytes  = 64 << 20 // all files together
	maxManifest  = 4 << 20
)

// Info describes a pushed set: the manifest labels point at, and what its
// annotations say.
type Info struct {
	// Manifest is the manifest's digest, "sha256:…": what a label points
	// at, and what a pinned reference (repo@sha256:…) names.
	Manifest string
	// SetDigest is the set's digest (AnnotationDigest).
	SetDigest string
	// Created is when the set was pushed (AnnotationCreated).
	Created time.Time
	// Message is the pusher's message (AnnotationMessage), often empty.
	Message string
	// Files is the number of files; Size their bytes together.
	Files int
	Size  int64
}

// pack builds the artifact of s in a memory store, ready to copy to a
// registry.
func pack(ctx context.Context, s *Set, message string, created time.Time) (*memory.Store, ocispec.Descriptor, error) {
	store := memory.New()
	var layers []ocispec.Descriptor
	for _, p := range append(s.Paths(), s.fixturePaths()...) {
		mt, data := MediaTypeFile, s.Files[p]
		_, inSet := s.Files[p]
		switch {
		case p == manager.IndexFile:
			mt = MediaTypeIndex
		case !inSet:
			mt, data = MediaTypeFixture, s.Fixtures[p]
		}
		desc := content.NewDescriptorFromBytes(mt, data)
		desc.Annotations = map[string]string{AnnotationTitle: p}
		if err := store.Push(ctx, desc, strings.NewReader(string(data))); err != nil {
			return nil, ocispec.Descriptor{}, err
		}
		layers = append(layers, desc)
	}
	ann := map[string]string{
		AnnotationDigest:  s.Digest,
		AnnotationCreated: created.UTC().Format(time.RFC3339),
	}
	if message != "" {
		ann[AnnotationMessage] = message
	}
	desc, err := oras.PackManifest(ctx, store, oras.PackManifestVersion1_1, ArtifactType,
		oras.PackManifestOptions{Layers: layers, ManifestAnnotations: ann})
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	return store, desc, nil
}

// parseManifest checks that data is the manifest of a promptkit set and
// returns it with what it says. desc is the manifest's own descriptor.
func parseManifest(desc ocispec.Descriptor, data []byte) (*ocispec.Manifest, Info, error) {
	var man ocispec.Manifest
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, Info{}, fmt.Errorf("%w: %s is a %s, not an OCI image manifest", ErrNotSet, desc.Digest, desc.MediaType)
	}
	if err := json.Unmarshal(data, &man); err != nil {
		return nil, Info{}, fmt.Errorf("%w: %s: %v", ErrNotSet, desc.Digest, err)
	}
	if man.ArtifactType != ArtifactType && man.Config.MediaType != ArtifactType {
		at := man.ArtifactType
		if at == "" {
			at = man.Config.MediaType
		}
		return nil, Info{}, fmt.Errorf("%w: %s has artifact type %q, want %q", ErrNotSet, desc.Digest, at, ArtifactType)
	}
	info := Info{Manifest: desc.Digest.String(), SetDigest: man.Annotations[AnnotationDigest],
		Message: man.Annotations[AnnotationMessage], Files: len(man.Layers)}
	if d, err := digest.Parse(info.SetDigest); err != nil || d.Algorithm() != digest.SHA256 {
		return nil, Info{}, fmt.Errorf("%w: %s: annotation %s is %q, want sha256:…", ErrNotSet, desc.Digest, AnnotationDigest, info.SetDigest)
	}
	if c := man.Annotations[AnnotationCreated]; c != "" {
		t, err := time.Parse(time.RFC3339, c)
		if err != nil {
			return nil, Info{}, fmt.Errorf("%w: %s: annotation %s: %v", ErrNotSet, desc.Digest, AnnotationCreated, err)
		}
		info.Created = t
	}
	if len(man.Layers) > MaxFiles {
		return nil, Info{}, fmt.Errorf("%w: %s has %d files, more than %d", ErrNotSet, desc.Digest, len(man.Layers), MaxFiles)
	}
	seen := map[string]bool{}
	for _, l := range man.Layers {
		p := l.Annotations[AnnotationTitle]
		switch {
		case p == "":
			return nil, Info{}, fmt.Errorf("%w: %s: layer %s has no %s", ErrNotSet, desc.Digest, l.Digest, AnnotationTitle)
		case !fs.ValidPath(p) || p == "." || strings.ContainsAny(p, `\:`):
			return nil, Info{}, fmt.Errorf("%w: %s: file path %q is not a clean relative path inside the set", ErrNotSet, desc.Digest, p)
		case seen[p]:
			return nil, Info{}, fmt.Errorf("%w: %s: file %q twice", ErrNotSet, desc.Digest, p)
		case l.MediaType != MediaTypeFile && l.MediaType != MediaTypeIndex && l.MediaType != MediaTypeFixture:
			return nil, Info{}, fmt.Errorf("%w: %s: file %q has media type %q", ErrNotSet, desc.Digest, p, l.MediaType)
		case l.MediaType == MediaTypeFixture && checkFixturePath(p) != nil:
			return nil, Info{}, fmt.Errorf("%w: %s: %v", ErrNotSet, desc.Digest, checkFixturePath(p))
		case l.Size < 0 || l.Size > MaxFileBytes:
			return nil, Info{}, fmt.Errorf("%w: %s: file %q is %d bytes, more than %d", ErrNotSet, desc.Digest, p, l.Size, MaxFileBytes)
		}
		seen[p] = true
		info.Size += l.Size
	}
	if !seen[manager.IndexFile] {
		return nil, Info{}, fmt.Errorf("%w: %s has no %s", ErrNotSet, desc.Digest, manager.IndexFile)
	}
	if info.Size > MaxSetBytes {
		return nil, Info{}, fmt.Errorf("%w: %s: files of %d bytes together, more than %d", ErrNotSet, desc.Digest, info.Size, MaxSetBytes)
	}
	return &man, info, nil
}

// fetchManifest resolves reference in target and reads its manifest.
func fetchManifest(ctx context.Context, target oras.ReadOnlyTarget, reference string) (*ocispec.Manifest, Info, error) {
	desc, data, err := fetchManifestBytes(ctx, target, reference)
	if err != nil {
		return nil, Info{}, err
	}
	return parseManifest(desc, data)
}

// fetchManifestBytes resolves reference in target and reads its manifest,
// at most maxManifest bytes, checked against the digest that names it.
func fetchManifestBytes(ctx context.Context, target oras.ReadOnlyTarget, reference string) (ocispec.Descriptor, []byte, error) {
	var (
		desc ocispec.Descriptor
		rc   io.ReadCloser
		err  error
	)
	if rf, ok := target.(registry.ReferenceFetcher); ok {
		desc, rc, err = rf.FetchReference(ctx, reference) // one GET
	} else if desc, err = target.Resolve(ctx, reference); err == nil {
		rc, err = target.Fetch(ctx, desc)
	}
	if err != nil {
		return desc, nil, err
	}
	defer rc.Close()
	if desc.Size > maxManifest {
		return desc, nil, fmt.Errorf("%w: %s: manifest %s is %d bytes, more than %d", ErrNotSet, refName(target, reference), desc.Digest, desc.Size, maxManifest)
	}
	data, err := readVerified(rc, desc, refName(target, reference), "manifest")
	return desc, data, err
}

// fetchBlob reads the blob of file p that desc describes, checked
// against its digest and size.
func fetchBlob(ctx context.Context, target oras.ReadOnlyTarget, reference, p string, desc ocispec.Descriptor) ([]byte, error) {
	rc, err := target.Fetch(ctx, desc)
	if err != nil {
		return nil, fmt.Errorf("fleet: %s: file %q: %w", refName(target, reference), p, err)
	}
	defer rc.Close()
	return readVerified(rc, desc, refName(target, reference), fmt.Sprintf("file %q", p))
}

// readVerified reads what desc describes from r — at most one byte more
// than desc.Size — and checks its size and digest, naming both digests
// when they differ (a blob corrupted or forged in the registry).
func readVerified(r io.Reader, desc ocispec.Descriptor, ref, what string) ([]byte, error) {
	if err := desc.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %s: %v", ErrNotSet, ref, what, err)
	}
	if desc.Size < 0 {
		return nil, fmt.Errorf("%w: %s: %s has size %d", ErrNotSet, ref, what, desc.Size)
	}
	data, err := io.ReadAll(io.LimitReader(r, desc.Size+1))
	if err != nil {
		return nil, fmt.Errorf("fleet: %s: %s: %w", ref, what, err)
	}
	got := desc.Digest.Algorithm().FromBytes(data)
	if got != desc.Digest || int64(len(data)) != desc.Size {
		return nil, &DigestError{Ref: ref, What: what, Want: desc.Digest.String(), Got: got.String(), WantSize: desc.Size, GotSize: int64(len(data))}
	}
	return data, nil
}

// refName is the reference that reference names in target, as a person
// wrote it ("reg/prompts:production"), for errors.
func refName(target oras.ReadOnlyTarget, reference string) string {
	if repo, ok := target.(*remote.Repository); ok {
		r := repo.Reference
		r.Reference = reference
		return r.String()
	}
	return reference
}

// fetchSet reads the set reference names from target: its manifest, every
// file (each checked against its blob digest and size), and then the set
// itself, loaded from those files, against the digest the manifest names.
func fetchSet(ctx context.Context, target oras.ReadOnlyTarget, reference string) (*Set, Info, error) {
	man, info, err := fetchManifest(ctx, target, reference)
	if err != nil {
		return nil, Info{}, err
	}
	s := &Set{Digest: info.SetDigest, Files: map[string][]byte{}, Fixtures: map[string][]byte{}}
	for _, l := range man.Layers {
		data, err := fetchBlob(ctx, target, reference, l.Annotations[AnnotationTitle], l)
		if err != nil {
			return nil, Info{}, err
		}
		if l.MediaType == MediaTypeFixture {
			s.Fixtures[l.Annotations[AnnotationTitle]] = data
		} else {
			s.Files[l.Annotations[AnnotationTitle]] = data
		}
	}
	if err := s.verify(); err != nil {
		return nil, Info{}, fmt.Errorf("fleet: %s: %w", info.Manifest, err)
	}
	return s, info, nil
}
