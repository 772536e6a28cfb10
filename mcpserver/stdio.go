package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DrainWait bounds how long RunIO, once its input has ended, waits for
// the requests already read to be answered.
const DrainWait = 30 * time.Second

// RunIO serves one client that writes requests to r and reads the answers
// from w — a process's standard input and output, as "promptkit serve
// --mcp" does — until r ends or ctx does. When r ends, the requests
// already read are answered before the session closes (for at most
// DrainWait): a client may write its requests and close its end, as a
// shell pipe does. Messages are newline-delimited JSON (MCP's stdio
// transport).
func (s *Server) RunIO(ctx context.Context, r io.Reader, w io.Writer) error {
	d := &drain{changed: make(chan struct{}, 1)}
	t := &mcp.IOTransport{
		Reader: &drainReader{r: r, d: d, ctx: ctx},
		Writer: &drainWriter{w: w, d: d},
	}
	return s.Run(ctx, t)
}

// drain counts the requests read and the answers written.
type drain struct {
	mu        sync.Mutex
	requested int
	answered  int
	changed   chan struct{} // a signal after each answer
}

func (d *drain) add(requests, answers int) {
	d.mu.Lock()
	d.requested += requests
	d.answered += answers
	d.mu.Unlock()
	if answers > 0 {
		select {
		case d.changed <- struct{}{}:
		default:
		}
	}
}

func (d *drain) done() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.answered >= d.requested
}

// message is what the counting reads of a JSON-RPC message: a request
// has an id and a method, an answer an id and no method.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// count counts the requests (or answers) among the complete lines of
// buf, and returns what is left of an incomplete last line.
func count(buf []byte, answers bool) (n int, rest []byte) {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return n, buf
		}
		var m rpcMessage
		if json.Unmarshal(buf[:i], &m) == nil && len(m.ID) > 0 && string(m.ID) != "null" && (m.Method == "") == answers {
			n++
		}
		buf = buf[i+1:]
	}
}

// drainReader passes r on, counting requests, and holds back the end of r
// until every request read is answered.
type drainReader struct {
	r    io.Reader
	d    *drain
	ctx  context.Context
	line []byte
}

func (r *drainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		var k int
		k, r.line = count(append(r.line, p[:n]...), false)
		r.d.add(k, 0)
	}
	if err == io.EOF {
		timeout := time.NewTimer(DrainWait)
		defer timeout.Stop()
		for !r.d.done() {
			select {
			case <-r.d.changed:
			case <-timeout.C:
				return n, err
			case <-r.ctx.Done():
				return n, err
			}
		}
	}
	return n, err
}

func (r *drainReader) Close() error {
	if c, ok := r.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// drainWriter passes writes on to w, counting answers. Closing it leaves
// w open: standard output outlives the session.
type drainWriter struct {
	w    io.Writer
	d    *drain
	line []byte
}

func (w *drainWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	var k int
	k, w.line = count(append(w.line, p[:n]...), true)
	w.d.add(0, k)
	return n, err
}

func (w *drainWriter) Close() error { return nil }
