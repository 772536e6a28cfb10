package tokens

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CountMarked's total is Count's, and each mark's share is the count of
// the pieces before it: at a piece's boundary, the count of the text up
// to it.
func TestCountMarked(t *testing.T) {
	tok, err := Encoding("o200k_base")
	require.NoError(t, err)
	text := "Document 1: The Nile is about 6,650 km long.\n\nDocument 2: 长江约6300公里。 😀👍🏽\n  end"
	var marks []int
	for i := 0; i <= len(text); i++ {
		marks = append(marks, i)
	}
	n, at, ok := tok.CountMarked(text, marks, nil)
	require.True(t, ok)
	assert.Equal(t, tok.Count(text), n)
	require.Len(t, at, len(marks))
	e := tok.enc.(*tiktoken)
	ends := map[int]bool{0: true}
	for i := 0; i < len(text); {
		i = e.next(text, i)
		ends[i] = true
	}
	for i, m := range marks {
		if i > 0 {
			assert.GreaterOrEqual(t, at[i], at[i-1], "ascending at %d", m)
		}
		if ends[m] {
			assert.Equal(t, tok.Count(text[:m]), at[i], "a piece boundary at %d", m)
		}
	}
	assert.Equal(t, n, at[len(at)-1])

	_, _, ok = tok.CountMarked("a\xffb", []int{1}, nil)
	assert.False(t, ok, "invalid UTF-8 moves the offsets")
}
