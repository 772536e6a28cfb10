package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/internal/registrytest"
)

// promptkit tag refuses a set whose fixtures fail, and one that breaks
// the contract of the set the label points at now; --force moves the
// label all the same, and history shows who forced it.
func TestTagGateCommand(t *testing.T) {
	reg := registrytest.Start(t)
	docker := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(docker, "config.json"), []byte(`{}`), 0o600))
	t.Setenv("DOCKER_CONFIG", docker)
	t.Setenv("USER", "alice")
	repo := reg.Host + "/prompts"
	set := func(index, source, golden string) string {
		return writeSet(t, index, map[string]string{
			"t.md":                    source,
			"fixtures/t.json":         `{"fixtures": [{"name": "ann", "template": "t", "vars": {"name": "Ann"}, "golden": "golden/ann.txt"}]}`,
			"fixtures/golden/ann.txt": golden,
		})
	}
	index := `{"version":1,"templates":{"t":{"path":"t.md","variables":["name"]}}}`
	good := set(index, "你好，{{ name }}", "你好，Ann")
	failing := set(index, "您好，{{ name }}", "你好，Ann")
	breaking := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["name","tone"]}}}`, map[string]string{
		"t.md": "你好，{{ name }}{{ tone }}",
	})
	for dir, label := range map[string]string{good: "v1", failing: "v2", breaking: "v3"} {
		code, _, stderr := runCLI(t, "", "push", dir, repo+":"+label, "--plain-http")
		require.Equal(t, 0, code, stderr)
	}
	code, _, stderr := runCLI(t, "", "tag", repo+":v1", "production", "--plain-http")
	require.Equal(t, 0, code, stderr)

	// Fixtures fail: refused, with the diff of the golden.
	code, stdout, stderr := runCLI(t, "", "tag", repo+":v2", "production", "--plain-http")
	assert.Equal(t, exitPrompt, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "--- FAIL: t/ann (template t, fixtures/t.json:1:15)")
	assert.Contains(t, stderr, "-你好，Ann\n")
	assert.Contains(t, stderr, "+您好，Ann\n")
	assert.Contains(t, stderr, "promptkit tag: fleet: the gate refuses to point production at the set: 1 fixture fails (t/ann)\nproduction stays where it is; --force moves it anyway, recorded in its history\n")

	// A breaking change against the set production points at now.
	code, _, stderr = runCLI(t, "", "tag", repo+":v3", "production", "--plain-http")
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stderr, "breaking t: tone: a required variable was added; calls that do not pass it fail (VARIABLE_REQUIRED_ADDED)")
	assert.Contains(t, stderr, "1 breaking change against the set production points at now (VARIABLE_REQUIRED_ADDED t: tone)")

	// Forced: it moves, and the history says who forced it and past what.
	code, stdout, stderr = runCLI(t, "", "tag", repo+":v2", "production", "--plain-http", "--force", "--actor", "carol")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "promptkit tag: forced past the gate (1 fixture fails (t/ann)); the history records it, by carol")
	assert.Equal(t, repo+":production", infoField(t, stdout, "ref"))

	code, stdout, stderr = runCLI(t, "", "history", repo+":production", "--plain-http")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 4, stdout)
	assert.Regexp(t, `^\* .* production,v2 +carol \(forced\) +-$`, lines[2])
	assert.Regexp(t, ` v1 +alice +-$`, lines[3])

	code, stdout, stderr = runCLI(t, "", "history", repo+":production", "--plain-http", "--json")
	require.Equal(t, 0, code, stderr)
	var h struct {
		Entries []struct {
			Actor   string `json:"actor"`
			Forced  bool   `json:"forced"`
			Refusal string `json:"refusal"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &h))
	require.Len(t, h.Entries, 2)
	assert.Equal(t, "carol", h.Entries[0].Actor)
	assert.True(t, h.Entries[0].Forced)
	assert.Equal(t, "1 fixture fails (t/ann)", h.Entries[0].Refusal)
	assert.Equal(t, "alice", h.Entries[1].Actor)
	assert.False(t, h.Entries[1].Forced)
}

// The fixtures a registry carries are the fixtures promptkit test runs.
func TestFixturesDirIsOne(t *testing.T) {
	assert.Equal(t, fixture.Dir, fleet.FixturesDir)
}
