package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A render stopped by Ctrl-C ends at once, names the signal and exits 130
// (SIGTERM: 143), whatever the template was doing.
func TestSignalStopsARender(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{
		"t.md": "{% for i in range(1000) %}{% for j in range(1000) %}.{% endfor %}{% endfor %}",
	})
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(interrupted{tc.sig})
		var out, errb bytes.Buffer
		code := run(ctx, []string{"render", "t", "--dir", dir}, strings.NewReader(""), &out, &errb)
		assert.Equal(t, tc.code, code)
		assert.Empty(t, out.String(), "nothing half-rendered is printed")
		assert.Equal(t, "promptkit render: interrupted by "+tc.sig.String()+"\n", errb.String())
	}
}

// The real binary: a SIGINT while watching stops it with 130, promptly.
func TestSignalStopsTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "promptkit")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{"t.md": "x"})
	cmd := exec.Command(bin, "chat-template", "--template", filepath.Join(dir, "t.md"), "--messages", "-")
	stdin, err := cmd.StdinPipe() // the command waits for its messages
	require.NoError(t, err)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	defer stdin.Close()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 130, ee.ExitCode(), errb.String())
	assert.Less(t, time.Since(start), 5*time.Second)
}
