package manager

import (
	"context"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/watch"
)

// A reload builds a whole new set from the files, checks it exactly as New
// and Open do, and only then swaps it in, in one atomic step; a set that
// fails leaves the last good one serving. Reloads are serialized: the
// generation only grows, and no two loads race to be the last one stored.

// ReloadEvent reports one reload attempt to the functions passed to
// Subscribe.
type ReloadEvent struct {
	// Generation is the generation serving after the attempt: the new one
	// when the reload succeeded, the unchanged one when it failed.
	Generation uint64
	// Templates is the number of templates in the serving set.
	Templates int
	// Digest is the digest of the serving set (see Manager.Digest).
	Digest string
	// Err is nil when the reload succeeded. Otherwise it is the reason,
	// usually a *LoadError listing every problem (see Problems).
	Err error
	// Trigger says what started the attempt: TriggerReload, TriggerWatch,
	// TriggerPoll or TriggerOverflow.
	Trigger string
	// Time is when the attempt ended; Duration how long the load took.
	Time     time.Time
	Duration time.Duration
	// Compiled is how many templates a successful attempt compiled: every
	// template when it read the set whole, only those whose files changed
	// when the watcher could name the files (see WithWatch).
	Compiled int
}

// The triggers of a reload, as ReloadEvent.Trigger and the logs name them.
const (
	TriggerReload   = "reload"              // a call to Reload
	TriggerWatch    = watch.TriggerWatch    // a filesystem event (WithWatch)
	TriggerPoll     = watch.TriggerPoll     // the polled fingerprint changed (WithPollInterval)
	TriggerOverflow = watch.TriggerOverflow // the platform's event queue overflowed: events were lost
)

// reloadState is the part of a Manager that reloads use.
type reloadState struct {
	sem     chan struct{} // held while a reload loads, swaps and notifies
	lastErr atomic.Pointer[errBox]

	// Owned by the holder of sem (settle.go): the files the last failed
	// load tried to read, the files being watched settle, the backoff of
	// a reload failing on a permission.
	failedReads map[string]bool
	observed    map[string]observed
	backoff     time.Duration

	subMu  sync.Mutex
	subs   map[uint64]func(ReloadEvent)
	nextID uint64
}

type errBox struct{ err error }

func (r *reloadState) init() { r.sem = make(chan struct{}, 1) }

// Reload loads the set again now, from the directory given to Open or the
// fs.FS given to New, and swaps it in if it passes every check. It returns
// nil on success and otherwise the reason, usually a *LoadError listing
// every problem; the last good set keeps serving. A successful reload
// counts as a new generation even if nothing changed.
//
// Reload waits for a reload in progress (the watcher's or another call's);
// ctx bounds that wait, but a load once started is not interrupted.
// Reload on a closed manager returns ErrClosed. Do not call it from a
// Subscribe function: reloads are serialized, it would wait for itself.
func (m *Manager) Reload(ctx context.Context) error {
	select {
	case m.reloads.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-m.reloads.sem }()
	if m.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	start := time.Now()
	s, err, moved := m.loadAgain(nil)
	if moved != "" {
		err = &LoadError{Problems: []*Error{{Kind: ErrTemplate, Path: moved,
			Msg: "the file changed while the set was read (a save in progress?); the set serving is kept"}}}
	}
	m.finish(TriggerReload, s, err, time.Since(start))
	return err
}

// Generation counts the successful loads of the set: 1 after New or Open,
// one more for each successful reload. It is the generation Render uses
// from then on.
func (m *Manager) Generation() uint64 { return m.cur.Load().gen }

// LastError returns the error of the last reload attempt: nil if it
// succeeded (or there was none), else the reason the set serving was kept,
// usually a *LoadError listing every problem.
func (m *Manager) LastError() error {
	if b := m.reloads.lastErr.Load(); b != nil {
		return b.err
	}
	return nil
}

// Subscribe calls f after every reload attempt, successful or not, and
// returns a function that stops the calls. Calls happen one at a time, in
// the order of the attempts, on the goroutine that reloaded (the watcher's,
// or Reload's caller), after the new set is serving: keep f short or hand
// the event to a goroutine of your own, and call neither Reload nor Close
// from it. A subscription made during an attempt may miss that attempt;
// one cancelled during a call may still get that call.
func (m *Manager) Subscribe(f func(ReloadEvent)) (cancel func()) {
	r := &m.reloads
	r.subMu.Lock()
	defer r.subMu.Unlock()
	if r.subs == nil {
		r.subs = map[uint64]func(ReloadEvent){}
	}
	r.nextID++
	id := r.nextID
	r.subs[id] = f
	return func() {
		r.subMu.Lock()
		delete(r.subs, id)
		r.subMu.Unlock()
	}
}

// finish ends a reload attempt whose load gave s or err: it swaps s in on
// success, records, logs and notifies. The caller holds m.reloads.sem.
func (m *Manager) finish(trigger string, s *snapshot, err error, took time.Duration) {
	ev := ReloadEvent{Trigger: trigger, Duration: took}
	cur := m.cur.Load()
	log := m.cfg.logger
	if err != nil {
		m.reloads.lastErr.Store(&errBox{err})
		ev.Generation, ev.Templates, ev.Digest, ev.Err = cur.gen, len(cur.names), cur.digest, err
		var problems []string
		for _, p := range Problems(err) {
			problems = append(problems, p.Error())
		}
		if len(problems) == 0 {
			problems = append(problems, err.Error())
		}
		log.Warn("promptkit: reload failed; the last good set keeps serving",
			"generation", cur.gen, "trigger", trigger, "problems", problems)
	} else {
		s.gen = cur.gen + 1
		m.reloads.lastErr.Store(nil)
		m.cur.Store(s)
		ev.Generation, ev.Templates, ev.Digest, ev.Compiled = s.gen, len(s.names), s.digest, s.compiled
		log.Info("promptkit: template set reloaded",
			"generation", s.gen, "templates", len(s.names), "compiled", s.compiled, "digest", s.digest, "trigger", trigger, "duration", ev.Duration)
	}
	ev.Time = time.Now()
	if o := m.cfg.observer; o != nil {
		o.ObserveReload(ev)
	}
	m.reloads.publish(ev)
}

// loadAgain reads the set again: only what the changed files feed when
// that is known and enough (reload_files.go), else from scratch. A
// manager made by Open re-opens its directory, so a directory replaced
// since (renamed over, re-created, a symlink swapped to a new release) is
// read, not the old one the first os.Root still holds open. Symlinks
// inside the directory, like a Kubernetes ConfigMap's ..data, are
// resolved afresh by every open anyway. moved names a file that changed
// while the set was read (settle.go): then neither s nor err holds, and
// the load is to be done again. The caller holds m.reloads.sem.
func (m *Manager) loadAgain(files []string) (s *snapshot, err error, moved string) {
	fsys := m.fsys
	if m.dir != "" {
		root, err := openRoot(m.dir)
		if err != nil {
			return nil, err, ""
		}
		defer root.Close()
		fsys = newRootFS(root)
	}
	log := readLog{}
	s, err, ok := loadChanged(fsys, m.cfg, m.cur.Load(), files, log)
	if !ok {
		s, err = m.loadFrom(fsys, log)
	}
	if moved := log.moved(fsys, m.cfg.maxFileBytes, m.cfg.settle, time.Now()); moved != "" {
		return nil, nil, moved
	}
	m.reloads.failedReads = nil
	if err != nil {
		m.reloads.failedReads = make(map[string]bool, len(log))
		for p := range log {
			m.reloads.failedReads[p] = true
		}
	}
	return s, err, ""
}

// openRoot opens the template directory, reporting failure as a LoadError.
func openRoot(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &LoadError{Problems: []*Error{{Kind: ErrTemplate, Path: dir, Msg: "cannot open the template directory", Err: cleanFSErr(err)}}}
	}
	return root, nil
}

func (r *reloadState) publish(ev ReloadEvent) {
	r.subMu.Lock()
	ids := make([]uint64, 0, len(r.subs))
	for id := range r.subs {
		ids = append(ids, id)
	}
	r.subMu.Unlock()
	// Subscribers are called in the order they subscribed.
	slices.Sort(ids)
	for _, id := range ids {
		r.subMu.Lock()
		f, ok := r.subs[id]
		r.subMu.Unlock()
		if ok {
			f(ev)
		}
	}
}
