package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartInitializesLittle: a start of the CLI runs every linked
// package's initialization, whatever the command; promptkit's own
// packages keep theirs small (regular expressions and tables that only
// some commands use are built when first used), so that what a start
// costs is the libraries'. Allocation counts are exact, unlike times.
func TestStartInitializesLittle(t *testing.T) {
	bin := buildCLI(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run())
	const mod = "github.com/seed-e7d2830f/promptkit"
	ours, seen := 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, D ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" {
			continue
		}
		allocs, err := strconv.Atoi(f[9])
		require.NoError(t, err, sc.Text())
		if f[1] == "main" || strings.HasPrefix(f[1], mod) {
			seen++
			ours += allocs
			assert.LessOrEqual(t, allocs, 600, "%s allocates %d times when the process starts", f[1], allocs)
		}
	}
	require.Positive(t, seen, "GODEBUG=inittrace=1 printed nothing of ours:\n%s", stderr.String())
	assert.LessOrEqual(t, ours, 2500, "promptkit's packages allocate %d times when the process starts", ours)
}
