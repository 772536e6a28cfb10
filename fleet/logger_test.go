package fleet

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a log destination the follower's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WithLogger: a follower logs the set it starts serving after a poll.
func TestFollowLogs(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"
	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	s2, err := Load(writeDir(t, setFiles("two")))
	require.NoError(t, err)
	_, err = c.Push(ctx, s1, repo+":production", "")
	require.NoError(t, err)

	var log syncBuffer
	f, err := Follow(ctx, repo+":production", append(followOpts(c, t.TempDir()), WithLogger(slog.New(slog.NewTextHandler(&log, nil))))...)
	require.NoError(t, err)
	defer f.Close()
	_, err = c.Push(ctx, s2, repo+":production", "")
	require.NoError(t, err)
	require.NoError(t, f.Poll(ctx))
	assert.Contains(t, log.String(), "new set serving")
	assert.Contains(t, log.String(), s2.Digest)

	_, err = Follow(ctx, repo+":production", WithLogger(nil))
	assert.ErrorContains(t, err, "WithLogger: nil logger")
}
