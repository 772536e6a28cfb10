package manager

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Option configures a Manager. Options are applied in order over the
// defaults; a contradiction is an error from New or Open.
type Option func(*config) error

type config struct {
	logger        *slog.Logger
	observer      Observer // nil: nothing observes (observe.go)
	maxOutput     int
	maxIterations int
	watch         bool
	debounce      time.Duration
	maxWait       time.Duration
	pollInterval  time.Duration
	maxWaitSet    bool     // WithMaxWait was given
	watchOnly     []string // watch options given, checked against watch

	// newPlatformWatcher replaces fsnotify.NewWatcher in tests (nil: the
	// real one).
	newPlatformWatcher func() (*fsnotify.Watcher, error)
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
		logger:        slog.New(slog.DiscardHandler),
		maxOutput:     DefaultMaxOutputBytes,
		maxIterations: DefaultMaxIterations,
		debounce:      DefaultDebounce,
		maxWait:       DefaultMaxWait,
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
	if !c.watch && len(c.watchOnly) > 0 {
		return nil, fmt.Errorf("%w: %s without WithWatch has no effect", ErrTemplate, c.watchOnly[0])
	}
	if !c.maxWaitSet && c.maxWait < c.debounce {
		c.maxWait = c.debounce
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

// WithWatch keeps the set live: the manager watches the template directory
// (every subdirectory, including ones created later) and reloads the whole
// set when anything in it changes. A reload that fails leaves the last good
// set serving; see Reload, Generation, LastError and Subscribe. Close stops
// watching.
//
// WithWatch needs a directory on disk: it is an error with New, which reads
// an fs.FS that cannot be watched (call Reload instead).
func WithWatch() Option {
	return func(c *config) error {
		c.watch = true
		return nil
	}
}

// WithDebounce sets the quiet period of WithWatch (default DefaultDebounce,
// 100 ms): a reload starts once no change has been seen for d, so an editor's
// save (several writes, a rename, a backup file) loads once and whole. It
// needs WithWatch.
func WithDebounce(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithDebounce: %v is not positive", d)
		}
		c.debounce = d
		c.watchOnly = append(c.watchOnly, "WithDebounce")
		return nil
	}
}

// WithMaxWait bounds how long a constant stream of changes can delay a
// reload (default DefaultMaxWait, 1 s, or the debounce period if that is
// longer): a reload starts at most d after the first change of a burst even
// if changes keep coming. It must not be shorter than the debounce period,
// and it needs WithWatch.
func WithMaxWait(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithMaxWait: %v is not positive", d)
		}
		c.maxWait, c.maxWaitSet = d, true
		c.watchOnly = append(c.watchOnly, "WithMaxWait")
		return nil
	}
}

// WithPollInterval makes WithWatch also poll the directory every d, for
// filesystems whose changes the platform does not report (NFS, SMB, some
// container and FUSE mounts, or inotify's limits exhausted). A poll compares
// a fingerprint of the tree (names, sizes, modification times, modes and
// symlink targets; contents are not read) and a difference counts as a change,
// subject to the debounce. When the platform cannot watch at all, polling
// is used alone instead of Open failing. Polling is off by default; it needs
// WithWatch.
func WithPollInterval(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithPollInterval: %v is not positive", d)
		}
		c.pollInterval = d
		c.watchOnly = append(c.watchOnly, "WithPollInterval")
		return nil
	}
}
