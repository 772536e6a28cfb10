package main

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
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

// The real binary: a SIGINT while watching stops it with 130. The signal
// goes once watch has printed its first line — its handlers are set by
// then — so no fixed sleep decides whether the test passes.
func TestSignalStopsTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildCLI(t)
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{"t.md": "x"})
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		cmd := exec.Command(bin, "watch", "--dir", dir)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		errb := &syncBuffer{} // written while the test reads it
		cmd.Stderr = errb
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		line, err := bufio.NewReader(stdout).ReadString('\n') // ready: the initial load's line
		require.NoError(t, err, errb.String())
		assert.Equal(t, `{"generation":1,"ok":true,"templates":1}`+"\n", line)
		require.NoError(t, cmd.Process.Signal(tc.sig))
		select {
		case err = <-done:
		case <-time.After(time.Minute): // a hang, not a slow machine
			cmd.Process.Kill()
			t.Fatalf("watch did not stop on %v", tc.sig)
		}
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, tc.code, ee.ExitCode(), errb.String())
		assert.Equal(t, "promptkit watch: interrupted by "+tc.sig.String()+"\n", errb.String())
	}
}
