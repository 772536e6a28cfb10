package setdiff

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiffRenderings(t *testing.T) {
	a, b := openDir(t, "testdata/v1"), openDir(t, "testdata/v2")
	ctx := context.Background()
	ra, err := Render(ctx, a.Manager(), a.Fixtures(), WithCount(runes))
	require.NoError(t, err)
	rb, err := Render(ctx, b.Manager(), b.Fixtures(), WithCount(runes))
	require.NoError(t, err)
	got := map[string]Rendered{}
	for _, rd := range DiffRenderings(ra, rb) {
		got[rd.Fixture] = rd
	}
	assert.Len(t, got, 5)
	assert.Equal(t, Changed, got["faq/refund"].Status)
	assert.Contains(t, got["faq/refund"].Diff, "+用亲切、简洁的语气回答用户的问题。")
	assert.Equal(t, 8, got["faq/refund"].Tokens.Delta)
	assert.Equal(t, Unchanged, got["faq/welcome"].Status)
	assert.Empty(t, got["faq/welcome"].Diff)
	assert.Equal(t, Added, got["summary/short"].Status)
	assert.Equal(t, Outcome{}, got["summary/short"].Before, "nothing rendered before")
	assert.True(t, got["title/weather"].InputChanged)
	assert.Nil(t, got["summary/short"].Tokens)

	same := DiffRenderings(ra, ra)
	for _, rd := range same {
		assert.Equal(t, Unchanged, rd.Status)
	}
}
