package mcpserver_test

import (
	"bufio"
	"debug/buildinfo"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tsClientDir holds the official TypeScript MCP SDK, pinned in its
// package-lock.json (.ci/run runs npm ci there), and client.mjs, which
// drives it.
const tsClientDir = "testdata/tsclient"

// TestTypeScriptClient holds "promptkit serve --mcp" to a client that is
// not promptkit's: the TypeScript SDK's lists the prompts, gets one, is
// refused a misspelt argument with a did-you-mean, completes an enum and
// hears a reload as notifications/prompts/list_changed — over stdio (it
// starts the binary as an MCP client starts a server) and over streamable
// HTTP.
func TestTypeScriptClient(t *testing.T) {
	node := requireNode(t)
	bin := filepath.Join(t.TempDir(), "promptkit")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/promptkit").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	// The version the server announces is the one go build stamped into
	// the binary: "(devel)", or a pseudo-version from the checkout's commit.
	built, err := buildinfo.ReadFile(bin)
	require.NoError(t, err)
	wantServer, err := json.Marshal(map[string]string{"name": "promptkit", "version": built.Main.Version})
	require.NoError(t, err)

	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			dir := copySet(t)
			args := []string{"client.mjs", "stdio", bin, dir}
			if tr == "http" {
				args = []string{"client.mjs", "http", startMCPHTTP(t, bin, dir)}
			}
			cmd := exec.Command(node, args...)
			cmd.Dir = tsClientDir
			var stderr syncBuffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

			events := map[string]json.RawMessage{}
			lines := bufio.NewScanner(stdout)
			lines.Buffer(nil, 1<<20)
			for lines.Scan() {
				var ev struct {
					Event string
					Value json.RawMessage
				}
				require.NoError(t, json.Unmarshal(lines.Bytes(), &ev), lines.Text())
				events[ev.Event] = ev.Value
				if ev.Event == "listening" {
					// The client has subscribed: a new template reloads the set.
					editFile(t, dir, "templates/greet.md", "你好，{{ name }}！")
					editFile(t, dir, "index.json", `{"version": 1, "templates": {
					  "title": {"path": "templates/title.md", "variables": ["intent", {"name": "tone", "required": false, "default": "亲切"}]},
					  "greet": {"path": "templates/greet.md", "variables": ["name"]}}}`)
				}
			}
			require.NoError(t, cmd.Wait(), "node client.mjs: %s", stderr.String())

			assert.JSONEq(t, string(wantServer), string(events["server"]))
			assert.JSONEq(t, readFile(t, "testdata/prompts.golden.json"), string(events["list"]), "the prompts as the Go client lists them")
			var got struct{ Messages json.RawMessage }
			require.NoError(t, json.Unmarshal(events["get"], &got))
			assert.JSONEq(t, readFile(t, "testdata/support.golden.json"), string(got.Messages), "the messages as the Go client gets them")
			assert.JSONEq(t, `{"code": -32602,
			  "message": "MCP error -32602: prompt \"title\": missing argument: intent; unknown argument \"intnet\": did you mean \"intent\"?",
			  "data": {"kind": "missing_variables", "template": "title", "path": "templates/title.md", "variables": ["intent", "intnet"],
			    "missing": ["intent"], "unknown": ["intnet"], "did_you_mean": {"intnet": "intent"},
			    "message": "prompt \"title\": missing argument: intent; unknown argument \"intnet\": did you mean \"intent\"?"}}`, string(events["error"]))
			assert.JSONEq(t, `{"values": ["正式"], "total": 1}`, string(events["complete"]))
			assert.JSONEq(t, `["greet", "title"]`, string(events["list-after"]), "the list after the reload")
		})
	}
}

// requireNode returns the node binary when the TypeScript SDK is
// installed; otherwise the test skips, or fails under CI, which installs it.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(tsClientDir, "node_modules/@modelcontextprotocol/sdk/package.json"))
	}
	if err != nil {
		msg := "the TypeScript MCP client needs node and its npm package: (cd mcpserver/" + tsClientDir + " && npm ci): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
}

// startMCPHTTP starts "promptkit serve --mcp" over streamable HTTP on a
// port the kernel picks, for dir, and returns the URL it says it serves.
func startMCPHTTP(t *testing.T, bin, dir string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--mcp", "--dir", dir, "--debounce", "20ms", "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	serving := regexp.MustCompile(`over MCP \(streamable HTTP\) at (http://\S+)`)
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if m := serving.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case url, ok := <-found:
		require.True(t, ok, "promptkit serve --mcp ended without serving")
		return url
	case <-time.After(2 * time.Minute): // a hang, not a slow machine
		t.Fatal("promptkit serve --mcp never said where it serves")
	}
	return ""
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}
