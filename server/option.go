package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// Defaults of the options; each is documented on its option.
const (
	DefaultMaxBodyBytes      = 1 << 20 // 1 MiB
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 10 * time.Second
	DefaultHeartbeat         = 15 * time.Second
	DefaultRetryInterval     = 250 * time.Millisecond
	DefaultMaxConnections    = 256
	DefaultMaxRenders        = 16
	DefaultQueueWait         = time.Second
	DefaultMaxResponseBytes  = 16 << 20  // 16 MiB, the manager's default output limit
	DefaultMaxResponseMemory = 256 << 20 // 256 MiB
	// MaxFileBytes is the largest file /v1/files and /v1/schemas serve.
	MaxFileBytes = 4 << 20
)

// Option configures a Server. Options are applied in order over the
// defaults; an invalid value is an error from New.
type Option func(*config) error

type config struct {
	service   func(*manager.Manager) (*service.Service, error)
	preview   bool
	writes    bool // WithFixtureWrites
	token     string
	maxBody   int64
	timeouts  Timeouts
	heartbeat time.Duration
	retry     time.Duration
	log       *slog.Logger
	limits    Limits
	// tokenizers are the tokenizers ?tokens= names besides the encodings (tokens.go).
	tokenizers map[string]*tokens.Tokenizer
	// providers are the conversions ?provider= names (requests.go).
	providers map[string]Convert
}

func defaults() config {
	return config{
		service: func(m *manager.Manager) (*service.Service, error) {
			return service.New(m, service.WithDefaultBuilders())
		},
		maxBody: DefaultMaxBodyBytes,
		timeouts: Timeouts{
			ReadHeader: DefaultReadHeaderTimeout,
			Read:       DefaultReadTimeout,
			Write:      DefaultWriteTimeout,
			Idle:       DefaultIdleTimeout,
			Shutdown:   DefaultShutdownTimeout,
		},
		limits: Limits{
			Connections:    DefaultMaxConnections,
			Renders:        DefaultMaxRenders,
			QueueWait:      DefaultQueueWait,
			ResponseBytes:  DefaultMaxResponseBytes,
			ResponseMemory: DefaultMaxResponseMemory,
		},
		heartbeat: DefaultHeartbeat,
		retry:     DefaultRetryInterval,
		log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// Timeouts bounds every connection of Serve. A zero field keeps its default.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers (default 5 s), so a
	// client that sends them slowly cannot hold a connection.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included (default 30 s).
	Read time.Duration
	// Write bounds writing a response (default 30 s). The event stream
	// (GET /v1/events) lives longer: it moves its own deadline forward
	// before every event and heartbeat, by this much each time.
	Write time.Duration
	// Idle bounds how long a kept-alive connection waits for its next
	// request (default 120 s).
	Idle time.Duration
	// Shutdown bounds the graceful shutdown when Serve's context ends
	// (default 10 s); connections still busy then are closed.
	Shutdown time.Duration
}

// WithTimeouts sets the connection timeouts of Serve (see Timeouts).
// Negative durations are an error.
func WithTimeouts(t Timeouts) Option {
	return func(c *config) error {
		for _, d := range []time.Duration{t.ReadHeader, t.Read, t.Write, t.Idle, t.Shutdown} {
			if d < 0 {
				return errors.New("WithTimeouts: negative timeout")
			}
		}
		set := func(dst *time.Duration, d time.Duration) {
			if d > 0 {
				*dst = d
			}
		}
		set(&c.timeouts.ReadHeader, t.ReadHeader)
		set(&c.timeouts.Read, t.Read)
		set(&c.timeouts.Write, t.Write)
		set(&c.timeouts.Idle, t.Idle)
		set(&c.timeouts.Shutdown, t.Shutdown)
		return nil
	}
}

// Limits bound the work a server has in flight, so that many clients at
// once — slow ones above all, which hold what they asked for while they
// read it — cannot exhaust the host. A zero field keeps its default.
//
// At most Connections × (WithMaxBodyBytes + 64 KiB of headers) of
// requests, Renders × the manager's WithMaxMemory and WithMaxOutputBytes
// of renders, and ResponseMemory of responses are held at once.
type Limits struct {
	// Connections bounds the connections Serve has open (default 256).
	// One more waits in the kernel's queue until one closes, as with
	// golang.org/x/net/netutil.LimitListener; the timeouts (WithTimeouts)
	// bound how long an idle or slow connection keeps its place. An open
	// event stream (GET /v1/events) holds one for as long as it is open.
	Connections int
	// Renders bounds the renders and builds running at once (default 16).
	// A request that finds none free waits at most QueueWait, then is
	// answered 503 with Retry-After and kind "overloaded".
	Renders int
	// QueueWait is how long a request waits for a render or for response
	// memory before the 503 (default 1 s).
	QueueWait time.Duration
	// ResponseBytes bounds one response of a render, messages or build
	// (default 16 MiB, the manager's default output limit); a larger one
	// is refused with 422 and kind "output_limit".
	ResponseBytes int64
	// ResponseMemory bounds the bytes of all responses being written at
	// once (default 256 MiB): a response holds its bytes until the client
	// has them, so slow readers cannot pile up gigabytes. A response that
	// does not fit within QueueWait is answered 503 with Retry-After and
	// kind "overloaded". It cannot be less than ResponseBytes.
	ResponseMemory int64
}

// WithLimits sets the bounds of the work in flight (see Limits). Negative
// values, and a ResponseMemory below ResponseBytes, are an error.
func WithLimits(l Limits) Option {
	return func(c *config) error {
		if l.Connections < 0 || l.Renders < 0 || l.QueueWait < 0 || l.ResponseBytes < 0 || l.ResponseMemory < 0 {
			return errors.New("WithLimits: negative limit")
		}
		if l.Connections > 0 {
			c.limits.Connections = l.Connections
		}
		if l.Renders > 0 {
			c.limits.Renders = l.Renders
		}
		if l.QueueWait > 0 {
			c.limits.QueueWait = l.QueueWait
		}
		if l.ResponseBytes > 0 {
			c.limits.ResponseBytes = l.ResponseBytes
		}
		if l.ResponseMemory > 0 {
			c.limits.ResponseMemory = l.ResponseMemory
		}
		if c.limits.ResponseMemory < c.limits.ResponseBytes {
			return fmt.Errorf("WithLimits: ResponseMemory %d is below ResponseBytes %d: no response could be sent",
				c.limits.ResponseMemory, c.limits.ResponseBytes)
		}
		return nil
	}
}

// WithService sets how the service behind POST /v1/builders/{name}:build
// is made from the manager (default service.New(m, service.WithDefaultBuilders()): the scene
// builders). It is called again after every successful reload, so a set
// that gains the templates a builder needs gains the builder. When it fails,
// the builder endpoints answer with its error and the rest of the API serves.
func WithService(f func(*manager.Manager) (*service.Service, error)) Option {
	return func(c *config) error {
		if f == nil {
			return errors.New("WithService: nil function")
		}
		c.service = f
		return nil
	}
}

// WithPreview serves the live preview page at / and the set's files at
// GET /v1/files/{path...}, which the page shows problems beside. It is off
// by default: an API for hosts has no need to hand out template sources.
func WithPreview() Option {
	return func(c *config) error {
		c.preview = true
		return nil
	}
}

// WithToken makes every request but GET /healthz carry the token, as
// "Authorization: Bearer TOKEN" or, for the preview page in a browser, the
// cookie that opening /?token=TOKEN sets. An empty token is an error: leave
// the option out to serve without one.
func WithToken(token string) Option {
	return func(c *config) error {
		if token == "" {
			return errors.New("WithToken: empty token")
		}
		c.token = token
		return nil
	}
}

// WithMaxBodyBytes bounds the body of a request (default 1 MiB); a larger
// one is refused with 413 and kind "request_too_large".
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxBodyBytes: %d is not positive", n)
		}
		c.maxBody = n
		return nil
	}
}

// WithHeartbeat sets how often the event stream sends a comment when
// nothing else happens (default 15 s), so proxies and the write deadline
// see a live connection and the client notices a dead one.
func WithHeartbeat(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithHeartbeat: %v is not positive", d)
		}
		c.heartbeat = d
		return nil
	}
}

// WithRetryInterval sets how often a directory whose set failed to load
// when the server started is loaded again (default 250 ms, and never
// more often than twenty times the last attempt took). Once a set loads,
// the manager's watcher takes over.
func WithRetryInterval(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithRetryInterval: %v is not positive", d)
		}
		c.retry = d
		return nil
	}
}

// WithLogger sets where the server logs loads, reloads and failed
// connections. The default discards logs.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("WithLogger: nil logger")
		}
		c.log = l
		return nil
	}
}
