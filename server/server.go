package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

// The headers every response carries, so a caller can log which prompts
// served it. A render's or build's response names exactly the set that
// rendered it; other responses name the set serving when they were made.
const (
	HeaderDigest       = "Promptkit-Digest"        // the set's digest, "sha256:…" (absent while no set serves)
	HeaderGeneration   = "Promptkit-Generation"    // the set's generation; 0 while no set serves
	HeaderTemplateHash = "Promptkit-Template-Hash" // the rendered template's Hash (renders only)
)

// ErrNoSet is returned by New when the Set names neither a directory nor
// a file system.
var ErrNoSet = errors.New("server: no template set")

// Set says which template set a Server serves: a directory, watched and
// reloaded, or a fixed file system.
type Set struct {
	dir  string
	fsys fs.FS
	opts []manager.Option
}

// Dir serves the set in directory dir, kept live with manager.WithWatch:
// every change reloads the whole set, and a reload that fails keeps the
// last good set serving. opts are passed to manager.Open (WithDebounce,
// WithPollInterval, limits…); WithWatch and the server's observer are added.
//
// If the set fails to load when the server starts, the server starts
// anyway: it answers 503 with every problem, the preview page shows them,
// and the directory is loaded again until it loads (see WithRetryInterval).
// A directory that does not exist is an error from New.
func Dir(dir string, opts ...manager.Option) Set { return Set{dir: dir, opts: opts} }

// FS serves the set at the root of fsys (the embedded promptkit.FS(), say),
// which never changes; a set that fails to load is an error from New.
func FS(fsys fs.FS, opts ...manager.Option) Set { return Set{fsys: fsys, opts: opts} }

// Server serves one template set over HTTP. It is an http.Handler; Serve
// runs it on a listener with timeouts and a graceful shutdown. Make one with
// New and Close it when done.
type Server struct {
	cfg      config
	set      Set
	root     *os.Root // the directory of a Dir set, for the files it serves
	files    fs.FS    // the set's files: root.FS() or the Set's fs.FS
	metrics  *metrics
	inflight *inflight
	events   *broadcaster
	renders  renders // the preview's fixtures at the last two generations
	handler  http.Handler

	m      atomic.Pointer[manager.Manager] // nil while no set serves
	svc    atomic.Pointer[serviceState]
	status atomic.Pointer[Status]

	mu          sync.Mutex    // serializes installing a set and status updates
	lastTry     time.Duration // how long the last failed Open took; under mu
	unsubscribe func()        // under mu
	stop        chan struct{}
	bg          sync.WaitGroup // the retry loop
	closeOnce   sync.Once
}

type serviceState struct {
	svc *service.Service
	err error
}

// Status is the state of the set a server serves, as GET /v1/status
// returns it, GET /v1/events streams it and GET /healthz summarizes it.
type Status struct {
	// Serving is true once a set is loaded; a server whose directory has
	// not loaded yet serves no set.
	Serving bool `json:"serving"`
	// OK is true when the last load attempt succeeded. It is false after a
	// reload that failed (the last good set keeps serving) and while no set
	// serves.
	OK bool `json:"ok"`
	// Generation, Digest and Templates describe the set serving.
	Generation uint64 `json:"generation"`
	Digest     string `json:"digest"`
	Templates  int    `json:"templates"`
	// Trigger says what made the last attempt: "start", "retry", or the
	// manager's reload triggers ("watch", "poll", "overflow", "reload").
	Trigger string    `json:"trigger"`
	Time    time.Time `json:"time"`
	// Problems lists every problem of the last attempt when it failed.
	Problems []Problem `json:"problems"`
}

// New makes a server for set. See Dir and FS for what happens when the set
// does not load.
func New(set Set, opts ...Option) (*Server, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	if cfg.writes && (!cfg.preview || set.dir == "") {
		return nil, errors.New("server: WithFixtureWrites needs WithPreview and a set in a directory (Dir)")
	}
	s := &Server{cfg: cfg, set: set, metrics: newMetrics(), inflight: newInflight(cfg.limits), events: newBroadcaster(), stop: make(chan struct{})}
	s.handler = s.routes()
	switch {
	case set.dir != "" && set.fsys != nil:
		return nil, fmt.Errorf("%w: a Set is a directory or a file system, not both", ErrNoSet)
	case set.fsys != nil:
		m, err := manager.New(set.fsys, s.managerOptions(false)...)
		if err != nil {
			return nil, err
		}
		s.files = set.fsys
		s.install(m, "start")
	case set.dir != "":
		root, err := os.OpenRoot(set.dir)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		// Read as the manager reads: no open of a FIFO or device blocks.
		s.root, s.files = root, manager.RootFS(root)
		if err := s.open("start"); err != nil {
			s.failed(err, "start")
			s.bg.Add(1)
			go s.retry()
		}
	default:
		return nil, ErrNoSet
	}
	return s, nil
}

func (s *Server) managerOptions(watch bool) []manager.Option {
	opts := slices.Clone(s.set.opts)
	if watch {
		opts = append(opts, manager.WithWatch())
	}
	return append(opts, manager.WithObserver(s.metrics), manager.WithLogger(s.cfg.log))
}

// open loads the directory and, when it loads, serves it.
func (s *Server) open(trigger string) error {
	start := time.Now()
	m, err := manager.Open(s.set.dir, s.managerOptions(true)...)
	if err != nil {
		s.mu.Lock()
		s.lastTry = time.Since(start)
		s.mu.Unlock()
		return err
	}
	s.install(m, trigger)
	return nil
}

// install makes m the set serving and follows its reloads. The status is
// read after subscribing, under mu, so a reload in between is neither lost
// nor overwritten by older news.
func (s *Server) install(m *manager.Manager, trigger string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m.Store(m)
	s.buildService(m)
	s.unsubscribe = m.Subscribe(s.reloaded)
	s.followRenders(m)
	err := m.LastError()
	s.setStatus(&Status{Serving: true, OK: err == nil, Generation: m.Generation(), Digest: m.Digest(),
		Templates: len(m.Templates()), Trigger: trigger, Time: time.Now(), Problems: problemsOf(err)})
	s.cfg.log.Info("serving template set", "generation", m.Generation(), "digest", m.Digest(), "templates", len(m.Templates()))
}

// reloaded follows one reload attempt of the manager.
func (s *Server) reloaded(ev manager.ReloadEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.m.Load(); ev.Err == nil && m != nil {
		s.buildService(m)
	}
	s.setStatus(&Status{Serving: true, OK: ev.Err == nil, Generation: ev.Generation, Digest: ev.Digest,
		Templates: ev.Templates, Trigger: ev.Trigger, Time: ev.Time, Problems: problemsOf(ev.Err)})
}

// failed records that the directory did not load; no set serves.
func (s *Server) failed(err error, trigger string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setStatus(&Status{Trigger: trigger, Time: time.Now(), Problems: problemsOf(err)})
	s.cfg.log.Warn("template set does not load; retrying", "error", err)
}

// retry loads the directory again until it loads or the server closes.
// Without a manager there is no watcher, so it polls: cheaply, since a
// set loads in milliseconds, and never more often than twenty times the
// last attempt took. Only a change of the problems is news for the page.
func (s *Server) retry() {
	defer s.bg.Done()
	last := problemsKey(s.status.Load().Problems)
	for {
		s.mu.Lock()
		wait := max(s.cfg.retry, 20*s.lastTry)
		s.mu.Unlock()
		select {
		case <-s.stop:
			return
		case <-time.After(wait):
		}
		err := s.open("retry")
		if err == nil {
			return
		}
		if k := problemsKey(problemsOf(err)); k != last {
			last = k
			s.failed(err, "retry")
		}
	}
}

func problemsKey(ps []Problem) string {
	var b []byte
	for _, p := range ps {
		b = append(b, p.Error...)
		b = append(b, '\n')
	}
	return string(b)
}

// buildService makes the builders' service for m; under mu.
func (s *Server) buildService(m *manager.Manager) {
	svc, err := s.cfg.service(m)
	s.svc.Store(&serviceState{svc: svc, err: err})
}

// setStatus publishes st and tells every event stream; under mu.
func (s *Server) setStatus(st *Status) {
	if st.Problems == nil {
		st.Problems = []Problem{}
	}
	s.status.Store(st)
	s.events.publish()
}

// Status returns the state of the set serving now.
func (s *Server) Status() Status { return *s.status.Load() }

// Close stops the server's background work, ends every event stream,
// and closes the manager (stopping its watcher). It does not close
// listeners: end Serve's context for that.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.stop)
		s.bg.Wait() // no set is installed after this
		s.events.closeAll()
		s.mu.Lock()
		if s.unsubscribe != nil {
			s.unsubscribe()
		}
		s.mu.Unlock()
		if m := s.m.Load(); m != nil {
			err = m.Close()
		}
		if s.root != nil {
			err = errors.Join(err, s.root.Close())
		}
	})
	return err
}

// ServeHTTP serves the API (and the preview page, with WithPreview).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
