package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/registrytest"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// infoField reads one "key value" line of push, pull and tag output.
func infoField(t *testing.T, out, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + key + ` +(.*)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "no %q line in:\n%s", key, out)
	return m[1]
}

func TestRegistryCommands(t *testing.T) {
	reg := registrytest.Start(t)
	docker := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(docker, "config.json"), []byte(`{}`), 0o600))
	t.Setenv("DOCKER_CONFIG", docker) // never the machine's credentials
	t.Setenv("USER", "alice")         // who moves labels, in the history
	repo := reg.Host + "/prompts"
	index := `{"version":1,"templates":{"t":{"path":"t.md","variables":["name"]}}}`
	v1 := writeSet(t, index, map[string]string{"t.md": "v1 {{ name }}"})
	v2 := writeSet(t, index, map[string]string{"t.md": "v2 {{ name }}"})
	broken := writeSet(t, index, map[string]string{"t.md": "{{ nmae }}"})

	// A broken set is never pushed.
	code, stdout, stderr := runCLI(t, "", "push", broken, repo+":broken", "--plain-http")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `t.md:1:4: template "t": undeclared variable "nmae"`)
	assert.Contains(t, stderr, "nothing was pushed")
	code, _, stderr = runCLI(t, "", "pull", repo+":broken", filepath.Join(t.TempDir(), "x"), "--plain-http")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not found")

	code, stdout, stderr = runCLI(t, "", "push", "--plain-http", v1, repo+":v1", "--message", "first")
	require.Equal(t, 0, code, stderr)
	m1, err := manager.Open(v1)
	require.NoError(t, err)
	defer m1.Close()
	assert.Equal(t, repo+":v1", infoField(t, stdout, "ref"))
	assert.Equal(t, m1.Digest(), infoField(t, stdout, "set"))
	assert.Equal(t, "first", infoField(t, stdout, "message"))
	pin1 := infoField(t, stdout, "pinned")
	assert.True(t, strings.HasPrefix(pin1, repo+"@sha256:"), pin1)

	code, stdout, stderr = runCLI(t, "", "push", v2, repo+":v2", "--plain-http")
	require.Equal(t, 0, code, stderr)
	pin2 := infoField(t, stdout, "pinned")

	code, stdout, stderr = runCLI(t, "", "tag", repo+":v1", "production", "--plain-http")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, repo+":production", infoField(t, stdout, "ref"))
	assert.Equal(t, pin1, infoField(t, stdout, "pinned"))
	code, _, stderr = runCLI(t, "", "tag", repo+":v2", "production", "--plain-http")
	require.Equal(t, 0, code, stderr)

	dir := filepath.Join(t.TempDir(), "pulled")
	code, stdout, stderr = runCLI(t, "", "pull", repo+":production", dir, "--plain-http")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, pin2, infoField(t, stdout, "pinned"))
	code, stdout, _ = runCLI(t, "", "render", "t", "--dir", dir, "--var", "name=Ann")
	assert.Equal(t, 0, code)
	assert.Equal(t, "v2 Ann", stdout)

	// Roll back by digest; the history shows all three moves.
	code, _, stderr = runCLI(t, "", "tag", pin1, "production", "--plain-http")
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = runCLI(t, "", "history", repo+":production", "--plain-http")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 5, stdout)
	d1, d2 := strings.TrimPrefix(pin1, repo+"@"), strings.TrimPrefix(pin2, repo+"@")
	assert.Equal(t, "production -> "+d1, lines[0])
	assert.Regexp(t, `^ +LABELLED +MANIFEST +SET +CREATED +LABELS +BY +MESSAGE$`, lines[1])
	assert.Regexp(t, `^\* +\d{4}-\d\d-\d\dT[\d:.]+Z +`+d1+` +`+regexp.QuoteMeta(m1.Digest()[:19])+` +\S+ +production,v1 +alice +first$`, lines[2])
	assert.Regexp(t, `^ +\S+ +`+d2+` +sha256:\w{12} +\S+ +v2 +alice +-$`, lines[3])
	assert.Regexp(t, `^ +\S+ +`+d1+` .* production,v1 +alice +first$`, lines[4])

	code, stdout, stderr = runCLI(t, "", "history", repo+":production", "--plain-http", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `"current": "`+d1+`"`)
	assert.Contains(t, stdout, `"v2": "`+d2+`"`)

	runCases(t, []cliCase{
		{"push without a label", "", []string{"push", v1, repo}, 2, "", "names no label"},
		{"push arguments", "", []string{"push", v1}, 2, "", "push takes DIR and REF"},
		{"tag to a reference", "", []string{"tag", repo + ":v1", repo + ":prod"}, 2, "", "bare label"},
		{"tag to a history tag", "", []string{"tag", repo + ":v1", "production-at-20250102T030405.000000000Z", "--plain-http"}, 2, "", "history tag"},
		{"history of a digest", "", []string{"history", pin1}, 2, "", "needs a label"},
		{"pull into a full directory", "", []string{"pull", repo + ":v1", v2, "--plain-http"}, 1, "", "not empty"},
		{"https to a plain registry", "", []string{"pull", repo + ":v1", filepath.Join(t.TempDir(), "y")}, 1, "", "add --plain-http"},
	})
}
