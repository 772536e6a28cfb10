package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The defaults of the options.
const (
	DefaultMaxRenders = 16          // renders running at once (WithMaxRenders)
	DefaultQueueWait  = time.Second // how long prompts/get waits for a render slot
)

// Option configures a Server.
type Option func(*config) error

type config struct {
	log        *slog.Logger
	impl       *mcp.Implementation
	maxRenders int
	queueWait  time.Duration
	token      string
}

func defaults() config {
	return config{log: logger(nil), maxRenders: DefaultMaxRenders, queueWait: DefaultQueueWait}
}

// WithLogger logs the server's work (each registration of the set's
// prompts, the SDK's sessions) through l; without it the server logs
// nothing. Over stdio, l must not write to standard output: that is the
// protocol's channel.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("WithLogger: nil logger")
		}
		c.log = l
		return nil
	}
}

// WithImplementation sets the name and version the server gives clients
// when they connect (default: "promptkit" and promptkit's module version).
func WithImplementation(impl *mcp.Implementation) Option {
	return func(c *config) error {
		if impl == nil || impl.Name == "" {
			return errors.New("WithImplementation: an implementation needs a name")
		}
		c.impl = impl
		return nil
	}
}

// WithMaxRenders bounds the prompts/get renders running at once
// (DefaultMaxRenders); a request that finds no slot free within wait
// (DefaultQueueWait) is refused with an "overloaded" error. Each render is
// bounded as well by the manager's own budgets (manager.WithMaxRenderTime,
// WithMaxOutputBytes, …).
func WithMaxRenders(n int, wait time.Duration) Option {
	return func(c *config) error {
		if n <= 0 || wait <= 0 {
			return fmt.Errorf("WithMaxRenders(%d, %v): both must be positive", n, wait)
		}
		c.maxRenders, c.queueWait = n, wait
		return nil
	}
}

// WithToken requires "Authorization: Bearer TOKEN" on every request of
// the streamable HTTP transport (Serve, Handler); stdio needs none. The
// token travels in clear text: beyond loopback, put a TLS-terminating,
// authenticating proxy in front.
func WithToken(token string) Option {
	return func(c *config) error {
		if token == "" {
			return errors.New("WithToken: empty token")
		}
		c.token = token
		return nil
	}
}

// sdkLogger is l for the SDK's own records, warnings and errors only: its
// informational records (one per session and connection) would drown the
// server's own.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(warnings{l.Handler()})
}

// warnings passes on records of level Warn and above.
type warnings struct{ slog.Handler }

func (h warnings) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.Handler.Enabled(ctx, level)
}

func (h warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{h.Handler.WithAttrs(attrs)}
}
func (h warnings) WithGroup(name string) slog.Handler { return warnings{h.Handler.WithGroup(name)} }
