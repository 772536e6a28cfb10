package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

// limitFiles is a set whose prompt is as large as the caller asks, one
// that fails quoting its value, and one that raises with it.
var limitFiles = map[string]string{
	"index.json": `{"version": 1, "templates": {
	  "blob":  {"path": "blob.md", "variables": ["n"]},
	  "plus":  {"path": "plus.md", "variables": ["n"]},
	  "raise": {"path": "raise.md", "variables": ["m"]}}}`,
	"blob.md":  `{{ "x" * n }}`,
	"plus.md":  `{{ n + 1 }}`,
	"raise.md": `{{ raise_exception(m) }}`,
}

// smallBuffers is a listener whose connections have a small send buffer,
// so a response that a client does not read stays in the server, as it
// would behind a slow network, instead of in the kernel's buffers.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

// serveLimited runs s.Serve on a loopback listener until the test ends.
func serveLimited(t *testing.T, s *Server, wrap func(net.Listener) net.Listener) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, wrap(ln)) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// slowDialer dials with a small receive buffer: a client that reads
// nothing lets little of a response through.
var slowDialer = net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10) })
	return errors.Join(err, serr)
}}

// rawRequest sends one HTTP/1.1 request on c and reads the response's
// status line and headers, leaving its body unread.
func rawRequest(t *testing.T, c net.Conn, br *bufio.Reader, method, path, body string) *http.Response {
	t.Helper()
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", method, path, len(body), body)
	_, err := io.WriteString(c, req)
	require.NoError(t, err)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	return resp
}

// metricsOf scrapes /metrics.
func metricsOf(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return exposition(t, string(b))
}

// Many slow clients at once ask for a large prompt and do not read it:
// the responses held at once stay within the response memory, every
// other client gets 503 with Retry-After at once (not a wait for the
// slow ones), the host keeps answering, and once the clients have read,
// the memory is free again.
func TestLimitsHoldUnderSlowClients(t *testing.T) {
	const (
		clients = 32
		size    = 1 << 20 // one response
	)
	dir := t.TempDir()
	writeSet(t, dir, limitFiles)
	s, err := New(Dir(dir), WithLimits(Limits{Connections: clients + 8, Renders: 2, QueueWait: time.Second,
		ResponseBytes: size, ResponseMemory: 2 * size}))
	require.NoError(t, err)
	defer s.Close()
	addr := serveLimited(t, s, func(ln net.Listener) net.Listener { return smallBuffers{ln} })

	type answer struct {
		code       int
		retryAfter string
		kind       string
		conn       net.Conn
		br         *bufio.Reader
	}
	answers := make(chan answer, clients)
	body := fmt.Sprintf(`{"n": %d}`, size)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			c, err := slowDialer.Dial("tcp", addr)
			if !assert.NoError(t, err) {
				answers <- answer{}
				return
			}
			br := bufio.NewReader(c)
			resp := rawRequest(t, c, br, "POST", "/v1/templates/blob:render", body)
			a := answer{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), conn: c, br: br}
			if resp.StatusCode != http.StatusOK {
				var p Problem
				assert.NoError(t, json.NewDecoder(resp.Body).Decode(&p))
				a.kind = p.Kind
			}
			answers <- a // a 200's body is left unread: the client is slow
		})
	}
	wg.Wait()
	close(answers)
	var held []answer
	shed := 0
	for a := range answers {
		switch a.code {
		case http.StatusOK:
			held = append(held, a)
		case http.StatusServiceUnavailable:
			shed++
			assert.Equal(t, "1", a.retryAfter)
			assert.Equal(t, kindOverloaded, a.kind)
			a.conn.Close()
		default:
			t.Errorf("status %d", a.code)
		}
	}
	assert.NotEmpty(t, held, "some clients are served")
	assert.LessOrEqual(t, len(held), 2, "no more responses held than the response memory allows")
	assert.Equal(t, clients-len(held), shed, "every other client is told to retry")

	// The host answers while the slow clients hold their responses.
	resp, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	got := metricsOf(t, addr)
	assert.LessOrEqual(t, got["promptkit_http_response_bytes_in_flight"], float64(2*size))
	assert.Equal(t, float64(len(held))*size, got["promptkit_http_response_bytes_in_flight"])
	assert.Equal(t, float64(shed), got[`promptkit_http_overloaded_total{limit="renders"}`]+got[`promptkit_http_overloaded_total{limit="response_memory"}`])

	// The slow clients read their prompts, whole; then the memory is free.
	for _, a := range held {
		n, err := io.Copy(io.Discard, io.LimitReader(a.br, size))
		require.NoError(t, err)
		assert.Equal(t, int64(size), n)
		a.conn.Close()
	}
	r, err := http.Post("http://"+addr+"/v1/templates/blob:render", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Len(t, b, size)
}

// Serve keeps at most Limits.Connections open: one more waits until one
// closes, then is served.
func TestConnectionLimit(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, limitFiles)
	s, err := New(Dir(dir), WithLimits(Limits{Connections: 2}))
	require.NoError(t, err)
	defer s.Close()
	addr := serveLimited(t, s, func(ln net.Listener) net.Listener { return ln })

	// Two kept-alive connections, each served once: both slots taken.
	var open []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		resp := rawRequest(t, c, bufio.NewReader(c), "GET", "/healthz", "")
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		open = append(open, c)
	}
	third, err := net.Dial("tcp", addr) // the kernel completes the handshake; the server does not accept it
	require.NoError(t, err)
	defer third.Close()
	_, err = io.WriteString(third, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(third)
	require.NoError(t, third.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = br.Peek(1)
	var ne net.Error
	require.ErrorAs(t, err, &ne, "a third connection is not served while two are open")
	require.True(t, ne.Timeout())

	require.NoError(t, open[0].Close())
	require.NoError(t, third.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err, "served once a slot is free")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// blockingBuilder blocks in Build until release is closed, so a test can
// hold a render slot.
type blockingBuilder struct {
	entered chan struct{}
	release chan struct{}
}

func (blockingBuilder) Name() string     { return "block" }
func (blockingBuilder) Template() string { return "blob" }
func (blockingBuilder) Keys() []string   { return nil }
func (b blockingBuilder) Build(builders.Context) (string, error) {
	b.entered <- struct{}{}
	<-b.release
	return "done", nil
}

// With every render slot taken, a request waits the queue wait, then gets
// 503 with Retry-After; a request that finds a slot is served.
func TestRenderLimit(t *testing.T) {
	b := blockingBuilder{entered: make(chan struct{}, 1), release: make(chan struct{})}
	dir := t.TempDir()
	writeSet(t, dir, limitFiles)
	s, err := New(Dir(dir), WithLimits(Limits{Renders: 1, QueueWait: 20 * time.Millisecond}),
		WithService(func(m *manager.Manager) (*service.Service, error) { return service.New(m, service.WithBuilders(b)) }))
	require.NoError(t, err)
	defer s.Close()
	addr := serveLimited(t, s, func(ln net.Listener) net.Listener { return ln })
	url := "http://" + addr

	first := make(chan *http.Response, 1)
	go func() {
		r, err := http.Post(url+"/v1/builders/block:build", "application/json", nil)
		assert.NoError(t, err)
		first <- r
	}()
	<-b.entered // the one slot is taken

	r, err := http.Post(url+"/v1/templates/blob:render", "application/json", strings.NewReader(`{"n": 3}`))
	require.NoError(t, err)
	var p Problem
	require.NoError(t, json.NewDecoder(r.Body).Decode(&p))
	r.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	assert.Equal(t, "1", r.Header.Get("Retry-After"))
	assert.Equal(t, kindOverloaded, p.Kind)
	assert.Contains(t, p.Message, "1 renders are running")

	close(b.release)
	r = <-first
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	assert.Equal(t, "done", string(body))
	r, err = http.Post(url+"/v1/templates/blob:render", "application/json", strings.NewReader(`{"n": 3}`))
	require.NoError(t, err)
	body, _ = io.ReadAll(r.Body)
	r.Body.Close()
	assert.Equal(t, "xxx", string(body))
	assert.Equal(t, 1.0, metricsOf(t, addr)[`promptkit_http_overloaded_total{limit="renders"}`])
}

// A response larger than Limits.ResponseBytes is refused, naming the limit.
func TestResponseLimit(t *testing.T) {
	_, _, ts := newDirServer(t, limitFiles, WithLimits(Limits{ResponseBytes: 50, ResponseMemory: 50}))
	r := call(t, ts, "POST", "/v1/templates/blob:render", `{"n": 51}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.code)
	p := r.problem(t)
	assert.Equal(t, "output_limit", p.Kind)
	assert.Contains(t, p.Message, "the response is 51 bytes, over the server's limit of 50")
	assert.Equal(t, "xxxxx", call(t, ts, "POST", "/v1/templates/blob:render", `{"n": 5}`).body)

	_, err := New(FS(nil), WithLimits(Limits{ResponseBytes: 100, ResponseMemory: 50}))
	assert.ErrorContains(t, err, "ResponseMemory 50 is below ResponseBytes 100")
	_, err = New(FS(nil), WithLimits(Limits{Renders: -1}))
	assert.ErrorContains(t, err, "negative limit")
}

// An error quotes at most MaxQuoteBytes of what it is about: a huge number
// a client sent, a huge message a template raised, a huge variable name.
func TestErrorsCapWhatTheyQuote(t *testing.T) {
	_, _, ts := newDirServer(t, limitFiles)
	big := strings.Repeat("1234567890", 90_000) // 900 KB
	for _, tc := range []struct {
		name, path, body, kind string
		quoted                 bool
	}{
		// A 900 KB integer is Python's: built within the memory budget,
		// or refused by it without quoting the number.
		{"a number", "/v1/templates/plus:render", `{"n": ` + big + `}`, "output_limit", false},
		{"a raised message", "/v1/templates/raise:render", `{"m": "` + big + `"}`, "raised", true},
		{"a variable name", "/v1/templates/plus:render", `{"n": 1, "` + big + `": 1}`, "extra_variables", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, ts, "POST", tc.path, tc.body)
			assert.Equal(t, http.StatusUnprocessableEntity, r.code)
			assert.Less(t, len(r.body), 4*MaxQuoteBytes+2000, "the response is small")
			p := r.problem(t)
			assert.Equal(t, tc.kind, p.Kind)
			if !tc.quoted {
				assert.NotContains(t, p.Error, "1234567890")
				return
			}
			assert.Contains(t, p.Error, "more bytes cut]")
			assert.LessOrEqual(t, len(p.Error), MaxQuoteBytes+40)
			assert.Contains(t, p.Error, "1234567890", "the start of the value is quoted")
		})
	}
	// A list of variables is capped too.
	var extra []string
	for i := range 300 {
		extra = append(extra, fmt.Sprintf(`"v%d": 1`, i))
	}
	r := call(t, ts, "POST", "/v1/templates/plus:render", `{"n": 1, `+strings.Join(extra, ", ")+`}`)
	p := r.problem(t)
	require.Len(t, p.Variables, MaxQuoteItems+1)
	assert.Equal(t, "… [200 more cut]", p.Variables[MaxQuoteItems])
}
