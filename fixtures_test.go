package promptkit_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/settest"
)

// The default set's fixtures (fixtures/) pass: its templates, builders
// and a model's chat template render what their goldens hold.
func TestDefaultSetFixtures(t *testing.T) {
	settest.Run(t, promptkit.FS())
}

// The default set's fixture files name their schema, for editors.
func TestDefaultFixturesNameTheirSchema(t *testing.T) {
	files, err := fs.Glob(promptkit.FS(), "fixtures/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := fs.ReadFile(promptkit.FS(), f)
		require.NoError(t, err)
		assert.Contains(t, string(data), `"$schema": "../`+promptkit.FixturesSchemaPath+`"`, f)
	}
}
