package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/internal/registrytest"
)

// hostile is what a registry might say to take over a terminal: an OSC 52
// clipboard write, a screen clear and colour (CSI), an 8-bit CSI (C1), a
// carriage return that overwrites the line, a line feed that forges one,
// and a bidi override that reverses what follows.
const hostile = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b[31m\u009b1m\rforged\nline \u202egnp.exe"

// assertInert checks that out holds nothing a terminal would act on but
// line feeds, and that the hostile text shows up escaped.
func assertInert(t *testing.T, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\r", "\u202e"} {
		assert.NotContains(t, out, bad)
	}
	assert.Contains(t, out, `\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b[31m\u009b1m\x0dforged`)
}

// fakeRegistry answers the distribution API as a hostile registry would:
// every manifest request fails with an error message meant for the
// terminal, and the tag list of "endless" never ends.
func fakeRegistry(t *testing.T) (host string, tagPages *atomic.Int64) {
	t.Helper()
	tagPages = new(atomic.Int64)
	mux := http.NewServeMux()
	mux.HandleFunc("/v2/{repo}/manifests/{ref}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{"code": "DENIED", "message": hostile}}})
	})
	mux.HandleFunc("/v2/endless/tags/list", func(w http.ResponseWriter, r *http.Request) {
		n := tagPages.Add(1)
		// History tags of another label: nothing to resolve, only more to list.
		page := []string{fmt.Sprintf("other-at-20250102T030405.%09dZ", n)}
		w.Header().Set("Link", fmt.Sprintf(`</v2/endless/tags/list?last=%s&n=1>; rel="next"`, url.QueryEscape(page[0])))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"name": "endless", "tags": page})
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	u, err := url.Parse(ts.URL)
	require.NoError(t, err)
	docker := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(docker, "config.json"), []byte(`{}`), 0o600))
	t.Setenv("DOCKER_CONFIG", docker)
	return u.Host, tagPages
}

// A registry's error message reaches the terminal escaped: pull, tag and
// history print it inert, under the command's prefix.
func TestRegistryErrorsPrintInert(t *testing.T) {
	host, _ := fakeRegistry(t)
	for _, args := range [][]string{
		{"pull", host + "/prompts:production", filepath.Join(t.TempDir(), "x"), "--plain-http"},
		{"tag", host + "/prompts:v1", "production", "--plain-http"},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		assert.Equal(t, exitPrompt, code, stderr)
		assert.Empty(t, stdout)
		assert.True(t, strings.HasPrefix(stderr, "promptkit "+args[0]+": "), stderr)
		assertInert(t, stderr)
		assert.Contains(t, stderr, `\u202egnp.exe`)
	}
}

// An endless tag list: history reads its bounded number of pages, prints
// what it found, and says on stderr that it stopped early.
func TestHistoryStopsAnEndlessTagList(t *testing.T) {
	host, pages := fakeRegistry(t)
	code, stdout, stderr := runCLI(t, "", "history", host+"/endless:production", "--plain-http")
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "production: no such label now", strings.Split(stdout, "\n")[0])
	assert.Contains(t, stderr, "promptkit history: stopped early: the registry's tag list goes on past 100 pages")
	assert.Equal(t, int64(fleet.DefaultHistoryPages+1), pages.Load(), "one page past the bound tells it goes on")

	pages.Store(0)
	code, stdout, stderr = runCLI(t, "", "history", host+"/endless:production", "--plain-http", "--json")
	assert.Equal(t, exitOK, code, stderr)
	var h struct{ Truncated string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &h))
	assert.Contains(t, h.Truncated, "past 100 pages")

	// The library's bounds are the client's to set.
	c := &fleet.Client{PlainHTTP: true, HistoryLimits: fleet.HistoryLimits{Pages: 3}}
	pages.Store(0)
	hist, err := c.History(t.Context(), host+"/endless:production")
	require.NoError(t, err)
	assert.Contains(t, hist.Truncated, "past 3 pages")
	assert.Equal(t, int64(4), pages.Load())
}

// With a real registry: a message pushed with a set is someone else's
// words to whoever runs pull or history; both print it inert, and
// history --json keeps it exact.
func TestRegistryAnnotationsPrintInert(t *testing.T) {
	reg := registrytest.Start(t)
	docker := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(docker, "config.json"), []byte(`{}`), 0o600))
	t.Setenv("DOCKER_CONFIG", docker)
	repo := reg.Host + "/prompts"
	set := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{"t.md": "hi"})
	code, stdout, stderr := runCLI(t, "", "push", set, repo+":production", "--message", hostile, "--plain-http")
	require.Equal(t, exitOK, code, stderr)
	assertInert(t, stdout)

	code, stdout, stderr = runCLI(t, "", "pull", repo+":production", filepath.Join(t.TempDir(), "p"), "--plain-http")
	require.Equal(t, exitOK, code, stderr)
	assertInert(t, stdout)
	assert.Contains(t, stdout, `\x0aline \u202egnp.exe`, "a line feed cannot forge a line of the output")

	code, stdout, stderr = runCLI(t, "", "history", repo+":production", "--plain-http")
	require.Equal(t, exitOK, code, stderr)
	assertInert(t, stdout)
	assert.Len(t, strings.Split(strings.TrimSpace(stdout), "\n"), 3, "one line per move:\n%s", stdout)

	code, stdout, stderr = runCLI(t, "", "history", repo+":production", "--plain-http", "--json")
	require.Equal(t, exitOK, code, stderr)
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\r", "\u202e"} {
		assert.NotContains(t, stdout, bad)
	}
	var h struct{ Entries []struct{ Message string } }
	require.NoError(t, json.Unmarshal([]byte(stdout), &h))
	require.Len(t, h.Entries, 1)
	assert.Equal(t, hostile, h.Entries[0].Message, "JSON keeps the message exact")
}
