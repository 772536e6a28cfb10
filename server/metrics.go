package server

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// /metrics is written by hand in the Prometheus text exposition format
// (version 0.0.4): a handful of counters, gauges and one histogram fed by
// the manager's Observer. The format is small and stable, and it spares
// every importer of promptkit the client library's dependencies (see the
// README, # Dependencies).
//
// Label values are bounded: templates of the set (a name the set does not
// know counts under template=""), route patterns of the mux (never the
// path a client sent), status codes and error kinds.

// renderBuckets are the upper bounds, in seconds, of the render duration
// histogram: renders take microseconds, a pathological one milliseconds.
var renderBuckets = [...]float64{
	0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
}

type metrics struct {
	renders  sync.Map // template name → *renderStats
	errors   sync.Map // errorKey → *atomic.Uint64
	requests sync.Map // requestKey → *atomic.Uint64

	reloadsOK, reloadsFailed atomic.Uint64
	streams                  atomic.Int64 // open event streams
}

type renderStats struct {
	buckets [len(renderBuckets) + 1]atomic.Uint64 // one per bound of renderBuckets, then +Inf; not cumulative
	sumNano atomic.Uint64
}

type errorKey struct{ template, kind string }

type requestKey struct {
	route string
	code  int
}

func newMetrics() *metrics { return &metrics{} }

// ObserveRender counts one render: it is on the render path, so it only
// looks up a map entry and adds atomically.
func (m *metrics) ObserveRender(ev manager.RenderEvent) {
	name := ev.Template
	if ev.Hash == "" { // not a template of the set: bound the labels
		name = ""
	}
	st, ok := m.renders.Load(name)
	if !ok {
		st, _ = m.renders.LoadOrStore(name, &renderStats{})
	}
	rs := st.(*renderStats)
	secs := ev.Duration.Seconds()
	i, _ := slices.BinarySearch(renderBuckets[:], secs)
	rs.buckets[i].Add(1)
	rs.sumNano.Add(uint64(max(ev.Duration, 0)))
	if ev.Err != nil {
		counter(&m.errors, errorKey{name, ev.Kind}).Add(1)
	}
}

// ObserveReload counts one reload attempt.
func (m *metrics) ObserveReload(ev manager.ReloadEvent) {
	if ev.Err == nil {
		m.reloadsOK.Add(1)
	} else {
		m.reloadsFailed.Add(1)
	}
}

func (m *metrics) request(route string, code int) {
	if route == "" {
		route = "unmatched"
	}
	counter(&m.requests, requestKey{route, code}).Add(1)
}

func counter[K comparable](m *sync.Map, k K) *atomic.Uint64 {
	c, ok := m.Load(k)
	if !ok {
		c, _ = m.LoadOrStore(k, new(atomic.Uint64))
	}
	return c.(*atomic.Uint64)
}

func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	bw := bufio.NewWriter(w)
	s.metrics.write(bw, s.status.Load(), s.inflight)
	_ = bw.Flush()
}

// write prints every family, series sorted by labels so scrapes diff well.
func (m *metrics) write(w *bufio.Writer, st *Status, f *inflight) {
	family := func(name, typ, help string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	sample := func(name, labels string, v float64) {
		if labels != "" {
			labels = "{" + labels + "}"
		}
		fmt.Fprintf(w, "%s%s %s\n", name, labels, formatFloat(v))
	}

	type rs struct {
		name string
		st   *renderStats
	}
	var renders []rs
	m.renders.Range(func(k, v any) bool {
		renders = append(renders, rs{k.(string), v.(*renderStats)})
		return true
	})
	slices.SortFunc(renders, func(a, b rs) int { return cmp.Compare(a.name, b.name) })

	family("promptkit_renders_total", "counter", "Renders (Render and RenderMessages, builders' included), by template; template=\"\" counts names the set does not have.")
	for _, r := range renders {
		var n uint64
		for i := range r.st.buckets {
			n += r.st.buckets[i].Load()
		}
		sample("promptkit_renders_total", label("template", r.name), float64(n))
	}

	type ek struct {
		k errorKey
		n uint64
	}
	var errs []ek
	m.errors.Range(func(k, v any) bool {
		errs = append(errs, ek{k.(errorKey), v.(*atomic.Uint64).Load()})
		return true
	})
	slices.SortFunc(errs, func(a, b ek) int {
		return cmp.Or(cmp.Compare(a.k.template, b.k.template), cmp.Compare(a.k.kind, b.k.kind))
	})
	family("promptkit_render_errors_total", "counter", "Renders that failed, by template and error kind (manager.ErrorKind).")
	for _, e := range errs {
		sample("promptkit_render_errors_total", label("template", e.k.template)+","+label("kind", e.k.kind), float64(e.n))
	}

	family("promptkit_render_duration_seconds", "histogram", "How long renders took, by template.")
	for _, r := range renders {
		var cum uint64
		tl := label("template", r.name)
		for i := range r.st.buckets {
			cum += r.st.buckets[i].Load()
			le := "+Inf"
			if i < len(renderBuckets) {
				le = formatFloat(renderBuckets[i])
			}
			sample("promptkit_render_duration_seconds_bucket", tl+","+label("le", le), float64(cum))
		}
		sample("promptkit_render_duration_seconds_sum", tl, float64(r.st.sumNano.Load())/1e9)
		sample("promptkit_render_duration_seconds_count", tl, float64(cum))
	}

	family("promptkit_reloads_total", "counter", "Reload attempts of the set, by result.")
	sample("promptkit_reloads_total", label("result", "success"), float64(m.reloadsOK.Load()))
	sample("promptkit_reloads_total", label("result", "failure"), float64(m.reloadsFailed.Load()))
	family("promptkit_last_reload_successful", "gauge", "1 when the last load attempt succeeded (a failed one keeps the last good set serving).")
	sample("promptkit_last_reload_successful", "", b2f(st.OK))
	family("promptkit_last_reload_timestamp_seconds", "gauge", "When the last load attempt ended, in Unix seconds.")
	sample("promptkit_last_reload_timestamp_seconds", "", float64(st.Time.UnixNano())/1e9)
	family("promptkit_set_serving", "gauge", "1 while a template set serves; 0 while the set has not loaded yet.")
	sample("promptkit_set_serving", "", b2f(st.Serving))
	family("promptkit_set_generation", "gauge", "The generation of the set serving (successful loads).")
	sample("promptkit_set_generation", "", float64(st.Generation))
	family("promptkit_set_templates", "gauge", "The templates of the set serving.")
	sample("promptkit_set_templates", "", float64(st.Templates))
	family("promptkit_set_info", "gauge", "The digest of the set serving, as a label.")
	if st.Serving {
		sample("promptkit_set_info", label("digest", st.Digest), 1)
	}

	type rk struct {
		k requestKey
		n uint64
	}
	var reqs []rk
	m.requests.Range(func(k, v any) bool {
		reqs = append(reqs, rk{k.(requestKey), v.(*atomic.Uint64).Load()})
		return true
	})
	slices.SortFunc(reqs, func(a, b rk) int {
		return cmp.Or(cmp.Compare(a.k.route, b.k.route), cmp.Compare(a.k.code, b.k.code))
	})
	family("promptkit_http_requests_total", "counter", "HTTP responses, by route pattern and status code.")
	for _, r := range reqs {
		sample("promptkit_http_requests_total", label("route", r.k.route)+","+label("code", strconv.Itoa(r.k.code)), float64(r.n))
	}
	family("promptkit_event_streams", "gauge", "Open event streams (GET /v1/events).")
	sample("promptkit_event_streams", "", float64(m.streams.Load()))
	family("promptkit_http_connections", "gauge", "Connections open (Serve; at most Limits.Connections).")
	sample("promptkit_http_connections", "", float64(f.conns.Load()))
	family("promptkit_http_renders_in_flight", "gauge", "Renders and builds running (at most Limits.Renders).")
	sample("promptkit_http_renders_in_flight", "", float64(len(f.renders)))
	family("promptkit_http_response_bytes_in_flight", "gauge", "Bytes of the responses being written (at most Limits.ResponseMemory).")
	sample("promptkit_http_response_bytes_in_flight", "", float64(f.bytes.Load()))
	family("promptkit_http_overloaded_total", "counter", "Requests answered 503 overloaded, by the limit they met.")
	sample("promptkit_http_overloaded_total", label("limit", "renders"), float64(f.shed[0].Load()))
	sample("promptkit_http_overloaded_total", label("limit", "response_memory"), float64(f.shed[1].Load()))
}

// label formats name="value", escaping as the text format wants.
func label(name, value string) string {
	return name + `="` + labelEscaper.Replace(value) + `"`
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
