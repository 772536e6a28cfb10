package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Defaults of the follower's options.
const (
	DefaultInterval = 30 * time.Second
	DefaultJitter   = 0.1
	DefaultTimeout  = 30 * time.Second
	DefaultKeep     = 3
	// MaxRefusalBackoff caps how long a refused manifest waits before it
	// is tried again (see Follow).
	MaxRefusalBackoff = time.Hour
)

// FollowOption configures a Follower (see Follow).
type FollowOption func(*followConfig) error

type followConfig struct {
	client   *Client
	cacheDir string
	interval time.Duration
	jitter   float64
	timeout  time.Duration
	keep     int
	mopts    []manager.Option
	logger   *slog.Logger
}

// WithClient sets how the follower reaches the registry (plain HTTP,
// credentials); the default is a zero Client: HTTPS and the Docker
// config's credentials.
func WithClient(c *Client) FollowOption {
	return func(cfg *followConfig) error {
		if c == nil {
			return errors.New("fleet: WithClient: nil client")
		}
		cfg.client = c
		return nil
	}
}

// WithCacheDir sets the disk cache (see Follow). The default is
// $XDG_CACHE_HOME/promptkit/fleet/REGISTRY/REPO/LABEL (os.UserCacheDir). A
// cache directory belongs to one follower at a time.
func WithCacheDir(dir string) FollowOption {
	return func(cfg *followConfig) error {
		if dir == "" {
			return errors.New("fleet: WithCacheDir: empty directory")
		}
		cfg.cacheDir = dir
		return nil
	}
}

// WithInterval sets how often the label is polled (default
// DefaultInterval, 30 s), each wait jittered (WithJitter) so a fleet does
// not poll in step.
func WithInterval(d time.Duration) FollowOption {
	return func(cfg *followConfig) error {
		if d <= 0 {
			return fmt.Errorf("fleet: WithInterval: %v is not positive", d)
		}
		cfg.interval = d
		return nil
	}
}

// WithJitter sets the jitter of the poll interval as a fraction: each wait
// is drawn uniformly from interval×(1±f). Default DefaultJitter (0.1); f
// is in [0, 0.5].
func WithJitter(f float64) FollowOption {
	return func(cfg *followConfig) error {
		if !(f >= 0 && f <= 0.5) {
			return fmt.Errorf("fleet: WithJitter: %v is not in [0, 0.5]", f)
		}
		cfg.jitter = f
		return nil
	}
}

// WithTimeout bounds one poll, start included: resolving the label,
// pulling a new set, loading it (default DefaultTimeout, 30 s).
func WithTimeout(d time.Duration) FollowOption {
	return func(cfg *followConfig) error {
		if d <= 0 {
			return fmt.Errorf("fleet: WithTimeout: %v is not positive", d)
		}
		cfg.timeout = d
		return nil
	}
}

// WithKeep sets how many pulled sets the cache keeps besides the one
// serving (default DefaultKeep, 3), for a quick rollback.
func WithKeep(n int) FollowOption {
	return func(cfg *followConfig) error {
		if n < 1 {
			return fmt.Errorf("fleet: WithKeep: %d is less than 1", n)
		}
		cfg.keep = n
		return nil
	}
}

// WithManagerOptions passes options to the manager (manager.WithObserver,
// manager.WithLogger, the limits). Not manager.WithWatch: the follower
// reloads the manager itself.
func WithManagerOptions(opts ...manager.Option) FollowOption {
	return func(cfg *followConfig) error {
		cfg.mopts = append(cfg.mopts, opts...)
		return nil
	}
}

// WithLogger sets where the follower logs polls that fail or change the
// set (default: nowhere).
func WithLogger(l *slog.Logger) FollowOption {
	return func(cfg *followConfig) error {
		if l == nil {
			return errors.New("fleet: WithLogger: nil logger")
		}
		cfg.logger = l
		return nil
	}
}

// Follower keeps a manager serving the set a registry label points at.
// Make one with Follow; render through Manager; Close it when done.
type Follower struct {
	ref    string
	r      registry.Reference
	pinned bool
	cfg    followConfig
	repo   *remote.Repository
	cache  cache
	m      *manager.Manager

	pollMu  sync.Mutex          // one poll at a time; guards the fields below it
	refused map[string]*refused // manifests refused, by digest: not pulled again before their retry time
	warm    bool                // started from the cache: the first poll is due at once

	mu sync.Mutex // guards st and subs
	st Status
	subs
	polls atomic.Uint64

	ctx    context.Context // cancelled by Close: ends the loop and a poll in flight
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Status is what a follower knows about its label, for health checks and
// metrics.
type Status struct {
	// Ref is the reference followed, as given to Follow; Pinned is true
	// for a digest (repo@sha256:…), which is never polled.
	Ref    string
	Pinned bool
	// Manifest is the manifest digest of the set serving; SetDigest the
	// set's digest (Manager().Digest()).
	Manifest  string
	SetDigest string
	// Generation is the manager's generation.
	Generation uint64
	// FromCache is true while the set serving came from the disk cache
	// without the registry confirming it since start (it was unreachable).
	FromCache bool
	// Polls counts the polls made, the one at start included.
	Polls uint64
	// LastPoll is when the last poll ended and LastError its error (nil
	// when it succeeded); LastSuccess is when a poll last succeeded, and
	// LastChange when the set serving last changed.
	LastPoll    time.Time
	LastError   error
	LastSuccess time.Time
	LastChange  time.Time
}

// PollEvent reports one poll to the functions passed to Subscribe.
type PollEvent struct {
	N        uint64 // the poll's number, from 1 (the poll at start)
	Time     time.Time
	Manifest string // what the label pointed at ("" when the registry did not say)
	Changed  bool   // a new set went live
	Err      error  // nil when the poll succeeded
}

// Follow starts following ref: "registry/repo:label" or, pinned,
// "registry/repo@sha256:…". It resolves the label, pulls the set it points
// at (every file checked against its blob digest, the set against its
// digest annotation), loads and checks it, and returns a follower whose
// Manager serves it. For a label it then polls the label's manifest
// digest (a HEAD request) every interval, jittered; a changed digest
// pulls the new set and swaps it in through the manager's reload, whole
// or not at all: a set that fails to load leaves the last good one
// serving (Manager().LastError() and Status().LastError say why) and is
// not pulled again at every poll: the follower remembers every manifest
// it refused (a set that does not load, a manifest or file whose bytes do
// not match their digest) and tries one again only after a backoff that
// doubles from two intervals to MaxRefusalBackoff, so a label on a broken
// set costs one HEAD request per poll, not a download.
//
// Every set pulled is kept in a disk cache (WithCacheDir), and the one
// serving is marked there. A host that starts with a cache serves its
// last good set at once (Status().FromCache) and polls the label in the
// background, so a registry that is down or hung delays nothing; it
// catches up when the registry answers. Without a cache, Follow pulls
// the label's set first; without a registry and without a cache, Follow
// fails. A pinned reference is pulled once, or taken from the
// cache, and never polled: a reproducible run.
//
// ctx bounds the start (with WithTimeout); the polling runs until Close.
func Follow(ctx context.Context, ref string, opts ...FollowOption) (*Follower, error) {
	cfg := followConfig{interval: DefaultInterval, jitter: DefaultJitter, timeout: DefaultTimeout,
		keep: DefaultKeep, client: &Client{}, logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	r, err := parseRef(ref)
	if err != nil {
		return nil, err
	}
	f := &Follower{ref: ref, r: r, pinned: isDigest(r), cfg: cfg, done: make(chan struct{})}
	if !f.pinned {
		if err := checkLabel(r.Reference); err != nil {
			return nil, err
		}
	}
	if cfg.cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("fleet: no cache directory (use WithCacheDir): %w", err)
		}
		label := r.Reference
		if f.pinned {
			label = "pinned"
		}
		cfg.cacheDir = filepath.Join(base, "promptkit", "fleet", safeName(r.Registry), filepath.FromSlash(r.Repository), label)
		f.cfg.cacheDir = cfg.cacheDir
	}
	f.cache = cache{dir: cfg.cacheDir}
	if err := os.MkdirAll(filepath.Join(cfg.cacheDir, "sets"), 0o755); err != nil {
		return nil, fmt.Errorf("fleet: cache: %w", err)
	}
	removeTemps(filepath.Join(cfg.cacheDir, "sets"))
	if f.repo, err = cfg.client.repository(r); err != nil {
		return nil, err
	}
	f.st = Status{Ref: ref, Pinned: f.pinned}

	sctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if f.pinned {
		err = f.startPinned(sctx)
	} else {
		err = f.startLabel(sctx)
	}
	if err != nil {
		return nil, err
	}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	if f.pinned {
		close(f.done)
	} else {
		go f.loop(f.warm)
	}
	return f, nil
}

// startPinned serves the pinned manifest, from the cache when it has it.
func (f *Follower) startPinned(ctx context.Context) error {
	manifest := f.r.Reference
	n := f.polls.Add(1)
	md, ok := f.cache.lookup(manifest)
	var err error
	if !ok {
		if md, err = f.pull(ctx, manifest); err != nil {
			f.record(n, "", false, err)
			return err
		}
	}
	m, err := manager.Open(f.cache.setDir(manifest), f.cfg.mopts...)
	if err == nil {
		err = checkServing(m, md)
	}
	if err != nil {
		f.record(n, manifest, false, err)
		return err
	}
	f.m = m
	f.serve(manifest, md)
	f.record(n, manifest, true, nil)
	return nil
}

// startLabel serves the cached set at once, when the cache has one that
// opens (the first poll then runs in the background); else it pulls what
// the label points at, or falls back on what the cache has.
func (f *Follower) startLabel(ctx context.Context) error {
	if f.cache.serving() != "" {
		if m, md, err := f.openCurrent(meta{}, false); err == nil {
			f.m, f.warm = m, true
			f.mu.Lock()
			f.st.FromCache = true
			f.mu.Unlock()
			f.serve(md.Manifest, md)
			return nil
		}
		// A cache that does not open (changed on disk, incomplete): the
		// registry decides, below.
	}
	n := f.polls.Add(1)
	manifest, md, pollErr := f.fetchLabel(ctx)
	if pollErr != nil && manifest != "" && refusal(pollErr) {
		f.refuse(manifest, pollErr)
	}
	var prev string
	if pollErr == nil {
		var err error
		if prev, err = f.cache.point(manifest); err != nil {
			return err
		}
	}
	m, md, err := f.openCurrent(md, pollErr == nil)
	if errors.Is(err, ErrDigest) && pollErr == nil {
		// The cached copy changed on disk: pull it afresh.
		f.cache.drop(manifest)
		if md, err = f.pull(ctx, manifest); err == nil {
			m, md, err = f.openCurrent(md, true)
		}
	}
	if err != nil && pollErr == nil && prev != "" && prev != manifest {
		// The label's set does not load here: back to the last good one.
		f.refuse(manifest, err)
		pollErr = err
		f.cache.point(prev)
		m, md, err = f.openCurrent(meta{}, false)
	}
	if err != nil {
		if pollErr != nil {
			err = errors.Join(pollErr, fmt.Errorf("fleet: no cached set to serve: %w", err))
		}
		f.record(n, manifest, false, err)
		return err
	}
	f.m = m
	f.mu.Lock()
	f.st.FromCache = pollErr != nil
	f.mu.Unlock()
	f.serve(md.Manifest, md)
	if pollErr != nil {
		f.cfg.logger.Warn("promptkit: registry unreachable; serving the cached set", "ref", f.ref, "manifest", md.Manifest, "digest", md.SetDigest, "error", logText(pollErr))
	}
	f.record(n, manifest, pollErr == nil, pollErr)
	return nil
}

// openCurrent opens the set the current link points at and checks it is
// the set the cache says (md, when known, else the cache's meta).
func (f *Follower) openCurrent(md meta, known bool) (*manager.Manager, meta, error) {
	manifest := f.cache.serving()
	if manifest == "" {
		return nil, meta{}, errors.New("fleet: the cache has no set")
	}
	if !known {
		var ok bool
		if md, ok = f.cache.lookup(manifest); !ok {
			return nil, meta{}, fmt.Errorf("fleet: cache: set %s is incomplete", manifest)
		}
	}
	m, err := manager.Open(f.cache.current(), f.cfg.mopts...)
	if err != nil {
		return nil, meta{}, err
	}
	if err := checkServing(m, md); err != nil {
		m.Close()
		return nil, meta{}, err
	}
	return m, md, nil
}

// checkServing checks that m serves the set md describes: a cached set
// changed on disk is not served as the set it was pulled as.
func checkServing(m *manager.Manager, md meta) error {
	if got := m.Digest(); got != md.SetDigest {
		return fmt.Errorf("%w: cached set %s makes %s, not %s", ErrDigest, md.Manifest, got, md.SetDigest)
	}
	return nil
}

// fetchLabel resolves the label and makes sure its set is in the cache.
func (f *Follower) fetchLabel(ctx context.Context) (string, meta, error) {
	desc, err := f.repo.Resolve(ctx, f.r.Reference)
	if err != nil {
		return "", meta{}, fmt.Errorf("fleet: resolve %s: %w", f.ref, err)
	}
	manifest := desc.Digest.String()
	if md, ok := f.cache.lookup(manifest); ok {
		return manifest, md, nil
	}
	md, err := f.pull(ctx, manifest)
	return manifest, md, err
}

// pull fetches and verifies manifest's set and stores it in the cache.
func (f *Follower) pull(ctx context.Context, manifest string) (meta, error) {
	s, info, err := fetchSet(ctx, f.repo, manifest)
	if err != nil {
		return meta{}, err
	}
	return f.cache.store(s, info, f.ref)
}

// loop polls until Close; at once first when now is set (a start from
// the cache).
func (f *Follower) loop(now bool) {
	defer close(f.done)
	for {
		wait := f.wait()
		if now {
			wait, now = 0, false
		}
		t := time.NewTimer(wait)
		select {
		case <-f.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		f.Poll(f.ctx)
	}
}

// wait draws the next poll interval.
func (f *Follower) wait() time.Duration {
	d := float64(f.cfg.interval) * (1 + f.cfg.jitter*(2*rand.Float64()-1))
	return time.Duration(d)
}

// Poll polls the label now, as the follower does every interval: resolve
// its manifest digest and, if it moved, pull, check and swap in the new
// set. It returns the poll's error (also in Status().LastError). Polls
// are serialized. A pinned follower has nothing to poll: Poll returns nil.
func (f *Follower) Poll(ctx context.Context) error {
	if f.pinned {
		return nil
	}
	if f.ctx.Err() != nil {
		return ErrClosed
	}
	f.pollMu.Lock()
	defer f.pollMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, f.cfg.timeout)
	defer cancel()
	stop := context.AfterFunc(f.ctx, cancel)
	defer stop()

	n := f.polls.Add(1)
	desc, err := f.repo.Resolve(ctx, f.r.Reference)
	if err != nil {
		err = fmt.Errorf("fleet: resolve %s: %w", f.ref, err)
		f.record(n, "", false, err)
		return err
	}
	manifest := desc.Digest.String()
	f.mu.Lock()
	serving := f.st.Manifest
	f.mu.Unlock()
	if manifest == serving {
		f.record(n, manifest, false, nil)
		return nil
	}
	if r := f.refused[manifest]; r != nil && time.Now().Before(r.retry) {
		f.record(n, manifest, false, r.err)
		return r.err
	}
	err = f.swap(ctx, manifest)
	switch {
	case err == nil:
		delete(f.refused, manifest)
	case refusal(err):
		f.refuse(manifest, err)
	}
	f.record(n, manifest, err == nil, err)
	return err
}

// refused is a manifest the follower refused: why, how many times, and
// when it may be tried again.
type refused struct {
	err   error
	times int
	retry time.Time
}

// maxRefused bounds the refusals remembered; the one due soonest is
// forgotten first.
const maxRefused = 64

// refuse remembers that manifest was refused with err; under pollMu.
func (f *Follower) refuse(manifest string, err error) {
	if f.refused == nil {
		f.refused = map[string]*refused{}
	}
	r := f.refused[manifest]
	if r == nil {
		if len(f.refused) >= maxRefused {
			var soonest string
			for d, o := range f.refused {
				if soonest == "" || o.retry.Before(f.refused[soonest].retry) {
					soonest = d
				}
			}
			delete(f.refused, soonest)
		}
		r = &refused{}
		f.refused[manifest] = r
	}
	r.err, r.times = err, r.times+1
	r.retry = time.Now().Add(refusalBackoff(f.cfg.interval, r.times))
}

// refusalBackoff is how long a manifest refused times times waits before
// it is tried again: two intervals, doubling, at most MaxRefusalBackoff
// (or one interval, when that is longer).
func refusalBackoff(interval time.Duration, times int) time.Duration {
	limit := max(MaxRefusalBackoff, interval)
	d := interval
	for range times {
		if d >= limit/2 {
			return limit
		}
		d *= 2
	}
	return d
}

// refusal reports whether err is about the set itself, not reaching it: a
// set refused is not pulled again before its backoff (see refuse).
func refusal(err error) bool {
	return errors.Is(err, ErrNotSet) || errors.Is(err, ErrDigest) || errors.Is(err, manager.ErrTemplate) ||
		len(manager.Problems(err)) > 0
}

// swap makes manifest's set serve: into the cache, the current link moved,
// the manager reloaded; on failure the link moves back and the last good
// set keeps serving. A cached copy that no longer makes its digest (changed
// on disk) is pulled afresh, once.
func (f *Follower) swap(ctx context.Context, manifest string) error {
	md, cached := f.cache.lookup(manifest)
	if !cached {
		var err error
		if md, err = f.pull(ctx, manifest); err != nil {
			return err
		}
	}
	prev, err := f.cache.point(manifest)
	if err != nil {
		return err
	}
	err = f.reload(ctx, md)
	if errors.Is(err, ErrDigest) && cached {
		f.cache.drop(manifest)
		if md, err = f.pull(ctx, manifest); err == nil {
			err = f.reload(ctx, md)
		}
	}
	if err != nil {
		// Back to the last good set, on disk for a restart and in the
		// manager if the reload went through.
		f.cache.point(prev)
		if f.m.Digest() != f.servingDigest() {
			f.m.Reload(context.WithoutCancel(ctx))
		}
		f.cfg.logger.Warn("promptkit: set refused; the last good set keeps serving", "ref", f.ref, "manifest", manifest, "error", logText(err))
		return err
	}
	f.serve(manifest, md)
	f.cache.prune(f.cfg.keep, manifest, prev)
	f.cfg.logger.Info("promptkit: new set serving", "ref", f.ref, "manifest", manifest, "digest", md.SetDigest, "generation", f.m.Generation())
	return nil
}

// reload reloads the manager from the current link and checks it serves md.
func (f *Follower) reload(ctx context.Context, md meta) error {
	if err := f.m.Reload(ctx); err != nil {
		return err
	}
	return checkServing(f.m, md)
}

func (f *Follower) servingDigest() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.SetDigest
}

// serve records that manifest's set is serving.
func (f *Follower) serve(manifest string, md meta) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st.Manifest, f.st.SetDigest, f.st.LastChange = manifest, md.SetDigest, time.Now()
}

// record ends poll n: status, then subscribers.
func (f *Follower) record(n uint64, manifest string, changed bool, err error) {
	now := time.Now()
	f.mu.Lock()
	f.st.Polls = n
	f.st.LastPoll, f.st.LastError = now, err
	if err == nil {
		f.st.LastSuccess = now
		f.st.FromCache = false
	}
	fns := f.subs.list()
	f.mu.Unlock()
	if err != nil && n > 1 {
		f.cfg.logger.Warn("promptkit: poll failed", "ref", f.ref, "poll", n, "error", logText(err))
	}
	ev := PollEvent{N: n, Time: now, Manifest: manifest, Changed: changed, Err: err}
	for _, fn := range fns {
		fn(ev)
	}
}

// Manager returns the manager serving the set: render through it, read
// its Digest, Generation and LastError, Subscribe to its reloads.
func (f *Follower) Manager() *manager.Manager { return f.m }

// Status returns what the follower knows now.
func (f *Follower) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.st
	st.Generation = f.m.Generation()
	return st
}

// Subscribe calls fn after every poll, on the goroutine that polled, and
// returns a function that stops the calls. Keep fn short; do not call Poll
// or Close from it.
func (f *Follower) Subscribe(fn func(PollEvent)) (cancel func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := f.subs.add(fn)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.subs.remove(id)
	}
}

// Close stops polling (ending a poll in flight), waits for the poller and
// closes the manager. Renders through Manager keep working on the last
// set.
func (f *Follower) Close() error {
	var err error
	f.once.Do(func() {
		f.cancel()
		<-f.done
		err = f.m.Close()
	})
	return err
}

// subs holds subscribers in the order they subscribed; the Follower's mu
// guards it.
type subs struct {
	next uint64
	fns  map[uint64]func(PollEvent)
}

func (s *subs) add(fn func(PollEvent)) uint64 {
	if s.fns == nil {
		s.fns = map[uint64]func(PollEvent){}
	}
	s.next++
	s.fns[s.next] = fn
	return s.next
}

func (s *subs) remove(id uint64) { delete(s.fns, id) }

func (s *subs) list() []func(PollEvent) {
	out := make([]func(PollEvent), 0, len(s.fns))
	for id := uint64(1); id <= s.next; id++ {
		if fn, ok := s.fns[id]; ok {
			out = append(out, fn)
		}
	}
	return out
}

// safeName makes a registry host usable as a directory name.
func safeName(host string) string {
	out := []byte(host)
	for i, c := range out {
		if c == ':' || c == '/' || c == '\\' {
			out[i] = '_'
		}
	}
	return string(out)
}

// removeTemps removes what an interrupted pull left in the cache.
func removeTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); len(n) > 0 && n[0] == '.' {
			os.RemoveAll(filepath.Join(dir, n))
		}
	}
}
