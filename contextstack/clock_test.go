package contextstack

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestClocks(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, shanghai)

	t.Run("fixed clock tells one time, in UTC", func(t *testing.T) {
		c := FixedClock(at)
		assert.Equal(t, time.UTC, c.Now().Location())
		assert.True(t, c.Now().Equal(at))
		assert.Equal(t, c.Now(), c.Now())
	})
	t.Run("clock func", func(t *testing.T) {
		n := 0
		c := ClockFunc(func() time.Time { n++; return at.Add(time.Duration(n) * time.Second) })
		assert.Equal(t, at.Add(time.Second), c.Now())
		assert.Equal(t, at.Add(2*time.Second), c.Now())
	})
	t.Run("system clock is now, in UTC", func(t *testing.T) {
		before := time.Now()
		got := SystemClock.Now()
		after := time.Now()
		assert.Equal(t, time.UTC, got.Location())
		assert.False(t, got.Before(before.Truncate(time.Second)) || got.After(after.Add(time.Second)))
	})
}
