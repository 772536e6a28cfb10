package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeUsage(t *testing.T) {
	runCases(t, []cliCase{
		{name: "an argument", args: []string{"serve", "extra"}, code: exitUsage, stderr: "serve takes no arguments"},
		{name: "bad addr", args: []string{"serve", "--addr", "8080"}, code: exitUsage, stderr: "want HOST:PORT"},
		{name: "missing dir", args: []string{"serve", "--dir", filepath.Join(t.TempDir(), "none")}, code: exitPrompt, stderr: "promptkit serve: cannot read the template set "},
		{name: "bad debounce", args: []string{"serve", "--debounce", "0s"}, code: exitUsage, stderr: "--debounce must be positive"},
	})
	code, stdout, _ := runCLI(t, "", "serve", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "POST /v1/templates/{name}:render")
	assert.Contains(t, stdout, "Example:")
}

// serveProcess is a running "promptkit serve" binary.
type serveProcess struct {
	url    string
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// buildCLI builds the promptkit binary into a temp dir.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "promptkit")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// freePort asks the kernel for a loopback port that is free now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// startServe starts the binary on a free loopback port and waits for its
// readiness line ("serving … on URL": the listener is bound by then).
func startServe(t *testing.T, bin string, env []string, args ...string) *serveProcess {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	p := &serveProcess{url: "http://" + addr, cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	ready := &readyWriter{w: p.stderr, line: "promptkit serve: serving ", ready: make(chan struct{})}
	cmd.Stderr = ready
	require.NoError(t, cmd.Start())
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	select {
	case <-ready.ready:
	case err := <-p.done:
		t.Fatalf("promptkit serve exited (%v): %s", err, p.stderr.String())
	case <-time.After(2 * time.Minute): // a hang, not a slow machine
		t.Fatalf("promptkit serve never said it was serving: %s", p.stderr.String())
	}
	resp, err := http.Get(p.url + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return p
}

// readyWriter passes writes on to w and closes ready once what was
// written holds a line that starts with line.
type readyWriter struct {
	w     io.Writer
	line  string
	ready chan struct{}
	seen  []byte
	once  sync.Once
}

func (r *readyWriter) Write(b []byte) (int, error) {
	r.seen = append(r.seen, b...) // exec calls Write from one goroutine
	if bytes.HasPrefix(r.seen, []byte(r.line)) || bytes.Contains(r.seen, []byte("\n"+r.line)) {
		r.once.Do(func() { close(r.ready) })
	}
	return r.w.Write(b)
}

// stop sends SIGTERM and checks the graceful exit: shut down, then 143.
func (p *serveProcess) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, p.stderr.String())
		assert.Equal(t, 143, ee.ExitCode(), p.stderr.String())
	case <-time.After(15 * time.Second):
		t.Fatal("no exit within 15s of SIGTERM")
	}
	assert.Contains(t, p.stderr.String(), "promptkit serve: shut down\npromptkit serve: interrupted by terminated\n")
}

func post(t *testing.T, url, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	bin := buildCLI(t)

	t.Run("a directory, edited while serving", func(t *testing.T) {
		dir := writeSet(t, `{"version": 1, "templates": {
		  "greet": {"path": "greet.md", "variables": ["name"]},
		  "chat.v1-x": {"path": "chat.md", "variables": ["q"]}}}`, map[string]string{
			"greet.md": "Hello {{ name }}!",
			"chat.md":  `{% chat role="system" %}Be brief.{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`,
		})
		p := startServe(t, bin, nil, "--dir", dir, "--dev", "--debounce", "20ms")
		assert.Contains(t, p.stderr.String(), "preview at "+p.url+"/")

		resp, body := post(t, p.url+"/v1/templates/greet:render", `{"name": "Ada"}`)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		assert.Equal(t, "Hello Ada!", body)
		assert.Equal(t, "1", resp.Header.Get("Promptkit-Generation"))
		m, err := manager.Open(dir)
		require.NoError(t, err)
		assert.Equal(t, m.Digest(), resp.Header.Get("Promptkit-Digest"))
		require.NoError(t, m.Close())

		resp, body = post(t, p.url+"/v1/templates/chat.v1-x:messages", `{"q": "hi"}`)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		assert.JSONEq(t, `[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]`, body)

		resp, body = post(t, p.url+"/v1/templates/greet:render", `{}`)
		assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
		assert.Contains(t, body, `"kind":"missing_variables"`)

		require.NoError(t, os.WriteFile(filepath.Join(dir, "greet.md"), []byte("Bye {{ name }}."), 0o644))
		require.Eventually(t, func() bool {
			resp, body := post(t, p.url+"/v1/templates/greet:render", `{"name": "Ada"}`)
			return body == "Bye Ada." && resp.Header.Get("Promptkit-Generation") == "2"
		}, 10*time.Second, 10*time.Millisecond)

		page, err := http.Get(p.url + "/")
		require.NoError(t, err)
		page.Body.Close()
		assert.Equal(t, http.StatusOK, page.StatusCode)
		p.stop(t)
	})

	t.Run("the embedded set, with a token", func(t *testing.T) {
		p := startServe(t, bin, []string{"PROMPTKIT_TOKEN=tok-123"})
		resp, _ := post(t, p.url+"/v1/templates/title:render", `{"intent": "x"}`)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		resp, body := post(t, p.url+"/v1/templates/title:render", `{"intent": "查询明天的天气"}`, "Authorization", "Bearer tok-123")
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		m, err := manager.New(promptkit.FS())
		require.NoError(t, err)
		want, err := m.Render("title", map[string]any{"intent": "查询明天的天气"})
		require.NoError(t, err)
		assert.Equal(t, want, body)

		resp, body = post(t, p.url+"/v1/builders/title:build", `{"data": {"intent": "查询明天的天气"}}`, "Authorization", "Bearer tok-123")
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		assert.Equal(t, want, body, "the title builder escapes nothing here and renders the same")
		p.stop(t)
	})

	t.Run("the Python client's tests", func(t *testing.T) {
		python, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 is not installed: the Python client's tests are not run")
		}
		dir := writeSet(t, `{"version": 1, "templates": {
		  "greet": {"path": "greet.md", "variables": ["name"]},
		  "echo": {"path": "echo.md", "variables": ["variables", "self"]},
		  "chat": {"path": "chat.md", "variables": ["q"]}}}`, map[string]string{
			"greet.md": "Hello {{ name }}!",
			"echo.md":  "{{ variables }}/{{ self }}",
			"chat.md":  `{% chat role="system" %}Be brief.{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`,
		})
		p := startServe(t, bin, nil, "--dir", dir)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, python, "-m", "unittest", "-v", "test_client.py")
		cmd.Dir = filepath.Join("..", "..", "examples", "python")
		cmd.Env = append(os.Environ(), "PROMPTKIT_URL="+p.url)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Contains(t, string(out), "Ran 7 tests")
		assert.NotContains(t, string(out), "skipped")
		p.stop(t)
	})

	t.Run("the Python client example", func(t *testing.T) {
		python, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 is not installed: the Python client example is not run")
		}
		p := startServe(t, bin, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, python, "../../examples/python/client.py", "--url", p.url, "--intent", "帮我订一张去上海的机票")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())

		m, err := manager.New(promptkit.FS())
		require.NoError(t, err)
		prompt, err := m.Render("title", map[string]any{"intent": "帮我订一张去上海的机票"})
		require.NoError(t, err)
		var list struct{ Templates []json.RawMessage }
		resp, err := http.Get(p.url + "/v1/templates")
		require.NoError(t, err)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
		resp.Body.Close()
		// The first typed variable that $refs a schema file, and what
		// that file requires (the embedded set has them).
		ref := regexp.MustCompile(`"\$ref":\s*"([^"#]+)`)
		var typedLine string
		for _, tpl := range m.Templates() {
			for _, v := range tpl.Variables {
				if r := ref.FindSubmatch(v.Schema); r != nil && typedLine == "" {
					data, err := fs.ReadFile(promptkit.FS(), string(r[1]))
					require.NoError(t, err)
					var sch struct{ Required []string }
					require.NoError(t, json.Unmarshal(data, &sch))
					typedLine = fmt.Sprintf("%s.%s: %s requires %s\n", tpl.Name, v.Name, r[1], strings.Join(sch.Required, ", "))
				}
			}
		}
		require.NotEmpty(t, typedLine, "the embedded set has a variable whose schema $refs a file")
		want := fmt.Sprintf("serving %s (generation 1, %d templates)\n%s%s\n422 missing_variables templates/title.md intent\n",
			m.Digest(), len(list.Templates), typedLine, prompt)
		assert.Equal(t, want, stdout.String())
		p.stop(t)

		// A dict the client passes keeps its order, as Python's does.
		dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["d"]}}}`,
			map[string]string{"t.md": "{% for k in d %}{{ k }} {% endfor %}{{ d }}"})
		p = startServe(t, bin, nil, "--dir", dir)
		stdout.Reset()
		cmd = exec.CommandContext(ctx, python, "-c", "import sys; sys.path.insert(0, '../../examples/python'); from client import PromptKit; "+
			"print(PromptKit(sys.argv[1]).render('t', d={'z': 1, 'a': {'y': 2, 'b': 3}}).text)", p.url)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())
		assert.Equal(t, "z a {'z': 1, 'a': {'y': 2, 'b': 3}}\n", stdout.String())
		p.stop(t)
	})
}

// The help's defaults of the limits are the server's.
func TestServeLimitDefaults(t *testing.T) {
	assert.Equal(t, fmt.Sprint(server.DefaultMaxConnections), maxConnsDefault)
	assert.Equal(t, fmt.Sprint(server.DefaultMaxRenders), maxRendersDefault)
	assert.Equal(t, server.DefaultQueueWait.String(), queueWaitDefault)
	assert.Equal(t, fmt.Sprint(server.DefaultMaxResponseBytes), maxRespDefault)
	assert.Equal(t, fmt.Sprint(server.DefaultMaxResponseMemory), maxRespMemDefault)
	runCases(t, []cliCase{
		{name: "zero renders", args: []string{"serve", "--max-renders", "0"}, code: exitUsage, stderr: "must be positive"},
		{name: "memory below one response", args: []string{"serve", "--max-response-bytes", "100", "--max-response-memory", "10"},
			code: exitUsage, stderr: "--max-response-memory 10 is below --max-response-bytes 100"},
	})
}
