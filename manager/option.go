package manager

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// Option configures a Manager. Options are applied in order over the
// defaults; a contradiction is an error from New or Open.
type Option func(*config) error

type config struct {
	worstCase     bool // WithWorstCase: bound every template's renders at load
	logger        *slog.Logger
	observer      Observer      // nil: nothing observes (observe.go)
	limits        engine.Limits // of one render
	maxRenderTime time.Duration
	maxFileBytes  int64 // of one file of the set
	maxInlined    int   // source bytes of one template with its includes expanded
	jinja         jinja.Options
	watch         bool
	debounce      time.Duration
	maxWait       time.Duration
	pollInterval  time.Duration
	settle        time.Duration // how long a file written in place must stay unchanged before a reload reads it
	maxWaitSet    bool          // WithMaxWait was given
	watchOnly     []string      // watch options given, checked against watch

	// newPlatformWatcher replaces fsnotify.NewWatcher in tests (nil: the
	// real one).
	newPlatformWatcher func() (*fsnotify.Watcher, error)
}

// Defaults of the limits; each is documented on its option.
const (
	DefaultMaxOutputBytes = engine.DefaultMaxOutput // 16 MiB
	DefaultMaxIterations  = engine.DefaultMaxIterations
	DefaultMaxWork        = engine.DefaultMaxWork
	DefaultMaxCallDepth   = engine.DefaultMaxCallDepth
	DefaultMaxFileBytes   = 16 << 20 // 16 MiB
	DefaultMaxInlined     = 4 << 20  // 4 MiB
	DefaultDebounce       = 100 * time.Millisecond
	DefaultMaxWait        = 1 * time.Second
	DefaultSettle         = 1 * time.Second
	maxIncludeDepth       = 32
)

func defaultConfig() *config {
	return &config{
		logger:       slog.New(slog.DiscardHandler),
		maxFileBytes: DefaultMaxFileBytes,
		maxInlined:   DefaultMaxInlined,
		debounce:     DefaultDebounce,
		maxWait:      DefaultMaxWait,
		settle:       DefaultSettle,
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
	c.limits = c.limits.WithDefaults()
	if !c.maxWaitSet && c.maxWait < c.debounce {
		c.maxWait = c.debounce
	}
	if c.maxWait < c.debounce {
		return nil, fmt.Errorf("%w: max wait %v is shorter than the debounce period %v", ErrTemplate, c.maxWait, c.debounce)
	}
	return c, nil
}

// WithLogger sets where the manager logs loads and reloads (through
// log/slog: a load at Info, a failed reload at Warn, each change the
// watcher sees at Debug). The default discards logs, so that a library
// never writes to a host's standard error unasked; pass
// WithLogger(slog.Default()) to log where the program logs.
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
		c.limits.MaxOutput = n
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
		c.limits.MaxIterations = n
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
// if changes keep coming — except that a file of the set written in place
// is read only once it has settled (WithSettle). It must not be shorter
// than the debounce period, and it needs WithWatch.
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

// WithSettle sets how long a file written in place (rather than renamed
// into place) must stay unchanged — its size and modification time —
// before a watched reload reads it (default DefaultSettle, 1 s): a save
// that writes in bursts, or pauses for less than this, is never loaded
// half written, whatever the debounce and the maximum wait. Files renamed
// into place are whole when they appear, and wait only for the debounce.
// It needs WithWatch.
func WithSettle(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithSettle: %v is not positive", d)
		}
		c.settle = d
		c.watchOnly = append(c.watchOnly, "WithSettle")
		return nil
	}
}

// WithMaxMemory limits the bytes of the values one render builds — strings
// joined, repeated or replaced, lists and dicts made, captured output of
// macros and blocks, printed forms — charged before each is built
// (default 4 × the output limit, 64 MiB). Beyond it the render stops with
// an error wrapping ErrOutputLimit that names the template and line.
func WithMaxMemory(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxMemory: %d is not positive", n)
		}
		c.limits.MaxMemory = n
		return nil
	}
}

// WithMaxWork limits the work of one render, in units of one loop
// iteration, one item a filter or operator handles, or 64 bytes it
// processes (default DefaultMaxWork, 50 million: well under a second of
// work). Beyond it the render stops with an error wrapping ErrOutputLimit.
func WithMaxWork(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxWork: %d is not positive", n)
		}
		c.limits.MaxWork = n
		return nil
	}
}

// WithMaxCallDepth limits nested macro calls and recursive loops (default
// DefaultMaxCallDepth, 100): a macro that calls itself without end stops
// with an error wrapping ErrOutputLimit, never a crashed host.
func WithMaxCallDepth(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxCallDepth: %d is not positive", n)
		}
		c.limits.MaxCallDepth = n
		return nil
	}
}

// WithMaxRenderTime bounds how long one render may run, for Render and
// RenderMessages as for their Context forms (default: no bound but the
// work budget's). A render past it stops with an error wrapping
// ErrCanceled and context.DeadlineExceeded.
func WithMaxRenderTime(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithMaxRenderTime: %v is not positive", d)
		}
		c.maxRenderTime = d
		return nil
	}
}

// WithMaxFileBytes limits the size of each file of the set, index.json
// included (default DefaultMaxFileBytes, 16 MiB), checked before the file
// is read.
func WithMaxFileBytes(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxFileBytes: %d is not positive", n)
		}
		c.maxFileBytes = n
		return nil
	}
}

// WithMaxInlined limits the source bytes of one template with every
// include and import expanded (default DefaultMaxInlined, 4 MiB), so that
// parts that include each other many times cannot make a load exhaust the
// host's memory: such a set is refused, naming the include chain.
func WithMaxInlined(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxInlined: %d is not positive", n)
		}
		c.maxInlined = n
		return nil
	}
}

// WithClock sets the clock of strftime_now (default time.Now), so a
// template that prints today's date renders the same in tests.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return fmt.Errorf("WithClock: nil clock")
		}
		c.limits.Now = now
		return nil
	}
}

// WithTrimBlocks, WithLStripBlocks and WithKeepTrailingNewline set Jinja's
// environment settings of the same names for every template of the set,
// for templates written for an environment that has them (promptflow's,
// LlamaIndex's). The default is Jinja's default environment: all three
// off.
//
// With trim_blocks the first newline after a block tag or comment is
// dropped; with lstrip_blocks spaces and tabs before a block tag or
// comment that starts a line are; keep_trailing_newline keeps the one
// trailing newline of a file that Jinja otherwise drops.
func WithTrimBlocks() Option {
	return func(c *config) error { c.jinja.TrimBlocks = true; return nil }
}

// WithLStripBlocks: see WithTrimBlocks.
func WithLStripBlocks() Option {
	return func(c *config) error { c.jinja.LStripBlocks = true; return nil }
}

// WithKeepTrailingNewline: see WithTrimBlocks.
func WithKeepTrailingNewline() Option {
	return func(c *config) error { c.jinja.KeepTrailingNewline = true; return nil }
}
