package mcpserver_test

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with the file at path; -update rewrites it.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	got = append(got, '\n')
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./mcpserver -update writes it")
	assert.Equal(t, string(want), string(got))
}
