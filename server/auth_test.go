package server

import (
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToken(t *testing.T) {
	const token = "s3cret-token"
	_, _, ts := newDirServer(t, testFiles, WithToken(token), WithPreview())
	render := func(header ...string) response {
		return call(t, ts, "POST", "/v1/templates/greet:render", `{"name": "a"}`, header...)
	}

	r := render()
	require.Equal(t, http.StatusUnauthorized, r.code)
	assert.Equal(t, "unauthorized", r.problem(t).Kind)
	assert.Equal(t, `Bearer realm="promptkit"`, r.header.Get("WWW-Authenticate"))
	assert.Equal(t, http.StatusUnauthorized, render("Authorization", "Bearer wrong").code)
	assert.Equal(t, http.StatusUnauthorized, render("Authorization", token).code, "the Bearer scheme is needed")
	assert.Equal(t, http.StatusUnauthorized, render("Authorization", "Bearer "+token+"x").code)
	assert.Equal(t, http.StatusOK, render("Authorization", "Bearer "+token).code)

	for _, path := range []string{"/", "/v1/templates", "/v1/status", "/v1/events", "/metrics", "/v1/files/greet.md", "/preview/app.js", "/nothing"} {
		assert.Equal(t, http.StatusUnauthorized, call(t, ts, "GET", path, "").code, path)
	}

	// /healthz needs no token, but without one tells no problem text.
	assert.Equal(t, http.StatusOK, call(t, ts, "GET", "/healthz", "").code)

	// A browser trades /?token= for a cookie, and the page then works.
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar}
	resp, err := client.Get(ts.URL + "/?token=wrong")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	noFollow := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noFollow.Get(ts.URL + "/?token=" + token)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/", resp.Header.Get("Location"), "the token leaves the address bar")
	cookies := resp.Cookies()
	require.Len(t, cookies, 1)
	assert.True(t, cookies[0].HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, cookies[0].SameSite)

	for _, path := range []string{"/", "/v1/templates", "/preview/app.js", "/v1/files/greet.md"} {
		resp, err = client.Get(ts.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
}

func TestHealthzHidesProblemsWithoutToken(t *testing.T) {
	const token = "tok"
	dir, s, ts := newDirServer(t, testFiles, WithToken(token))
	writeSet(t, dir, map[string]string{"greet.md": "{% if %}"})
	waitFor(t, "failed reload", func() bool { return !s.Status().OK })

	h := healthOf(t, call(t, ts, "GET", "/healthz", ""))
	assert.Equal(t, "degraded", h.Status)
	assert.Empty(t, h.LastError)
	h = healthOf(t, call(t, ts, "GET", "/healthz", "", "Authorization", "Bearer "+token))
	assert.Contains(t, h.LastError, "greet.md:1:")
}

func TestFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.txt")
	require.NoError(t, os.WriteFile(outside, []byte("private"), 0o644))
	dir, s, ts := newDirServer(t, testFiles, WithPreview())
	writeSet(t, dir, map[string]string{".env": "TOKEN=private", "notes/draft.md": "private"})

	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"index.json", 200, testIndex},
		{"greet.md", 200, testFiles["greet.md"]},
		{"parts/notes.md", 200, testFiles["parts/notes.md"]},
		{".env", 404, ""},                                 // in the directory, but not a file of the set
		{"notes/draft.md", 404, ""},                       // likewise
		{"parts/../greet.md", 200, testFiles["greet.md"]}, // the mux cleans the path first
		{"../../../etc/passwd", 404, ""},
		{"/etc/passwd", 404, ""},
		{"parts", 404, ""},
	} {
		r := call(t, ts, "GET", "/v1/files/"+tc.path, "")
		assert.Equal(t, tc.code, r.code, tc.path)
		if tc.code == 200 {
			assert.Equal(t, tc.body, r.body, tc.path)
			assert.Equal(t, "text/plain; charset=utf-8", r.header.Get("Content-Type"))
		} else {
			assert.NotContains(t, r.body, "private", tc.path)
		}
	}

	// A template file that is a symlink out of the directory: the set
	// refuses it, the page may ask for the file a problem names, and the
	// os.Root still keeps the outside file out.
	require.NoError(t, os.Remove(filepath.Join(dir, "greet.md")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "greet.md")))
	waitFor(t, "failed reload", func() bool { return !s.Status().OK })
	require.NotEmpty(t, s.Status().Problems)
	assert.Equal(t, "sandbox", s.Status().Problems[0].Kind)
	assert.Equal(t, "greet.md", s.Status().Problems[0].Path)
	r := call(t, ts, "GET", "/v1/files/greet.md", "")
	assert.NotEqual(t, http.StatusOK, r.code)
	assert.NotContains(t, r.body, "private")
}

func TestPreviewAssets(t *testing.T) {
	_, _, ts := newDirServer(t, testFiles, WithPreview())
	for path, ct := range map[string]string{
		"/":                  "text/html; charset=utf-8",
		"/preview/app.js":    "text/javascript; charset=utf-8",
		"/preview/style.css": "text/css; charset=utf-8",
	} {
		r := call(t, ts, "GET", path, "")
		require.Equal(t, http.StatusOK, r.code, path)
		assert.Equal(t, ct, r.header.Get("Content-Type"), path)
		assert.Contains(t, r.header.Get("Content-Security-Policy"), "script-src 'self'")
		assert.NotEmpty(t, r.body)
	}
	assert.Equal(t, http.StatusNotFound, call(t, ts, "GET", "/preview/index.html", "").code)
	assert.Equal(t, http.StatusNotFound, call(t, ts, "GET", "/preview/nothing.js", "").code)
	page := call(t, ts, "GET", "/", "").body
	assert.NotContains(t, page, "http://", "nothing from elsewhere")
	assert.NotContains(t, page, "https://")
}
