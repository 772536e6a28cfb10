package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLintCommand(t *testing.T) {
	planted := filepath.Join("..", "..", "lint", "testdata", "inline")
	clean := filepath.Join("..", "..", "lint", "testdata", "clean")
	broken := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(broken, "bad.go"), []byte("package p\nvar = \n"), 0o644))

	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // contained
		nostdout bool
		stderr   string
	}{
		{"planted prompts found", []string{"lint", planted}, exitPrompt, []string{
			filepath.Join(planted, "prompts.go") + ":6:22: prompt wording (CJK text) in a string literal",
			filepath.Join(planted, "prompts.go") + ":8:16: template syntax in a string literal",
			filepath.Join(planted, "prompts.go") + ":12:22: multi-line prose in a string literal",
		}, false, ""},
		{"clean code", []string{"lint", clean}, exitOK, nil, true, ""},
		{"several patterns", []string{"lint", clean, planted + "/..."}, exitPrompt, []string{"prompts.go:6:22:"}, false, ""},
		{"bad pattern", []string{"lint", "no/such/dir"}, exitUsage, nil, true, "lint: bad pattern"},
		{"unparsable file", []string{"lint", broken}, exitPrompt, nil, true, "bad.go:2"},
		{"help", []string{"lint", "--help"}, exitOK, []string{"Example:", "promptkit lint ./..."}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			for _, s := range tc.stdout {
				assert.Contains(t, stdout, s)
			}
			if tc.nostdout {
				assert.Empty(t, stdout)
			}
			if tc.stderr != "" {
				assert.Contains(t, stderr, tc.stderr)
			}
		})
	}
}

// TestLintOwnFiles lints this command's own files and the packages that
// build prompts: they hold no inline prompt. (CI lints the whole module.)
func TestLintOwnFiles(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "lint", "build.go", "builders.go", "lint.go", "../../builders", "../../service", "../../lint")
	assert.Equal(t, exitOK, code, stdout+stderr)
	assert.Empty(t, stdout)
}
