package server

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureFiles is testFiles with a fixture file.
func fixtureFiles() map[string]string {
	files := maps.Clone(testFiles)
	files["fixtures/greet.json"] = `{"fixtures": [
  {"name": "ann", "description": "a warm greeting", "template": "greet", "vars": {"name": "Ann"}},
  {"name": "bob", "template": "greet", "vars": {"name": "Bob", "tone": "cold"}}
]}`
	return files
}

func TestListFixtures(t *testing.T) {
	_, _, ts := newDirServer(t, fixtureFiles(), WithPreview())
	r := call(t, ts, "GET", "/v1/fixtures", "")
	require.Equal(t, 200, r.code, r.body)
	var list fixtureList
	require.NoError(t, json.Unmarshal([]byte(r.body), &list))
	assert.False(t, list.Writable)
	require.Len(t, list.Fixtures, 2)
	assert.Equal(t, "greet/ann", list.Fixtures[0].ID)
	assert.Equal(t, "a warm greeting", list.Fixtures[0].Description)
	assert.Equal(t, "template", list.Fixtures[0].Kind)
	assert.Equal(t, "greet", list.Fixtures[0].Target)
	assert.JSONEq(t, `{"name": "Bob", "tone": "cold"}`, string(list.Fixtures[1].Input))
	assert.Empty(t, list.Problems)

	// Without WithFixtureWrites nothing is saved.
	r = call(t, ts, "POST", "/v1/fixtures", `{"template": "greet", "name": "x", "vars": {"name": "X"}}`)
	assert.Equal(t, 403, r.code)
	assert.Equal(t, "forbidden", r.problem(t).Kind)

	// The endpoints are the preview's.
	_, _, plain := newDirServer(t, fixtureFiles())
	assert.Equal(t, 404, call(t, plain, "GET", "/v1/fixtures", "").code)
}

func TestListFixturesWithProblems(t *testing.T) {
	files := fixtureFiles()
	files["fixtures/greet.json"] = `{"fixtures": [{"name": "ann", "template": "greet", "varz": {}}]}`
	_, _, ts := newDirServer(t, files, WithPreview())
	var list fixtureList
	require.NoError(t, json.Unmarshal([]byte(call(t, ts, "GET", "/v1/fixtures", "").body), &list))
	assert.Empty(t, list.Fixtures)
	require.Len(t, list.Problems, 1)
	assert.Contains(t, list.Problems[0], `fixtures/greet.json:1:52: fixture "ann": unknown key "varz"; did you mean "vars"?`)
}

func TestSaveFixture(t *testing.T) {
	dir, _, ts := newDirServer(t, fixtureFiles(), WithPreview(), WithFixtureWrites())
	var list fixtureList
	require.NoError(t, json.Unmarshal([]byte(call(t, ts, "GET", "/v1/fixtures", "").body), &list))
	assert.True(t, list.Writable)

	r := call(t, ts, "POST", "/v1/fixtures", `{"template": "greet", "name": "cyd", "vars": {"name": "Cyd"}, "golden": true}`)
	require.Equal(t, 201, r.code, r.body)
	assert.JSONEq(t, `{"id": "greet/cyd", "file": "fixtures/greet.json", "golden": "fixtures/golden/greet/cyd.txt"}`, r.body)
	b, err := os.ReadFile(filepath.Join(dir, "fixtures", "greet.json"))
	require.NoError(t, err)
	assert.Equal(t, `{"fixtures": [
  {"name": "ann", "description": "a warm greeting", "template": "greet", "vars": {"name": "Ann"}},
  {"name": "bob", "template": "greet", "vars": {"name": "Bob", "tone": "cold"}},
  {"name": "cyd", "template": "greet", "vars": {"name": "Cyd"}, "golden": "golden/greet/cyd.txt"}
]}`, string(b))
	b, err = os.ReadFile(filepath.Join(dir, "fixtures", "golden", "greet", "cyd.txt"))
	require.NoError(t, err)
	assert.Equal(t, "Hello Cyd (warm)!", string(b), "exactly the output: Jinja drops the final newline")

	// A chat template's fixture renders to messages, in a new file.
	r = call(t, ts, "POST", "/v1/fixtures", `{"template": "chat.v1-x", "name": "q", "vars": {"bot": "B", "q": "hi?"}, "golden": true}`)
	require.Equal(t, 201, r.code, r.body)
	b, err = os.ReadFile(filepath.Join(dir, "fixtures", "chat.v1-x.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `{"name": "q", "template": "chat.v1-x", "render": "messages", "vars": {"bot": "B", "q": "hi?"}, "golden": "golden/chat.v1-x/q.json"}`)
	b, err = os.ReadFile(filepath.Join(dir, "fixtures", "golden", "chat.v1-x", "q.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"content": "hi?"`)

	for _, tc := range []struct {
		body string
		code int
		kind string
	}{
		{`{"template": "greet", "name": "ann", "vars": {"name": "A"}}`, 409, "conflict"},
		{`{"template": "greet", "name": "cyd", "vars": {"name": "A"}, "golden": true}`, 409, "conflict"},
		{`{"template": "gret", "name": "x", "vars": {}}`, 404, "unknown_template"},
		{`{"template": "greet", "name": "a b", "vars": {}}`, 400, "bad_request"},
		{`{"template": "greet", "name": "x", "vars": [1]}`, 400, "bad_request"},
		{`{"template": "greet", "name": "x", "vars": {}, "extra": 1}`, 400, "bad_request"},
		{`{"template": "greet", "name": "x", "vars": {}}`, 422, "missing_variables"},
	} {
		r := call(t, ts, "POST", "/v1/fixtures", tc.body)
		assert.Equal(t, tc.code, r.code, tc.body)
		assert.Equal(t, tc.kind, r.problem(t).Kind, tc.body)
	}
	// Nothing was written by a refused request.
	entries, err := os.ReadDir(filepath.Join(dir, "fixtures"))
	require.NoError(t, err)
	assert.Len(t, entries, 3, "greet.json, chat.v1-x.json, golden/")
}

func TestFixtureWritesNeedADirectory(t *testing.T) {
	_, err := New(FS(os.DirFS(t.TempDir())), WithPreview(), WithFixtureWrites())
	assert.ErrorContains(t, err, "WithFixtureWrites needs WithPreview and a set in a directory")
	_, err = New(Dir(t.TempDir()), WithFixtureWrites())
	assert.ErrorContains(t, err, "WithFixtureWrites needs WithPreview")
}

// The rendered diff compares every fixture at the last two generations.
func TestFixturesDiff(t *testing.T) {
	dir, s, ts := newDirServer(t, fixtureFiles(), WithPreview())
	var d struct {
		Before   *generationRender `json:"before"`
		After    *generationRender `json:"after"`
		Rendered []struct {
			Fixture string `json:"fixture"`
			Status  string `json:"status"`
			Diff    string `json:"diff"`
		} `json:"rendered"`
	}
	get := func() {
		r := call(t, ts, "GET", "/v1/fixtures/diff", "")
		require.Equal(t, 200, r.code, r.body)
		require.NoError(t, json.Unmarshal([]byte(r.body), &d))
	}
	get()
	assert.Nil(t, d.Before, "one generation only")
	require.NotNil(t, d.After)
	assert.Equal(t, uint64(1), d.After.Generation)
	require.Len(t, d.Rendered, 2)
	assert.Equal(t, "added", d.Rendered[0].Status)

	writeSet(t, dir, map[string]string{"greet.md": "Hi {{ name }} ({{ tone }})!\n"})
	waitGeneration(t, s, 2)
	get()
	require.NotNil(t, d.Before)
	assert.Equal(t, uint64(1), d.Before.Generation)
	assert.Equal(t, uint64(2), d.After.Generation)
	require.Len(t, d.Rendered, 2)
	assert.Equal(t, "greet/ann", d.Rendered[0].Fixture)
	assert.Equal(t, "changed", d.Rendered[0].Status)
	assert.Equal(t, "--- before: greet/ann\n+++ after: greet/ann\n@@ -1 +1 @@\n-Hello Ann (warm)!\n\\ No newline at end of file\n+Hi Ann (warm)!\n\\ No newline at end of file\n", d.Rendered[0].Diff)
}
