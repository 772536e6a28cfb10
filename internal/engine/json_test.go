package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlainEnd holds tojson's eight-bytes-at-a-time scan to the byte
// table it stands for, at every start of strings mixing plain bytes with
// every other byte.
func TestPlainEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = byte(0x20 + r.IntN(0x5f))
			}
		}
		s := string(b)
		for i := 0; i <= len(s); i++ {
			want := i
			for want < len(s) && jsonPlain[s[want]] {
				want++
			}
			require.Equal(t, want, plainEnd(s, i), "%q from %d", s, i)
		}
	}
}
