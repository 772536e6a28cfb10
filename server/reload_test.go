package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func healthOf(t *testing.T, r response) health {
	t.Helper()
	var h health
	require.NoError(t, json.Unmarshal([]byte(r.body), &h), r.body)
	return h
}

func TestReloadStatusAndHealth(t *testing.T) {
	dir, s, ts := newDirServer(t, testFiles)

	r := call(t, ts, "GET", "/healthz", "")
	require.Equal(t, http.StatusOK, r.code)
	h := healthOf(t, r)
	assert.Equal(t, "ok", h.Status)
	assert.Equal(t, uint64(1), h.Generation)
	assert.Empty(t, h.LastError)

	// An edit goes live after the debounce, with a new digest.
	before := s.Status().Digest
	writeSet(t, dir, map[string]string{"greet.md": "Hi {{ name }} ({{ tone }})"})
	waitGeneration(t, s, 2)
	r = call(t, ts, "POST", "/v1/templates/greet:render", `{"name": "Ada"}`)
	assert.Equal(t, "Hi Ada (warm)", r.body)
	assert.Equal(t, "2", r.header.Get(HeaderGeneration))
	assert.NotEqual(t, before, r.header.Get(HeaderDigest))

	// A broken edit never goes live: the last good set serves, health is
	// degraded and names the problem with its line.
	writeSet(t, dir, map[string]string{"greet.md": "Hi {{ name }}\n{% if %}"})
	waitFor(t, "failed reload", func() bool { return !s.Status().OK })
	st := s.Status()
	assert.True(t, st.Serving)
	assert.Equal(t, uint64(2), st.Generation)
	require.NotEmpty(t, st.Problems)
	assert.Equal(t, "greet.md", st.Problems[0].Path)
	assert.Equal(t, 2, st.Problems[0].Line)
	assert.Equal(t, "greet", st.Problems[0].Template)

	h = healthOf(t, call(t, ts, "GET", "/healthz", ""))
	assert.Equal(t, "degraded", h.Status)
	assert.Contains(t, h.LastError, "greet.md:2:")
	r = call(t, ts, "POST", "/v1/templates/greet:render", `{"name": "Ada"}`)
	assert.Equal(t, "Hi Ada (warm)", r.body, "the last good set keeps serving")

	var got Status
	require.NoError(t, json.Unmarshal([]byte(call(t, ts, "GET", "/v1/status", "").body), &got))
	assert.False(t, got.OK)
	assert.Equal(t, st.Problems, got.Problems)

	// Fixed: ok again, one generation on.
	writeSet(t, dir, map[string]string{"greet.md": "Hey {{ name }} ({{ tone }})"})
	waitFor(t, "fixed", func() bool { return s.Status().OK })
	assert.Equal(t, uint64(3), s.Status().Generation)
	assert.Empty(t, s.Status().Problems)
	assert.Equal(t, "ok", healthOf(t, call(t, ts, "GET", "/healthz", "")).Status)
}

func TestBrokenAtStart(t *testing.T) {
	broken := map[string]string{}
	for k, v := range testFiles {
		broken[k] = v
	}
	broken["greet.md"] = "Hello\n{% if %}\n"
	dir, s, ts := newDirServer(t, broken, WithPreview())

	// The server starts and says what is wrong, everywhere.
	st := s.Status()
	assert.False(t, st.Serving)
	require.NotEmpty(t, st.Problems)
	assert.Equal(t, "greet.md", st.Problems[0].Path)
	assert.Equal(t, 2, st.Problems[0].Line)

	r := call(t, ts, "GET", "/healthz", "")
	assert.Equal(t, http.StatusServiceUnavailable, r.code)
	assert.Equal(t, "unavailable", healthOf(t, r).Status)
	assert.Equal(t, "0", r.header.Get(HeaderGeneration))
	assert.Empty(t, r.header.Get(HeaderDigest))

	for _, path := range []string{"/v1/templates", "/v1/templates/greet:render", "/v1/builders"} {
		method := "GET"
		if strings.Contains(path, ":") {
			method = "POST"
		}
		r = call(t, ts, method, path, "")
		require.Equal(t, http.StatusServiceUnavailable, r.code, path)
		p := r.problem(t)
		assert.Equal(t, "unavailable", p.Kind)
		require.NotEmpty(t, p.Problems, path)
		assert.Equal(t, st.Problems, p.Problems)
	}
	// The page can show the broken file: its path is a problem's.
	r = call(t, ts, "GET", "/v1/files/greet.md", "")
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.Equal(t, broken["greet.md"], r.body)

	// Fixed on disk: the server loads it, and from then on watches it.
	writeSet(t, dir, map[string]string{"greet.md": testFiles["greet.md"]})
	waitFor(t, "loaded after the fix", func() bool { return s.Status().Serving })
	assert.True(t, s.Status().OK)
	assert.Equal(t, "retry", s.Status().Trigger)
	r = call(t, ts, "POST", "/v1/templates/greet:render", `{"name": "Ada"}`)
	assert.Equal(t, "Hello Ada (warm)!", r.body)
	writeSet(t, dir, map[string]string{"greet.md": "Bye {{ name }}{{ tone }}"})
	waitGeneration(t, s, 2)
	assert.Equal(t, "Bye Adawarm", call(t, ts, "POST", "/v1/templates/greet:render", `{"name": "Ada"}`).body)
}

func TestNewErrors(t *testing.T) {
	_, err := New(Dir(filepath.Join(t.TempDir(), "missing")))
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = New(Set{})
	assert.ErrorIs(t, err, ErrNoSet)
	_, err = New(FS(os.DirFS(t.TempDir())))
	assert.ErrorIs(t, err, manager.ErrIndex, "a fixed set that does not load cannot recover")
	for _, o := range []Option{WithToken(""), WithMaxBodyBytes(0), WithHeartbeat(0), WithRetryInterval(-1),
		WithTimeouts(Timeouts{Write: -1}), WithLogger(nil), WithService(nil)} {
		_, err = New(FS(promptkit.FS()), o)
		assert.Error(t, err)
	}
}

// listen serves s on a loopback port with Serve and returns its URL and a
// function that shuts it down and returns Serve's result.
func listen(t *testing.T, s *Server) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	var once sync.Once
	var serr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serr = <-done:
			case <-time.After(20 * time.Second):
				serr = fmt.Errorf("Serve did not return")
			}
		})
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return "http://" + ln.Addr().String(), stop
}

// sse reads server-sent events from a stream.
type sse struct {
	resp *http.Response
	rd   *bufio.Reader
}

func openEvents(t *testing.T, url string) *sse {
	t.Helper()
	resp, err := http.Get(url + "/v1/events")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	t.Cleanup(func() { resp.Body.Close() })
	return &sse{resp: resp, rd: bufio.NewReader(resp.Body)}
}

// next returns the next event's type and data; comments count as
// "comment" events. It fails on the end of the stream.
func (e *sse) next(t *testing.T) (string, string) {
	t.Helper()
	var typ, data string
	for {
		line, err := e.rd.ReadString('\n')
		require.NoError(t, err, "the stream ended")
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && (typ != "" || data != ""):
			return typ, data
		case strings.HasPrefix(line, ":"):
			return "comment", line
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		case strings.HasPrefix(line, "retry: "):
			typ = "retry"
		}
	}
}

// nextStatus skips comments and returns the next status.
func (e *sse) nextStatus(t *testing.T) Status {
	t.Helper()
	for {
		typ, data := e.next(t)
		if typ != "status" {
			continue
		}
		var st Status
		require.NoError(t, json.Unmarshal([]byte(data), &st))
		return st
	}
}

func TestEventsOutliveTheTimeouts(t *testing.T) {
	// Read and write timeouts of 150 ms: a stream that kept them would end
	// (or lose its context) long before the reload it waits for.
	dir, s, _ := newDirServer(t, testFiles,
		WithTimeouts(Timeouts{Read: 150 * time.Millisecond, Write: 150 * time.Millisecond}),
		WithHeartbeat(40*time.Millisecond))
	url, stop := listen(t, s)
	ev := openEvents(t, url)
	st := ev.nextStatus(t)
	assert.Equal(t, uint64(1), st.Generation)
	assert.True(t, st.OK)

	// Heartbeats keep coming well past both timeouts: read them until five
	// have come and four times the timeouts have passed (on a slow
	// machine that takes longer; a stream the timeouts ended fails).
	start := time.Now()
	for beats := 0; beats < 5 || time.Since(start) < 600*time.Millisecond; {
		if typ, _ := ev.next(t); typ == "comment" {
			beats++
		}
	}

	// A broken edit and its fix arrive as events, problems and all.
	writeSet(t, dir, map[string]string{"greet.md": "{% for %}"})
	st = ev.nextStatus(t)
	assert.False(t, st.OK)
	require.NotEmpty(t, st.Problems)
	assert.Equal(t, "greet.md", st.Problems[0].Path)
	assert.Equal(t, 1, st.Problems[0].Line)
	writeSet(t, dir, map[string]string{"greet.md": "fixed {{ name }}{{ tone }}"})
	st = ev.nextStatus(t)
	assert.True(t, st.OK)
	assert.Equal(t, uint64(2), st.Generation)

	// A graceful shutdown ends the stream instead of waiting for it (a
	// shutdown that waited would end in its timeout's error).
	require.NoError(t, stop())
	_, err := ev.rd.ReadString('\n')
	for err == nil {
		_, err = ev.rd.ReadString('\n')
	}
}

func TestSlowRequestTimesOut(t *testing.T) {
	// A client that sends its headers too slowly is cut off.
	s, err := New(FS(promptkit.FS()), WithTimeouts(Timeouts{ReadHeader: 100 * time.Millisecond}))
	require.NoError(t, err)
	defer s.Close()
	url, _ := listen(t, s)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: localhost\r\n")) // never ends the headers
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute))) // a hang, not a slow machine
	buf := make([]byte, 512)
	n, err := conn.Read(buf)
	// The server closes the connection (possibly after a 408): no hang.
	if err == nil {
		assert.Contains(t, string(buf[:n]), "408")
	} else {
		assert.NotContains(t, err.Error(), "timeout", "the server, not the client's deadline, ended it")
	}
}

func TestHostCheckOnLoopback(t *testing.T) {
	s, err := New(FS(promptkit.FS()))
	require.NoError(t, err)
	defer s.Close()
	url, _ := listen(t, s)
	for host, code := range map[string]int{
		"":                     http.StatusOK, // the dialled 127.0.0.1:port
		"localhost:8080":       http.StatusOK,
		"[::1]:8080":           http.StatusOK,
		"app.localhost":        http.StatusOK,
		"evil.example":         http.StatusForbidden,
		"evil.example:8080":    http.StatusForbidden,
		"127.0.0.1.nip.io:80":  http.StatusForbidden,
		"192.168.1.10:8080":    http.StatusForbidden,
		"localhost.evil.com":   http.StatusForbidden,
		"127.0.0.1.evil.com":   http.StatusForbidden,
		"0x7f000001.evil.com.": http.StatusForbidden,
	} {
		req, err := http.NewRequest("GET", url+"/v1/templates", nil)
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, code, resp.StatusCode, host)
		assert.NotEmpty(t, resp.Header.Get(HeaderDigest), host)
	}
	assert.True(t, IsLoopback("127.0.0.1:8080"))
	assert.True(t, IsLoopback("[::1]:0"))
	assert.True(t, IsLoopback("localhost:80"))
	assert.False(t, IsLoopback(":8080"))
	assert.False(t, IsLoopback("0.0.0.0:8080"))
	assert.False(t, IsLoopback("192.168.1.2:8080"))
	assert.False(t, IsLoopback("127.0.0.1"))
}

// TestHeadersNameTheSetThatRendered renders from several goroutines while
// the set is rewritten: every answer is right for the version it shows,
// and its digest and generation headers are those of that version — never
// the set before or after it.
func TestHeadersNameTheSetThatRendered(t *testing.T) {
	dir, s, ts := newDirServer(t, testFiles)
	const reloads = 5
	var (
		mu        sync.Mutex
		byVersion = map[string]map[string]bool{} // body → digests seen
		genOf     = map[string]map[string]bool{} // body → generations seen
		failures  []string
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := ts.Client().Post(ts.URL+"/v1/templates/greet:render", "application/json", strings.NewReader(`{"name": "x"}`))
				if err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					return
				}
				b := make([]byte, 64)
				n, _ := resp.Body.Read(b)
				resp.Body.Close()
				mu.Lock()
				body := string(b[:n])
				if resp.StatusCode != http.StatusOK {
					failures = append(failures, body)
				}
				if byVersion[body] == nil {
					byVersion[body], genOf[body] = map[string]bool{}, map[string]bool{}
				}
				byVersion[body][resp.Header.Get(HeaderDigest)] = true
				genOf[body][resp.Header.Get(HeaderGeneration)] = true
				mu.Unlock()
			}
		}()
	}
	for i := 1; i <= reloads; i++ {
		writeSet(t, dir, map[string]string{"greet.md": fmt.Sprintf("v%d {{ name }}{{ tone }}", i)})
		waitGeneration(t, s, uint64(i+1))
		body := fmt.Sprintf("v%d xwarm", i)
		waitFor(t, "a render of "+body, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(byVersion[body]) > 0
		})
	}
	close(stop)
	wg.Wait()
	assert.Empty(t, failures)
	for i := 1; i <= reloads; i++ {
		body := fmt.Sprintf("v%d xwarm", i)
		assert.Len(t, byVersion[body], 1, "one digest for %q: %v", body, byVersion[body])
		assert.Equal(t, map[string]bool{fmt.Sprint(i + 1): true}, genOf[body], body)
	}
}
