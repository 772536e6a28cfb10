package service_test

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

func TestServableDefaults(t *testing.T) {
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	all, missing, err := service.ServableDefaults(m, builders.Config{BotName: service.DefaultBotName})
	require.NoError(t, err)
	assert.Len(t, all, 8, "the default set serves every default builder")
	assert.Empty(t, missing)

	// A set with only the title template serves the title builder alone.
	title, err := fs.ReadFile(promptkit.FS(), "templates/title.md")
	require.NoError(t, err)
	m, err = manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"title": {"path": "title.md", "variables": ["intent"]}}}`)},
		"title.md":   {Data: title},
	})
	require.NoError(t, err)
	some, missing, err := service.ServableDefaults(m, builders.Config{BotName: service.DefaultBotName})
	require.NoError(t, err)
	require.Len(t, some, 1)
	assert.Equal(t, "title", some[0].Name())
	assert.Equal(t, []string{"agent_system"}, missing["agent_system"])
	assert.NotContains(t, missing, "title")
}
