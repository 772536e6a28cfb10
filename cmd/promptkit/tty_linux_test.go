package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal pair through /dev/ptmx, with output
// processing off on the terminal side, so the bytes a program writes to
// it arrive at the master unchanged (no \n → \r\n).
func openPTY(t *testing.T) (master, term *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal (/dev/ptmx): %v", err)
	}
	t.Cleanup(func() { master.Close() })
	ioctl := func(f *os.File, req uintptr, arg unsafe.Pointer) {
		t.Helper()
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg))
		require.Zero(t, errno, "ioctl %#x", req)
	}
	var unlock int32
	ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n))
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	var tio syscall.Termios
	ioctl(term, syscall.TCGETS, unsafe.Pointer(&tio))
	tio.Oflag &^= syscall.OPOST
	ioctl(term, syscall.TCSETS, unsafe.Pointer(&tio))
	return master, term
}

// runOnTerminal runs the CLI with standard output on a pseudo-terminal
// and returns the exit code and what the terminal received.
func runOnTerminal(t *testing.T, stdin string, args ...string) (int, string) {
	t.Helper()
	master, term := openPTY(t)
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		_, err := io.Copy(&b, master) // ends with EIO once the terminal side is closed
		if err != nil && !errors.Is(err, syscall.EIO) {
			t.Errorf("reading the terminal: %v", err)
		}
		got <- b.String()
	}()
	var stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), term, &stderr)
	require.NoError(t, term.Close())
	assert.Empty(t, stderr.String())
	return code, <-got
}

// TestRenderOnATerminal: on a terminal, a prompt that does not end with a
// newline gets one; everywhere else it is printed exactly.
func TestRenderOnATerminal(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]},"nl":{"path":"nl.md"},"empty":{"path":"empty.md"}}}`,
		map[string]string{"t.md": "第一行\n{{ x }}", "nl.md": "ends with a newline\n\n", "empty.md": ""})
	_, exact, _ := runCLI(t, "", "render", "title", "--var", "intent=查天气")
	require.False(t, strings.HasSuffix(exact, "\n"))

	built := libraryBuild(t, "title", builders.Task{}, map[string]any{"intent": "查天气"})

	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"the default set", "", []string{"render", "title", "--var", "intent=查天气"}, exact + "\n"},
		{"a template of one's own", "", []string{"render", "t", "--dir", dir, "--var", "x=y"}, "第一行\ny\n"},
		{"a prompt that ends with a newline gets none", "", []string{"render", "nl", "--dir", dir}, "ends with a newline\n"},
		{"an empty prompt stays empty", "", []string{"render", "empty", "--dir", dir}, ""},
		{"build", `{"intent": "查天气"}`, []string{"build", "title", "--data", "-"}, built + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runOnTerminal(t, tc.stdin, tc.args...)
			assert.Equal(t, exitOK, code)
			assert.Equal(t, tc.want, out)
		})
	}

	// Piped, redirected to a file, or written to a buffer: exactly.
	r, w, err := os.Pipe()
	require.NoError(t, err)
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer file.Close()
	for _, out := range []io.Writer{w, file, &bytes.Buffer{}} {
		assert.False(t, isTerminal(out), "%T", out)
	}
	go func() {
		defer w.Close()
		run(context.Background(), []string{"render", "title", "--var", "intent=查天气"}, strings.NewReader(""), w, io.Discard)
	}()
	piped, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, exact, string(piped), "nothing is added when piped")
	_, term := openPTY(t)
	assert.True(t, isTerminal(term))
}
