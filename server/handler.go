package server

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// routes is the table of endpoints. Go's ServeMux matches method and path;
// a wildcard is a whole path segment, so "{name}:render" is one segment
// ({call}) that the handler splits at its last colon (template and builder
// names hold letters, digits, '_', '.' and '-', never a colon).
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /metrics", s.serveMetrics)
	mux.HandleFunc("GET /v1/status", s.serveStatus)
	mux.HandleFunc("GET /v1/events", s.serveEvents)
	mux.HandleFunc("GET /v1/templates", s.listTemplates)
	mux.HandleFunc("GET /v1/templates/{name}", s.getTemplate)
	mux.HandleFunc("POST /v1/templates/{call}", s.templateCall)
	mux.HandleFunc("GET /v1/schemas/{path...}", s.serveSchema)
	mux.HandleFunc("GET /v1/builders", s.listBuilders)
	mux.HandleFunc("POST /v1/builders/{call}", s.builderCall)
	mux.HandleFunc("GET /v1/tokenizers", s.listTokenizers)
	if s.cfg.preview {
		mux.HandleFunc("GET /v1/files/{path...}", s.serveFile)
		mux.HandleFunc("GET /{$}", s.servePage)
		mux.HandleFunc("GET /preview/{file}", s.serveAsset)
		mux.HandleFunc("GET /v1/fixtures", s.listFixtures)
		mux.HandleFunc("POST /v1/fixtures", s.saveFixture)
		mux.HandleFunc("GET /v1/fixtures/diff", s.fixturesDiff)
	}
	var h http.Handler = jsonFallbacks(mux)
	if s.cfg.token != "" {
		h = s.authenticate(h)
	}
	return s.count(s.setHeaders(h))
}

// splitCall splits "name:action" at its last colon.
func splitCall(call string) (name, action string, ok bool) {
	i := strings.LastIndexByte(call, ':')
	if i <= 0 || i == len(call)-1 {
		return "", "", false
	}
	return call[:i], call[i+1:], true
}

// setHeaders names the set serving on every response; handlers that render
// overwrite them with the set that rendered.
func (s *Server) setHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if m := s.m.Load(); m != nil {
			gen, digest := consistent(m, func() {})
			setSet(h, gen, digest)
		} else {
			h.Set(HeaderGeneration, "0")
		}
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func setSet(h http.Header, gen uint64, digest string) {
	h.Set(HeaderGeneration, strconv.FormatUint(gen, 10))
	h.Set(HeaderDigest, digest)
}

// consistent runs f against one set and returns that set's generation and
// digest: when a reload swapped the set while f ran, f runs again (renders
// are pure and fast), so headers never name a set that did not answer. A
// reload lands at most once per debounce period, so three tries suffice.
func consistent(m *manager.Manager, f func()) (gen uint64, digest string) {
	for range 3 {
		gen, digest = m.Generation(), m.Digest()
		f()
		if m.Generation() == gen {
			return gen, digest
		}
	}
	return m.Generation(), m.Digest()
}

// authCookie carries the token for the preview page, which a browser loads
// without an Authorization header (EventSource cannot send one).
const authCookie = "promptkit_token"

// authenticate lets through GET /healthz and requests with the token.
// GET /?token=TOKEN trades the token for a cookie (HttpOnly, SameSite
// Strict) and redirects to /, so it leaves the address bar.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet && r.URL.Path == "/healthz") || s.authorized(r) {
			next.ServeHTTP(w, r)
			return
		}
		if t := r.URL.Query().Get("token"); s.cfg.preview && r.Method == http.MethodGet && r.URL.Path == "/" && s.isToken(t) {
			http.SetCookie(w, &http.Cookie{Name: authCookie, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="promptkit"`)
		writeProblem(w, requestProblem(kindUnauthorized,
			"this server needs its token: send \"Authorization: Bearer TOKEN\", or open /?token=TOKEN in a browser"), nil)
	})
}

// authorized reports whether r carries the token, in its Authorization
// header or the preview's cookie.
func (s *Server) authorized(r *http.Request) bool {
	if t, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found && s.isToken(t) {
		return true
	}
	c, err := r.Cookie(authCookie)
	return err == nil && s.isToken(c.Value)
}

// isToken compares in constant time, so timing tells nothing of the token.
func (s *Server) isToken(got string) bool {
	return s.cfg.token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.token)) == 1
}

// jsonFallbacks answers the mux's own 404 and 405 as JSON problems, like
// every other error; redirects (a cleaned path) pass through.
func jsonFallbacks(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		rec := &recorder{header: http.Header{}}
		h.ServeHTTP(rec, r)
		switch rec.code {
		case http.StatusNotFound:
			writeProblem(w, requestProblem(kindNotFound, "no endpoint "+r.Method+" "+r.URL.Path), nil)
		case http.StatusMethodNotAllowed:
			w.Header().Set("Allow", rec.header.Get("Allow"))
			writeProblem(w, requestProblem(kindMethod, r.Method+" is not allowed on "+r.URL.Path+" (allowed: "+rec.header.Get("Allow")+")"), nil)
		default:
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.code)
			_, _ = w.Write(rec.body)
		}
	})
}

// recorder keeps what the mux's fallback handlers write.
type recorder struct {
	header http.Header
	code   int
	body   []byte
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	r.body = append(r.body, b...)
	return len(b), nil
}

// count counts every response by route pattern and status code for
// /metrics. The pattern comes from the mux (a bounded set), never from the
// path a client sent.
func (s *Server) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		s.metrics.request(r.Pattern, sw.status())
	})
}

// statusWriter remembers the status code. Unwrap keeps
// http.ResponseController (flushes and deadlines of the event stream) working.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
