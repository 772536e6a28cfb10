// Package watch tells when a directory tree may have changed: a debounced
// trigger over fsnotify, with a polling fallback. It knows nothing of what
// the files hold; its user (the template manager) reloads when told.
//
// How it follows the files, and why.
//
// Platforms report changes per directory, not per tree, and the events
// say little about the intent: an editor saving by rename shows up as a
// Rename and a Create and no Write, vim adds .swp, 4913 and name~ files, a
// Kubernetes ConfigMap update names only ..data_tmp, ..data and timestamped
// folders. So the watcher does not interpret events by name. It watches
// every directory of the tree (a new one as soon as its Create arrives, and
// all of them again before each reload), plus the parent of the template
// directory for events naming the directory itself (deleted and re-created,
// or a symlink swapped to a new release). Every event restarts a
// quiet-period timer (WithDebounce), bounded by a maximum wait from the
// first event of a burst (WithMaxWait); when the timer fires the change is
// reported. A report lists the files of the burst when every event named a
// regular file, or one that was removed and was not a watched directory;
// then the user may reload only what those files feed. It also says which
// of them were written in place (a Write event: the file may be only half
// written, where a file renamed into place is whole), and whether the
// burst changed nothing but attributes (a chmod, a touch): the user
// ignores those unless its last reload failed. The user may ask for the
// same change to be reported again later (a file still settling).
// Any other event — a directory, a symlink (a ConfigMap's ..data), the
// template directory itself — makes the report say "anything", and the
// user reloads the tree whole. An event-queue overflow and a poll are
// reported the same way. Optional polling compares a fingerprint of the
// tree, for filesystems that report nothing.
package watch

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// What a change report says started it.
const (
	TriggerWatch    = "watch"    // a filesystem event
	TriggerPoll     = "poll"     // the polled fingerprint changed
	TriggerOverflow = "overflow" // the platform's event queue overflowed: events were lost
)

// Change is one report.
type Change struct {
	Trigger string // what started it: TriggerWatch, TriggerPoll or TriggerOverflow
	// Files are the regular files created, written, removed or renamed
	// during the burst (or, in a burst of attribute changes alone, whose
	// attributes changed), slash-separated and relative to the directory,
	// sorted; nil when the watcher cannot tell, and anything may have
	// changed. Files that were only read are not listed.
	Files []string
	// Written are the files of Files that were written in place (a Write
	// event): unlike a file renamed into place, such a file may be seen
	// half written. Nil when there are none, or when Files is nil.
	Written []string
	// Attrib says every event of the burst was a pure attribute change
	// (mode, owner, times): the contents did not change.
	Attrib bool
}

// ErrNoPlatformWatch is returned by New when the platform cannot watch the
// directory and no poll interval is set.
var ErrNoPlatformWatch = errors.New("watch: the platform cannot watch the directory")

// Options configure a Watcher.
type Options struct {
	// Debounce is the quiet period: a change is reported once no event has
	// been seen for Debounce. MaxWait bounds how long a constant stream of
	// events can delay the report (never less than Debounce).
	Debounce, MaxWait time.Duration
	// PollInterval, when positive, also compares a fingerprint of the tree
	// that often; when the platform cannot watch, polling is used alone.
	PollInterval time.Duration
	// Logger receives warnings and debug lines; nil discards them.
	Logger *slog.Logger
	// NewPlatform makes the platform watcher; nil is fsnotify.NewWatcher.
	// Tests set it to simulate a platform that cannot watch.
	NewPlatform func() (*fsnotify.Watcher, error)
}

// Watcher follows one directory tree. Its fields are owned by the run
// goroutine once started.
type Watcher struct {
	dir  string // absolute directory as given; may be a symlink
	opt  Options
	fsw  *fsnotify.Watcher // nil when polling only
	root string            // dir with symlinks resolved, at the last sync
	dirs map[string]bool   // the directories watched, at the last sync and since
	fp   [sha256.Size]byte // fingerprint at the last poll or report (polling only)

	done     chan struct{} // closed by Stop
	exited   chan struct{} // closed when run returns
	started  bool
	stopOnce sync.Once
}

// New starts watching dir (an absolute path). Call it before reading the
// tree the first time, so that no change made meanwhile is missed; Start
// begins reporting.
func New(dir string, opt Options) (*Watcher, error) {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.NewPlatform == nil {
		opt.NewPlatform = fsnotify.NewWatcher
	}
	opt.MaxWait = max(opt.MaxWait, opt.Debounce)
	w := &Watcher{dir: dir, opt: opt, done: make(chan struct{}), exited: make(chan struct{})}
	fsw, err := opt.NewPlatform()
	if err == nil {
		w.fsw = fsw
		err = w.sync()
	}
	if err != nil {
		if opt.PollInterval == 0 {
			w.Stop()
			return nil, fmt.Errorf("%w: cannot watch %s: %v", ErrNoPlatformWatch, dir, err)
		}
		opt.Logger.Warn("promptkit: the platform cannot watch the template directory; polling only",
			"dir", dir, "interval", opt.PollInterval, "error", err)
		if w.fsw != nil {
			w.fsw.Close()
			w.fsw = nil
		}
	}
	if opt.PollInterval > 0 {
		w.fp = w.fingerprint()
	}
	return w, nil
}

// Start reports changes to changed, on a goroutine of the watcher's, one
// call at a time: changed runs after the watches were brought up to date
// with the tree, and the watcher waits for it to return, so anything that
// changes while it runs is reported by a later call. When changed returns
// a positive duration, the same change is reported again after it (with
// whatever else changed meanwhile): a file still settling, a load that
// saw its files move, a failure worth retrying.
func (w *Watcher) Start(changed func(Change) time.Duration) {
	w.started = true
	go w.run(changed)
}

// Platform returns the platform watcher, nil when polling only. Tests use
// it to drop a watch or inject an overflow.
func (w *Watcher) Platform() *fsnotify.Watcher { return w.fsw }

// Stop ends watching and waits for the run goroutine. It is safe on a nil
// watcher and idempotent.
func (w *Watcher) Stop() error {
	if w == nil {
		return nil
	}
	var err error
	w.stopOnce.Do(func() {
		close(w.done)
		if w.started {
			<-w.exited
		}
		if w.fsw != nil {
			err = w.fsw.Close()
		}
	})
	return err
}

// run turns events into reloads: any relevant event (re)arms the timer to
// the end of the quiet period, capped by the maximum wait from the first
// event of the burst; the timer firing reloads.
func (w *Watcher) run(changed func(Change) time.Duration) {
	defer close(w.exited)
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	var tick <-chan time.Time
	if w.opt.PollInterval > 0 {
		t := time.NewTicker(w.opt.PollInterval)
		defer t.Stop()
		tick = t.C
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	var (
		pending bool
		first   time.Time       // first event of the pending burst
		trigger string          // what started it
		files   map[string]bool // the files it changed; nil: anything
		written map[string]bool // those of files written in place
		attrib  bool            // every event so far changed attributes only
	)
	open := func(why string) {
		pending, first, trigger = true, time.Now(), why
		files, written, attrib = map[string]bool{}, map[string]bool{}, true
	}
	seen := func(why, file string, write, attr bool) {
		now := time.Now()
		if !pending {
			open(why)
		}
		if file == "" {
			files, written = nil, nil
		} else if files != nil {
			files[file] = true
			if write {
				written[file] = true
			}
		}
		attrib = attrib && attr
		if why == TriggerOverflow {
			trigger = why
		}
		d := min(w.opt.Debounce, first.Add(w.opt.MaxWait).Sub(now))
		timer.Reset(max(d, 0))
	}
	log := w.opt.Logger
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if !w.relevant(ev) {
				continue
			}
			log.Debug("promptkit: template change", "event", ev.String())
			if ev.Has(fsnotify.Create) {
				w.addNewDir(ev.Name)
			}
			seen(TriggerWatch, w.file(ev), ev.Has(fsnotify.Write), ev.Op == fsnotify.Chmod)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				log.Warn("promptkit: file events were lost; reloading everything", "dir", w.dir, "error", err)
				seen(TriggerOverflow, "", false, false)
				continue
			}
			log.Warn("promptkit: watching the template directory", "dir", w.dir, "error", err)
		case <-tick:
			if fp := w.fingerprint(); fp != w.fp {
				w.fp = fp
				seen(TriggerPoll, "", false, false)
			}
		case <-timer.C:
			pending = false
			select {
			case <-w.done:
				return
			default:
			}
			c := Change{Trigger: trigger, Attrib: attrib}
			if files != nil {
				c.Files = slices.Sorted(maps.Keys(files))
				c.Written = slices.Sorted(maps.Keys(written))
			}
			files, written = nil, nil
			if again := w.report(changed, c); again > 0 {
				// The same change, reported again later; what happens
				// meanwhile joins it.
				open(c.Trigger)
				if c.Files == nil {
					files, written = nil, nil
				}
				for _, f := range c.Files {
					files[f] = true
				}
				for _, f := range c.Written {
					written[f] = true
				}
				attrib = c.Attrib
				timer.Reset(again)
			}
		}
	}
}

// report re-syncs the watches when directories may have been created,
// deleted or swapped since, records the fingerprint, then reports: anything that changes
// after this point produces a new event or fingerprint, hence another
// report.
func (w *Watcher) report(changed func(Change) time.Duration, c Change) time.Duration {
	// A burst of file events only created no directory and removed none:
	// the watches are up to date, and walking a tree of 10,000 files
	// would cost more than the reload.
	if w.fsw != nil && c.Files == nil {
		if err := w.sync(); err != nil {
			w.opt.Logger.Warn("promptkit: watching the template directory", "dir", w.dir, "error", err)
		}
	}
	if w.opt.PollInterval > 0 {
		w.fp = w.fingerprint()
	}
	return changed(c)
}

// file names the regular file an event is about, relative to the tree and
// slash-separated, or "" when the event may be about more than one file:
// a directory, a symlink, the template directory or its parent's entry.
// A path that no longer exists is a file unless it was a watched
// directory.
func (w *Watcher) file(ev fsnotify.Event) string {
	if ev.Name == w.dir || ev.Name == w.root || !within(w.root, ev.Name) {
		return ""
	}
	rel, err := filepath.Rel(w.root, ev.Name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	fi, err := os.Lstat(ev.Name)
	switch {
	case err == nil && fi.Mode().IsRegular():
	case errors.Is(err, fs.ErrNotExist) && !w.dirs[ev.Name]:
	default:
		return ""
	}
	return filepath.ToSlash(rel)
}

// relevant reports whether an event can change the set: anything inside
// the tree, or the template directory itself (a pure attribute change
// too: it may make a file readable). Events for the parent's other
// entries are not.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	return ev.Name == w.dir || within(w.root, ev.Name)
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// addNewDir watches a directory that was just created, and every directory
// already inside it (mkdir -p, a directory moved in). Files written in it
// before the watch existed are read by the reload this event leads to.
func (w *Watcher) addNewDir(p string) {
	if !within(w.root, p) {
		return
	}
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		return
	}
	for _, d := range treeDirs(p) {
		w.dirs[d] = true
		if err := w.fsw.Add(d); err != nil {
			w.opt.Logger.Debug("promptkit: cannot watch a new directory", "dir", d, "error", err)
		}
	}
}

// sync makes the watches match the tree: the template directory resolved
// now and every real directory under it (symlinks are not followed; their
// targets inside the root are directories of the tree too), plus its
// parent. Stale watches go first, so a directory renamed inside the tree
// is watched under its new name. It returns the error of watching the
// template directory itself.
func (w *Watcher) sync() error {
	want := map[string]bool{}
	root, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		root = w.dir // gone for now: the parent's watch sees it come back
	}
	w.root = root
	for _, d := range treeDirs(root) {
		want[d] = true
	}
	parent := filepath.Dir(w.dir)
	if parent != w.dir {
		want[parent] = true
	}
	for _, d := range w.fsw.WatchList() {
		if !want[d] {
			_ = w.fsw.Remove(d)
		}
	}
	w.dirs = want
	var rootErr error
	for d := range want {
		// Add is idempotent, and re-adding a path whose directory was
		// replaced watches the new one.
		if aerr := w.fsw.Add(d); aerr != nil {
			if d == root {
				rootErr = aerr
			} else {
				w.opt.Logger.Debug("promptkit: cannot watch a directory", "dir", d, "error", aerr)
			}
		}
	}
	if err != nil {
		return nil // a missing directory is a load problem, reported by the reload
	}
	return rootErr
}

// treeDirs lists root and the real directories under it.
func treeDirs(root string) []string {
	var dirs []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	return dirs
}

// fingerprint summarizes the tree without reading contents: where the
// directory resolves to, then every entry's name and type, each file's
// size, modification time and mode, and each symlink's target.
func (w *Watcher) fingerprint() [sha256.Size]byte {
	h := sha256.New()
	root, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		fmt.Fprintf(h, "error %v\n", err)
	} else {
		fmt.Fprintf(h, "root %q\n", root)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			rel := strings.TrimPrefix(p, root)
			if err != nil {
				fmt.Fprintf(h, "error %q %v\n", rel, err)
				return nil
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				fmt.Fprintf(h, "l %q %q\n", rel, target)
			case d.IsDir():
				fmt.Fprintf(h, "d %q\n", rel)
			default:
				fi, err := d.Info()
				if err != nil {
					fmt.Fprintf(h, "error %q %v\n", rel, err)
					return nil
				}
				fmt.Fprintf(h, "f %q %d %d %v\n", rel, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
			}
			return nil
		})
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
