package server

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// The work a server has in flight is bounded three ways (see Limits):
// connections, by the listener Serve wraps (limitListener); renders, by a
// slot each render and build takes while it runs (admit); and response
// memory, by the bytes each finished response holds until its client has
// read them (send). A request that cannot get a slot or its bytes within
// the queue wait is answered 503 with Retry-After at once, so a burst
// queues briefly and an overload sheds load instead of piling it up.

// kindOverloaded is the kind of the 503 a request gets when the server has
// too much in flight.
const kindOverloaded = "overloaded"

// inflight is the state of the render and response limits.
type inflight struct {
	limits  Limits
	renders chan struct{}       // one token per render running
	memory  *semaphore.Weighted // bytes of responses being written (FIFO)
	bytes   atomic.Int64        // the same, for /metrics
	conns   atomic.Int64        // connections Serve has open, for /metrics
	shed    [2]atomic.Uint64    // 503s by limit: renders, response memory
}

func newInflight(l Limits) *inflight {
	return &inflight{limits: l, renders: make(chan struct{}, l.Renders), memory: semaphore.NewWeighted(l.ResponseMemory)}
}

// retryAfter is the Retry-After of an overloaded answer, in whole seconds.
func (f *inflight) retryAfter() string {
	return strconv.Itoa(max(1, int(math.Ceil(f.limits.QueueWait.Seconds()))))
}

// admit takes a render slot for r, waiting at most the queue wait. When
// none frees in time it answers 503 itself and reports false; otherwise
// the caller runs its render and then calls release.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	f := s.inflight
	select {
	case f.renders <- struct{}{}:
		return func() { <-f.renders }, true
	default:
	}
	t := time.NewTimer(f.limits.QueueWait)
	defer t.Stop()
	select {
	case f.renders <- struct{}{}:
		return func() { <-f.renders }, true
	case <-t.C:
	case <-r.Context().Done():
	}
	f.shed[0].Add(1)
	s.overloaded(w, fmt.Sprintf("%d renders are running, the server's limit (WithLimits: Renders); retry later", f.limits.Renders))
	return nil, false
}

// overloaded answers 503 with Retry-After.
func (s *Server) overloaded(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", s.inflight.retryAfter())
	writeProblem(w, requestProblem(kindOverloaded, msg), nil)
}

// send writes a successful response of size bytes (write writes them)
// within the response limits: one response is at most ResponseBytes, and
// the bytes of all responses being written at once at most
// ResponseMemory, held from before the first byte until the last is
// written — a slow reader holds them, not more.
func (s *Server) send(w http.ResponseWriter, r *http.Request, contentType string, size int, write func(io.Writer)) {
	f := s.inflight
	n := int64(size)
	if n > f.limits.ResponseBytes {
		writeProblem(w, requestProblem("output_limit",
			fmt.Sprintf("the response is %d bytes, over the server's limit of %d (WithLimits: ResponseBytes)", n, f.limits.ResponseBytes)), nil)
		return
	}
	if !f.memory.TryAcquire(n) {
		ctx, cancel := context.WithTimeout(r.Context(), f.limits.QueueWait)
		err := f.memory.Acquire(ctx, n)
		cancel()
		if err != nil {
			f.shed[1].Add(1)
			s.overloaded(w, fmt.Sprintf("the responses being written hold %d bytes, the server's limit (WithLimits: ResponseMemory); retry later", f.limits.ResponseMemory))
			return
		}
	}
	f.bytes.Add(n)
	defer func() {
		f.bytes.Add(-n)
		f.memory.Release(n)
	}()
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	write(w)
}

// limitListener accepts at most n connections at a time: Accept waits for
// one to close (the next connection waits in the kernel's queue), as
// golang.org/x/net/netutil's LimitListener does.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	open      *atomic.Int64
	done      chan struct{}
	closeOnce sync.Once
}

func limitConnections(ln net.Listener, n int, open *atomic.Int64) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), open: open, done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	l.open.Add(1)
	return &limitConn{Conn: c, release: func() { l.open.Add(-1); <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once, when it is closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
