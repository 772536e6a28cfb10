package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/registrytest"
)

func TestDiffCommandDirectories(t *testing.T) {
	v1, v2 := filepath.Join("..", "..", "setdiff", "testdata", "v1"), filepath.Join("..", "..", "setdiff", "testdata", "v2")
	code, stdout, stderr := runCLI(t, "", "diff", v1, v2)
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stdout, "contract: 6 breaking, 2 compatible\n")
	assert.Contains(t, stdout, "~ title/weather (template title): its input changed too\n")
	assert.Equal(t, "promptkit diff: 6 breaking changes (--allow-breaking accepts them)\n", stderr)

	code, _, stderr = runCLI(t, "", "diff", v1, v2, "--allow-breaking")
	assert.Equal(t, exitOK, code, stderr)

	// --tokens: each rendered fixture's token delta.
	code, stdout, stderr = runCLI(t, "", "diff", v1, v2, "--allow-breaking", "--tokens", "o200k_base")
	assert.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `~ title/weather \(template title\): its input changed too; tokens \d+ → \d+ \([+-]\d+\)`, stdout)

	code, stdout, _ = runCLI(t, "", "diff", "--format", "json", v2, v2)
	assert.Equal(t, exitOK, code)
	var r struct {
		Changes  []any `json:"changes"`
		Rendered []struct {
			Status string `json:"status"`
		} `json:"rendered"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	assert.Empty(t, r.Changes)
	assert.Len(t, r.Rendered, 5)

	broken := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{"t.md": "{{ x }}"})
	runCases(t, []cliCase{
		{name: "one set", args: []string{"diff", v1}, code: exitUsage, stderr: "diff takes two sets, A and B"},
		{name: "a format", args: []string{"diff", v1, v2, "--format", "yaml"}, code: exitUsage, stderr: `--format "yaml": want text or json`},
		{name: "not a set", args: []string{"diff", v1, "no-such-dir"}, code: exitUsage,
			stderr: `"no-such-dir" is not a directory, git:REF[:PATH] or a registry reference`},
		{name: "a set that does not load", args: []string{"diff", v1, broken}, code: exitPrompt, stderr: `undeclared variable "x"`},
	})
}

// git:REF reads the set as a revision holds it, from the directory the
// command runs in.
func TestDiffCommandGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["name"]}}}`, map[string]string{"t.md": "hi {{ name }}"})
	git := func(args ...string) {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "one")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.json"),
		[]byte(`{"version":1,"templates":{"t":{"path":"t.md","variables":["name",{"name":"tone","required":false,"default":"warm"}]}}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.md"), []byte("hi {{ name }}, {{ tone }}"), 0o644))
	t.Chdir(dir)

	code, stdout, stderr := runCLI(t, "", "diff", "git:HEAD", ".")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, `compatible  t: tone  an optional variable was added, default "warm"  VARIABLE_OPTIONAL_ADDED`)
	code, _, stderr = runCLI(t, "", "diff", ".", "git:HEAD")
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stderr, "1 breaking change")
	code, _, stderr = runCLI(t, "", "diff", "git:nope", ".")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "not a valid object name")
}

// A registry's sets are compared as they are pushed.
func TestDiffCommandRegistry(t *testing.T) {
	reg := registrytest.Start(t)
	docker := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(docker, "config.json"), []byte(`{}`), 0o600))
	t.Setenv("DOCKER_CONFIG", docker)
	index := `{"version":1,"templates":{"t":{"path":"t.md","variables":["name"]}}}`
	v1 := writeSet(t, index, map[string]string{"t.md": "hi {{ name }}",
		"fixtures/t.json": `{"fixtures": [{"name": "ann", "template": "t", "vars": {"name": "Ann"}}]}`})
	code, _, stderr := runCLI(t, "", "push", v1, reg.Host+"/prompts:v1", "--plain-http")
	require.Equal(t, 0, code, stderr)
	v2 := writeSet(t, index, map[string]string{"t.md": "hello {{ name }}",
		"fixtures/t.json": `{"fixtures": [{"name": "ann", "template": "t", "vars": {"name": "Ann"}}]}`})

	code, stdout, stderr := runCLI(t, "", "diff", reg.Host+"/prompts:v1", v2, "--plain-http")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "-hi Ann\n")
	assert.Contains(t, stdout, "+hello Ann\n")
	assert.True(t, strings.HasPrefix(stdout, "a: "+reg.Host+"/prompts:v1 (sha256:"), stdout)
}
