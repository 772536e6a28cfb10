package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSet is a set with one template and fixtures: one passes, one fails
// its golden.
func testSet(t *testing.T) string {
	t.Helper()
	return writeSet(t, `{"version": 1, "templates": {"greet": {"path": "greet.md", "variables": ["name"]}}}`, map[string]string{
		"greet.md": "你好，{{ name }}！\n今天想聊什么？",
		"fixtures/greet.json": `{"fixtures": [
  {"name": "maimai", "template": "greet", "vars": {"name": "麦麦"}, "golden": "golden/maimai.txt"},
  {"name": "xiaoai", "template": "greet", "vars": {"name": "小爱"}, "golden": "golden/xiaoai.txt", "contains": ["小爱"]}
]}`,
		"fixtures/golden/maimai.txt": "你好，麦麦！\n今天想聊什么？",
		"fixtures/golden/xiaoai.txt": "你好，小爱！\n今天聊什么？",
	})
}

func TestTestCommand(t *testing.T) {
	dir := testSet(t)
	code, stdout, stderr := runCLI(t, "", "test", "--dir", dir)
	assert.Equal(t, exitPrompt, code, stderr)
	assert.Equal(t, `--- FAIL: greet/xiaoai (template greet, fixtures/greet.json:3:3)
    golden: the output differs from the golden file fixtures/golden/xiaoai.txt
    --- fixtures/golden/xiaoai.txt
    +++ output
    @@ -1,2 +1,2 @@
     你好，小爱！
    -今天聊什么？
    \ No newline at end of file
    +今天想聊什么？
    \ No newline at end of file
fixtures: 1 passed, 1 failed
`, stdout)

	// One target: the passing one alone.
	code, stdout, _ = runCLI(t, "", "test", "greet/maimai", "--dir", dir, "--verbose")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "--- ok: greet/maimai (template greet, fixtures/greet.json:2:3)\nfixtures: 1 passed, 0 failed\n", stdout)

	// JUnit for CI, written even when fixtures fail.
	junit := filepath.Join(t.TempDir(), "fixtures.xml")
	code, _, _ = runCLI(t, "", "test", "--dir", dir, "--junit", junit)
	assert.Equal(t, exitPrompt, code)
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	require.NoError(t, xml.Unmarshal(b, &doc))
	assert.Equal(t, 2, doc.Tests)
	assert.Equal(t, 1, doc.Failures)

	// --update writes the golden that differs; the run passes then.
	code, stdout, _ = runCLI(t, "", "test", "--dir", dir, "--update")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "updated fixtures/golden/xiaoai.txt\nfixtures: 2 passed, 0 failed\n", stdout)
	b, err = os.ReadFile(filepath.Join(dir, "fixtures", "golden", "xiaoai.txt"))
	require.NoError(t, err)
	assert.Equal(t, "你好，小爱！\n今天想聊什么？", string(b))
	code, _, _ = runCLI(t, "", "test", "--dir", dir)
	assert.Equal(t, exitOK, code)
}

func TestTestCommandProblems(t *testing.T) {
	dir := testSet(t)
	runCases(t, []cliCase{
		{name: "update needs a directory", args: []string{"test", "--update"}, code: exitUsage,
			stderr: "--update writes golden files into the set's directory: give it with --dir DIR"},
		{name: "a target no fixture goes through", args: []string{"test", "gret", "--dir", dir}, code: exitUsage,
			stderr: `no fixture goes through "gret" (did you mean "greet"?)`},
		{name: "unknown flag", args: []string{"test", "--updat"}, code: exitUsage, stderr: "unknown flag --updat"},
	})

	bad := writeSet(t, `{"version": 1, "templates": {"greet": {"path": "greet.md", "variables": ["name"]}}}`, map[string]string{
		"greet.md":            "{{ name }}",
		"fixtures/greet.json": `{"fixtures": [{"name": "a", "template": "greet", "varz": {}}]}`,
	})
	junit := filepath.Join(t.TempDir(), "fixtures.xml")
	code, stdout, stderr := runCLI(t, "", "test", "--dir", bad, "--junit", junit)
	assert.Equal(t, exitPrompt, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `fixtures/greet.json:1:50: fixture "a": unknown key "varz"; did you mean "vars"?`)
	assert.Contains(t, stderr, "promptkit test: the fixture files have problems; no fixture ran")
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `<error message="the fixtures did not run" type="load">`)

	broken := writeSet(t, `{"version": 1, "templates": {"greet": {"path": "greet.md"}}}`, map[string]string{"greet.md": "{{ name }}"})
	code, _, stderr = runCLI(t, "", "test", "--dir", broken)
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stderr, "the set does not load; no fixture ran")
}

// The embedded set's fixtures pass, as the CLI runs them.
func TestTestCommandEmbeddedSet(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "test")
	assert.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasSuffix(stdout, " passed, 0 failed\n"), stdout)
}

// --tokens counts each output and checks the fixtures' token bounds with
// it; without it a bound is noted as not checked.
func TestTestCommandTokens(t *testing.T) {
	dir := writeSet(t, `{"version": 1, "templates": {"greet": {"path": "greet.md", "variables": ["name"]}}}`, map[string]string{
		"greet.md": "Hello, {{ name }}! What shall we talk about today?",
		"fixtures/greet.json": `{"fixtures": [
  {"name": "short", "template": "greet", "vars": {"name": "Ann"}, "tokens": {"max": 5}},
  {"name": "fits", "template": "greet", "vars": {"name": "Ann"}, "tokens": {"min": 5, "max": 40}}
]}`,
	})
	code, stdout, stderr := runCLI(t, "", "test", "--dir", dir, "--tokens", "o200k_base")
	assert.Equal(t, exitPrompt, code, stderr)
	assert.Contains(t, stdout, "--- FAIL: greet/short")
	assert.Contains(t, stdout, "tokens, more than the maximum 5")
	assert.NotContains(t, stdout, "greet/fits")
	assert.Contains(t, stdout, "fixtures: 1 passed, 1 failed")

	code, stdout, _ = runCLI(t, "", "test", "--dir", dir, "--verbose")
	assert.Equal(t, exitOK, code, "without a counter the bounds are not checked")
	assert.Contains(t, stdout, "not checked")

	code, _, stderr = runCLI(t, "", "test", "--dir", dir, "--tokens", "nope_base")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "promptkit test: --tokens nope_base")
}
