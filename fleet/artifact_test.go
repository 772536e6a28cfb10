package fleet

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"oras.land/oras-go/v2/content"
)

// packed packs the "one" set and returns its manifest.
func packed(t *testing.T) ocispec.Manifest {
	t.Helper()
	s, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	ctx := context.Background()
	store, desc, err := pack(ctx, s, "hello", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	require.NoError(t, err)
	data, err := content.FetchAll(ctx, store, desc)
	require.NoError(t, err)
	var man ocispec.Manifest
	require.NoError(t, json.Unmarshal(data, &man))
	return man
}

func TestPackManifest(t *testing.T) {
	man := packed(t)
	assert.Equal(t, ArtifactType, man.ArtifactType)
	assert.Equal(t, ocispec.MediaTypeEmptyJSON, man.Config.MediaType)
	assert.Equal(t, "2025-01-02T03:04:05Z", man.Annotations[AnnotationCreated])
	assert.Equal(t, "hello", man.Annotations[AnnotationMessage])
	assert.True(t, strings.HasPrefix(man.Annotations[AnnotationDigest], "sha256:"))
	var titles, types []string
	for _, l := range man.Layers {
		titles = append(titles, l.Annotations[AnnotationTitle])
		types = append(types, l.MediaType)
	}
	assert.Equal(t, []string{"index.json", "parts/sign.md", "templates/greet.md"}, titles)
	assert.Equal(t, []string{MediaTypeIndex, MediaTypeFile, MediaTypeFile}, types)
}

func TestParseManifestRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(*ocispec.Manifest)
		want   string
	}{
		{"other artifact type", func(m *ocispec.Manifest) { m.ArtifactType = "application/vnd.example" }, "artifact type"},
		{"no set digest", func(m *ocispec.Manifest) { delete(m.Annotations, AnnotationDigest) }, AnnotationDigest},
		{"bad created", func(m *ocispec.Manifest) { m.Annotations[AnnotationCreated] = "yesterday" }, AnnotationCreated},
		{"file without a path", func(m *ocispec.Manifest) { delete(m.Layers[1].Annotations, AnnotationTitle) }, "has no"},
		{"path leaving the set", func(m *ocispec.Manifest) { m.Layers[1].Annotations[AnnotationTitle] = "../evil.md" }, "not a clean relative path"},
		{"absolute path", func(m *ocispec.Manifest) { m.Layers[1].Annotations[AnnotationTitle] = "/etc/passwd" }, "not a clean relative path"},
		{"windows path", func(m *ocispec.Manifest) { m.Layers[1].Annotations[AnnotationTitle] = `parts\sign.md` }, "not a clean relative path"},
		{"file twice", func(m *ocispec.Manifest) { m.Layers[2].Annotations[AnnotationTitle] = "parts/sign.md" }, "twice"},
		{"other media type", func(m *ocispec.Manifest) { m.Layers[1].MediaType = "application/octet-stream" }, "media type"},
		{"oversized file", func(m *ocispec.Manifest) { m.Layers[1].Size = MaxFileBytes + 1 }, "bytes"},
		{"no index", func(m *ocispec.Manifest) { m.Layers = m.Layers[1:] }, "no index.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			man := packed(t)
			tc.change(&man)
			data, err := json.Marshal(man)
			require.NoError(t, err)
			desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, data)
			_, _, err = parseManifest(desc, data)
			require.ErrorIs(t, err, ErrNotSet)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	man := packed(t)
	data, _ := json.Marshal(man)
	_, _, err := parseManifest(content.NewDescriptorFromBytes(ocispec.MediaTypeImageIndex, data), data)
	assert.ErrorIs(t, err, ErrNotSet, "an index is not a set")
	_, info, err := parseManifest(content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, data), data)
	require.NoError(t, err, "the unchanged manifest parses")
	assert.Equal(t, 3, info.Files)
}

func TestLabels(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC)
	tag := historyTag("production", now)
	assert.Equal(t, "production-at-20250102T030405.123456789Z", tag)
	label, at, ok := parseHistoryTag(tag)
	require.True(t, ok)
	assert.Equal(t, "production", label)
	assert.True(t, now.Equal(at))
	_, _, ok = parseHistoryTag("meet-at-noon")
	assert.False(t, ok)

	for _, good := range []string{"production", "v1.2.3", "staging_eu-1", strings.Repeat("a", maxLabel)} {
		assert.NoError(t, checkLabel(good), good)
	}
	for _, bad := range []string{"", "-x", "a/b", "a:b", strings.Repeat("a", maxLabel+1), tag} {
		assert.ErrorIs(t, checkLabel(bad), ErrReference, bad)
	}
	for _, ref := range []string{"reg.example/prompts", "not a ref", "reg.example/prompts@sha256:abc"} {
		_, err := parseRef(ref)
		assert.ErrorIs(t, err, ErrReference, ref)
	}
	_, err := labelRef("reg.example/prompts@sha256:" + strings.Repeat("0", 64))
	assert.ErrorIs(t, err, ErrReference, "a digest is not a label")
}
