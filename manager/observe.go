package manager

import (
	"errors"
	"time"
)

// Observing renders and reloads: a host that must trace which prompts
// served a request, or count renders and failures, passes an Observer with
// WithObserver. The manager calls it synchronously after each render and
// reload attempt; without one, a render pays for nothing but a nil check.

// Observer sees every render and every reload attempt of a Manager. Its
// methods are called on the goroutine that rendered or reloaded, after the
// fact, and must be safe for concurrent use; keep them short (hand the
// event to a goroutine of your own for slow work). A panic in an observer
// is not recovered: it is a bug of the host.
type Observer interface {
	ObserveRender(RenderEvent)
	ObserveReload(ReloadEvent)
}

// RenderEvent describes one call of Render or RenderMessages (of the
// Manager or of a Prompt).
type RenderEvent struct {
	Template   string // the name asked for
	Hash       string // the template's Hash; empty when the name is unknown
	Digest     string // the digest of the set that served the call (Manager.Digest)
	Generation uint64 // the generation of that set
	Messages   bool   // RenderMessages rather than Render
	Duration   time.Duration
	Bytes      int    // the output's size in bytes (text of all messages for RenderMessages)
	Err        error  // nil on success
	Kind       string // ErrorKind(Err): "" on success
}

// WithObserver makes the manager report every render and reload attempt
// to o (see Observer).
func WithObserver(o Observer) Option {
	return func(c *config) error {
		if o == nil {
			return errors.New("WithObserver: nil observer")
		}
		c.observer = o
		return nil
	}
}

// observeRender reports one render of name from set s to o; c is nil when
// the name is unknown.
func observeRender(o Observer, s *snapshot, name string, c *compiled, messages bool, start time.Time, bytes int, err error) {
	ev := RenderEvent{Template: name, Digest: s.digest, Generation: s.gen, Messages: messages,
		Duration: time.Since(start), Bytes: bytes, Err: err, Kind: ErrorKind(err)}
	if c != nil {
		ev.Hash = c.info.Hash
	}
	o.ObserveRender(ev)
}

// messagesBytes is the size of the messages' text and image URLs.
func messagesBytes(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			n += len(p.Text) + len(p.URL)
		}
	}
	return n
}
