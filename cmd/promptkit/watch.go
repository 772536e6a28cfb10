package main

import (
	"encoding/json"
	"sync"

	"github.com/seed-e7d2830f/promptkit/manager"
)

//promptkit:allow-inline CLI help text, not a prompt
const watchUsage = `Usage: promptkit watch --dir DIR [--debounce D] [--max-wait D] [--poll D]

Loads the template set in DIR and keeps it live, as a host using
manager.WithWatch does: every change to the directory reloads the whole
set, and only a set that passes every check replaces the one serving.
Prints one JSON line per load attempt, the initial load first:

  {"generation":2,"ok":true,"templates":7}
  {"generation":2,"ok":false,"problems":["a.md:1:4: template \"a\": ..."]}

generation is the generation serving after the attempt (a failed attempt
keeps the last good set, and its generation). Runs until interrupted:
Ctrl-C exits 130, SIGTERM 143. If the initial load fails, prints its line
(generation 0), says why on stderr and exits 1. --dir is required: the
embedded set never changes.

Flags:
  --dir DIR       the template directory to watch
  --debounce D    quiet period after a change before reloading (default 100ms)
  --max-wait D    longest delay under a constant stream of changes (default 1s)
  --poll D        also poll every D, for filesystems that report no changes
                  (NFS, some container mounts); default off

Example:
  promptkit watch --dir ./prompts
`

// watchLine is one line of output.
type watchLine struct {
	Generation uint64   `json:"generation"`
	OK         bool     `json:"ok"`
	Templates  *int     `json:"templates,omitempty"`
	Problems   []string `json:"problems,omitempty"`
}

func runWatch(c *cli, args []string) error {
	fs := c.newFlags("watch", watchUsage)
	dir := c.dirFlag(fs, "template set directory")
	debounce := fs.Duration("debounce", manager.DefaultDebounce, "quiet period")
	maxWait := fs.Duration("max-wait", 0, "maximum wait")
	poll := fs.Duration("poll", 0, "polling interval")
	pos, err := c.parse(fs, watchUsage, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 0:
		return usagef("watch takes no arguments\n\n%s", watchUsage)
	case *dir == "":
		return usagef("watch needs --dir: the embedded set never changes\n\n%s", watchUsage)
	case *debounce <= 0 || *maxWait < 0 || *poll < 0:
		return usagef("--debounce must be positive, --max-wait and --poll not negative\n\n%s", watchUsage)
	case *maxWait > 0 && *maxWait < *debounce:
		return usagef("--max-wait %v is shorter than --debounce %v\n\n%s", *maxWait, *debounce, watchUsage)
	}
	opts := []manager.Option{manager.WithWatch(), manager.WithDebounce(*debounce)}
	if *maxWait > 0 {
		opts = append(opts, manager.WithMaxWait(*maxWait))
	}
	if *poll > 0 {
		opts = append(opts, manager.WithPollInterval(*poll))
	}

	if err := checkSetDir(*dir); err != nil {
		return err
	}
	out := &lineWriter{enc: json.NewEncoder(c.stdout)}
	out.enc.SetEscapeHTML(false)
	m, err := manager.Open(*dir, opts...)
	if err != nil {
		out.mu.Lock()
		out.write(failure(0, err))
		out.mu.Unlock()
		return err // also on stderr, under the prefix
	}
	defer m.Close()

	// The first line goes out before any reload's line.
	out.mu.Lock()
	m.Subscribe(func(ev manager.ReloadEvent) {
		out.mu.Lock()
		defer out.mu.Unlock()
		if ev.Err != nil {
			out.write(failure(ev.Generation, ev.Err))
			return
		}
		out.write(success(ev.Generation, ev.Templates))
	})
	out.write(success(m.Generation(), len(m.Templates())))
	out.mu.Unlock()

	<-c.ctx.Done() // a signal: run exits 130 or 143
	return nil
}

func success(gen uint64, templates int) watchLine {
	return watchLine{Generation: gen, OK: true, Templates: &templates}
}

func failure(gen uint64, err error) watchLine {
	l := watchLine{Generation: gen}
	for _, p := range manager.Problems(err) {
		l.Problems = append(l.Problems, p.Error())
	}
	if len(l.Problems) == 0 {
		l.Problems = []string{err.Error()}
	}
	return l
}

// lineWriter prints whole lines from the watcher's goroutine and the
// command's. write needs mu.
type lineWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (w *lineWriter) write(l watchLine) { _ = w.enc.Encode(l) }
