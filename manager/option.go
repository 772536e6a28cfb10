package manager

import (
	"fmt"
	"log/slog"
	"time"
)

// Option configures a Manager. Options are applied in order over the
// defaults; a contradiction is an error from New or Open.
type Option func(*config) error

type config struct {
	logger         *slog.Logger
	maxOutput      int
	maxIterations  int
	maxIncludeDeep int
	watch          bool
	debounce       time.Duration
	maxWait        time.Duration
	pollInterval   time.Duration
}

// Defaults of the limits; each is documented on its option.
const (
	DefaultMaxOutputBytes = 16 << 20 // 16 MiB
	DefaultMaxIterations  = 1_000_000
	DefaultDebounce       = 100 * time.Millisecond
	DefaultMaxWait        = 1 * time.Second
	maxIncludeDepth       = 32
	maxNestingDepth       = 64
)

func defaultConfig() *config {
	return &config{
		logger:         slog.New(slog.DiscardHandler),
		maxOutput:      DefaultMaxOutputBytes,
		maxIterations:  DefaultMaxIterations,
		maxIncludeDeep: maxIncludeDepth,
		debounce:       DefaultDebounce,
		maxWait:        DefaultMaxWait,
	}
}

func newConfig(opts []Option) (*config, error) {
	c := defaultConfig()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrTemplate, err)
		}
	}
	if c.maxWait < c.debounce {
		return nil, fmt.Errorf("%w: max wait %v is shorter than the debounce period %v", ErrTemplate, c.maxWait, c.debounce)
	}
	return c, nil
}

// WithLogger sets where the manager logs loads and reloads. The default
// discards logs.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("WithLogger: nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithMaxOutputBytes limits the size of one render's output (default
// DefaultMaxOutputBytes, 16 MiB). A render that would exceed it stops and
// returns an error wrapping ErrOutputLimit that names the template, so a
// template cannot exhaust the host's memory.
func WithMaxOutputBytes(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxOutputBytes: %d is not positive", n)
		}
		c.maxOutput = n
		return nil
	}
}

// WithMaxIterations limits the loop iterations of one render, counted over
// all loops together (default DefaultMaxIterations, one million), so a loop
// over a loop over a large list cannot hang the host. Exceeding it is an
// error wrapping ErrOutputLimit.
func WithMaxIterations(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxIterations: %d is not positive", n)
		}
		c.maxIterations = n
		return nil
	}
}
