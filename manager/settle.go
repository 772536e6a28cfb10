package manager

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/watch"
)

// Reloads under slow and odd writers.
//
// A watched reload must never serve a file caught half written, must
// retry a reload that failed for a reason a chmod can fix, and must not
// reload for files that are not part of the set. What the watcher reports
// (internal/watch) goes through watchChanged:
//
//   - A change that names files, none of which the set uses, tried to read
//     (an include left out as missing) or the last failed load tried to
//     read, is ignored: a log written beside the templates reloads nothing.
//   - A change of attributes alone (chmod, touch) is ignored unless the
//     last reload failed: it may have made a file readable.
//   - A file of the set written in place (not renamed into place) is read
//     only once it has stayed unchanged — size and modification time, as
//     watched from here — for WithSettle: the watcher reports the change
//     again until it has. A change the watcher cannot name the files of
//     looks at every file of the set.
//   - After the load, every file it read is looked at again (size and
//     modification time, and the contents of those changed lately): a set
//     whose files moved while it was read is never applied; the change is
//     reported again after a quiet period.
//   - A load that succeeds with the digest of the set serving changed
//     nothing: no swap, no event, no log.
//   - A load that failed on a permission is retried with a backoff (1 s
//     doubling to 32 s) until it passes or fails otherwise, besides the
//     attribute changes.

// readStat is what a file was when the load read it; failed when the
// load could not read it.
type readStat struct {
	size   int64
	mod    time.Time
	sum    fileSum
	failed bool
}

// readLog records the files one load read (loader.readFile).
type readLog map[string]readStat

// moved returns a file of the log that is not what the load read — its
// size or modification time changed, or, for a file modified within
// recent of now, its contents — or "" when none.
func (r readLog) moved(fsys fs.FS, maxBytes int64, recent time.Duration, now time.Time) string {
	for p, st := range r {
		if st.failed {
			continue // the load's problem says it
		}
		fi, err := fs.Stat(fsys, p)
		if err != nil || fi.Size() != st.size || !fi.ModTime().Equal(st.mod) {
			return p
		}
		if now.Sub(st.mod) < recent {
			// A rewrite within the clock's resolution keeps the size and
			// the time: the contents say.
			data, _, err := readSetFile(fsys, p, maxBytes)
			if err != nil || sumOf(data) != st.sum {
				return p
			}
		}
	}
	return ""
}

// observed is a file of the set as the settle check last saw it.
type observed struct {
	size  int64
	mod   time.Time
	since time.Time // since when it has been as it is
}

// Bounds of the retries of a reload that failed on a permission.
const (
	firstBackoff = time.Second
	maxBackoff   = 32 * time.Second
)

// watchChanged handles one report of the watcher (see above); a positive
// result asks the watcher to report the change again after that long.
func (m *Manager) watchChanged(c watch.Change) time.Duration {
	m.reloads.sem <- struct{}{}
	defer func() { <-m.reloads.sem }()
	r := &m.reloads
	cur := m.cur.Load()
	degraded := m.LastError() != nil
	log := m.cfg.logger
	if c.Files != nil && !m.concerns(cur, c.Files) {
		log.Debug("promptkit: change ignored: no file of the set", "files", c.Files)
		return 0
	}
	if c.Attrib && !degraded {
		return 0 // the contents did not change, and the set serving is good
	}
	var settling []string
	if c.Files != nil {
		for _, f := range c.Written {
			if m.concerns(cur, []string{f}) {
				settling = append(settling, f)
			}
		}
	} else {
		settling = cur.paths
	}
	if wait := m.unsettled(settling, time.Now()); wait > 0 {
		log.Debug("promptkit: waiting for files written in place to settle", "wait", wait)
		return wait
	}
	start := time.Now()
	s, err, moved := m.loadAgain(c.Files)
	if moved != "" {
		log.Info("promptkit: a file changed while the set was read; reading it again after a quiet period", "file", moved)
		return m.cfg.debounce
	}
	if err == nil && !degraded && s.digest == cur.digest {
		log.Debug("promptkit: change ignored: the set's files are as they were", "digest", s.digest)
		return 0
	}
	clear(r.observed)
	m.finish(c.Trigger, s, err, time.Since(start))
	if err != nil && errors.Is(err, fs.ErrPermission) {
		r.backoff = min(max(2*r.backoff, firstBackoff), maxBackoff)
		return r.backoff
	}
	r.backoff = 0
	return 0
}

// concerns reports whether one of files is a file the set serving uses
// or tried to read, or one the last failed load tried to read: a change
// to any other file cannot change what a reload would load.
func (m *Manager) concerns(cur *snapshot, files []string) bool {
	for _, f := range files {
		if f == IndexFile || m.reloads.failedReads[f] {
			return true
		}
		if _, ok := cur.files[f]; ok {
			return true
		}
	}
	for _, c := range cur.templates {
		for _, src := range c.sources {
			for _, f := range files {
				if src == f {
					return true
				}
			}
		}
	}
	return false
}

// unsettled returns how long until every file of paths has stayed as it
// is (size and modification time) for the settle period, 0 once they
// have. A file is first taken to be as it is since its modification time
// (or now, for a time ahead of the clock); a file seen to change is as it
// is since then.
func (m *Manager) unsettled(paths []string, now time.Time) time.Duration {
	r := &m.reloads
	if r.observed == nil {
		r.observed = map[string]observed{}
	}
	var wait time.Duration
	for _, p := range paths {
		fi, err := os.Stat(filepath.Join(m.dir, filepath.FromSlash(p)))
		if err != nil {
			delete(r.observed, p) // gone or unreadable: the load says what
			continue
		}
		o, seen := r.observed[p]
		if !seen || o.size != fi.Size() || !o.mod.Equal(fi.ModTime()) {
			since := fi.ModTime()
			if seen && since.Before(o.since) {
				since = now // changed since it was seen, with an older time
			}
			o = observed{size: fi.Size(), mod: fi.ModTime(), since: minTime(since, now)}
			r.observed[p] = o
		}
		wait = max(wait, m.cfg.settle-now.Sub(o.since))
	}
	return wait
}

// minTime is the earlier of two times.
func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
