package fleet

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withFixtures is setFiles with a fixture file and its golden file.
func withFixtures(word string) map[string]string {
	files := setFiles(word)
	files["fixtures/greet.json"] = `{"fixtures": [{"name": "ann", "template": "greet", "vars": {"name": "Ann"}, "golden": "golden/ann.txt"}]}`
	files["fixtures/golden/ann.txt"] = "[" + word + "] " + word + ", Ann"
	return files
}

// The fixtures travel with the set, outside its digest: pushed as layers
// of their own media type, fetched and pulled back.
func TestFixturesTravel(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	dir := writeDir(t, withFixtures("one"))
	s, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"fixtures/golden/ann.txt", "fixtures/greet.json"}, s.fixturePaths())
	plain, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	assert.Equal(t, plain.Digest, s.Digest, "fixtures are not part of the set's digest")

	ref := reg.Host + "/prompts:v1"
	info, err := c.Push(ctx, s, ref, "")
	require.NoError(t, err)
	assert.Equal(t, 5, info.Files, "three files of the set, two of its fixtures")

	got, _, err := c.Fetch(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, s.Fixtures, got.Fixtures)
	assert.Equal(t, s.Files, got.Files)
	data, err := fs.ReadFile(got.FS(), "fixtures/golden/ann.txt")
	require.NoError(t, err)
	assert.Equal(t, "[one] one, Ann", string(data))

	out := filepath.Join(t.TempDir(), "pulled")
	_, err = c.Pull(ctx, ref, out)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(out, "fixtures", "greet.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"golden/ann.txt"`)
}

// The gate decides; a forced move overrides it and is recorded with who
// forced it; History shows every recorded move.
func TestTagGate(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"
	s1, err := Load(writeDir(t, withFixtures("one")))
	require.NoError(t, err)
	s2, err := Load(writeDir(t, withFixtures("two")))
	require.NoError(t, err)
	p1, err := c.Push(ctx, s1, repo+":v1", "")
	require.NoError(t, err)
	p2, err := c.Push(ctx, s2, repo+":v2", "")
	require.NoError(t, err)

	// The first promotion: nothing is labelled production yet.
	var seen [][2]string
	gate := func(_ context.Context, candidate, current *Set) error {
		cur := ""
		if current != nil {
			cur = current.Digest
		}
		seen = append(seen, [2]string{candidate.Digest, cur})
		if candidate.Digest == s2.Digest {
			return errors.New("fixtures fail: greet/ann")
		}
		return nil
	}
	_, err = c.Tag(ctx, repo+":v1", "production", WithGate(gate), WithActor("alice"))
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{s1.Digest, ""}}, seen, "the candidate, and no current set")

	// A refused move leaves the label where it was.
	_, err = c.Tag(ctx, repo+":v2", "production", WithGate(gate), WithActor("bob"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrGate))
	var ge *GateError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, "production", ge.Label)
	assert.EqualError(t, err, "fleet: the gate refuses to point production at the set: fixtures fail: greet/ann")
	assert.Equal(t, [2]string{s2.Digest, s1.Digest}, seen[1], "the current set is the label's")
	now, err := c.Resolve(ctx, repo+":production")
	require.NoError(t, err)
	assert.Equal(t, p1.Manifest, now.Manifest)

	// Forced: the label moves, and the refusal is recorded with the actor.
	var told error
	_, err = c.Tag(ctx, repo+":v2", "production", WithGate(gate), WithActor("bob"), WithForce(func(r error) { told = r }))
	require.NoError(t, err)
	assert.EqualError(t, told, "fixtures fail: greet/ann")
	now, err = c.Resolve(ctx, repo+":production")
	require.NoError(t, err)
	assert.Equal(t, p2.Manifest, now.Manifest)

	// A move without a gate or an actor records nothing.
	_, err = c.Tag(ctx, repo+"@"+p1.Manifest, "production")
	require.NoError(t, err)

	h, err := c.History(ctx, repo+":production")
	require.NoError(t, err)
	require.Len(t, h.Entries, 3)
	assert.Nil(t, h.Entries[0].Promotion, "the last move: no record")
	assert.Equal(t, &Promotion{Actor: "bob", Forced: true, Refusal: "fixtures fail: greet/ann"}, h.Entries[1].Promotion)
	assert.Equal(t, &Promotion{Actor: "alice"}, h.Entries[2].Promotion)
	for l := range h.Labels {
		assert.False(t, strings.HasPrefix(l, "sha256-"), "the referrers index %s is not a label", l)
	}
	assert.ElementsMatch(t, []string{"v1", "v2", "production"}, keys(h.Labels))
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
