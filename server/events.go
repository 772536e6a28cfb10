package server

import (
	"bytes"
	"errors"
	"net/http"
	"sync"
	"time"
)

// GET /v1/events is a server-sent event stream of the set's status: one
// "status" event when the stream opens, then one after every load attempt
// (a reload of the watcher, a retry of a set that did not load), each with
// the JSON of GET /v1/status. Only the latest status matters, so a slow
// client that misses some gets the newest one next; nothing waits for it.

// broadcaster wakes every open stream when the status changes.
type broadcaster struct {
	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	done   chan struct{} // closed by closeAll: every stream ends
	closed bool
}

func newBroadcaster() *broadcaster {
	return &broadcaster{subs: map[chan struct{}]struct{}{}, done: make(chan struct{})}
}

// subscribe returns a channel that receives (at most one pending) wake-up
// after each publish.
func (b *broadcaster) subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}
}

// publish wakes every subscriber without blocking: a wake-up still pending
// already says "read the status again".
func (b *broadcaster) publish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// closeAll ends every stream, for Close and a graceful shutdown (which
// would otherwise wait for streams that never go idle).
func (b *broadcaster) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
}

func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// The stream outlives the server's timeouts. A read deadline passing
	// would cancel the request's context (the server reads in the
	// background to notice a closed connection), so it goes; the write
	// deadline moves forward before each write instead.
	if err := rc.SetReadDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		writeError(w, err)
		return
	}
	wake, cancel := s.events.subscribe()
	defer cancel()
	s.metrics.streams.Add(1)
	defer s.metrics.streams.Add(-1)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no") // proxies: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(s.cfg.timeouts.Write)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	status := func() bool {
		b, err := marshal(s.status.Load())
		if err != nil {
			return false
		}
		var ev bytes.Buffer
		ev.WriteString("event: status\ndata: ")
		ev.Write(bytes.TrimRight(b, "\n"))
		ev.WriteString("\n\n")
		return write(ev.Bytes())
	}
	// retry: how soon a browser reconnects after the stream ends.
	if !write([]byte("retry: 1000\n\n")) || !status() {
		return
	}
	beat := time.NewTicker(s.cfg.heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.events.done:
			return
		case <-wake:
			if !status() {
				return
			}
		case <-beat.C:
			if !write([]byte(": heartbeat\n\n")) {
				return
			}
		}
	}
}
