// Command serveload puts promptkit serve's render endpoint under load on
// loopback while the set is hot-reloaded, and reports requests per second
// and latency percentiles.
//
// Each run serves the benchmark's prompt workload (../manager/testdata/bench:
// a ~1.6 KB Chinese prompt with a loop over 5 documents, 5,968 bytes out)
// from a fresh directory with server.Dir, as "promptkit serve --dir" does,
// on 127.0.0.1 through server.Serve (timeouts and all). -c connections
// post the workload's variables to /v1/templates/prompt:render for -d.
// A baseline phase runs without reloads; the reload phase rewrites the
// template -reloads times, evenly spread, and waits for each to go live.
// The phases alternate which runs first; the summary gives medians.
//
// Every answer is checked: status 200, a body that is exactly one version
// of the template (rendered beforehand, in a scratch directory, by the
// manager), and one generation header per version — a response never names
// a set that did not render it. Any failure is counted and reported, and
// makes the command exit 1.
//
//	go run ./cmd/serveload                       # 5 runs of 8 connections × 10 s, 20 reloads
//	go run ./cmd/serveload -runs 1 -d 2s -reloads 4
//
// Client and server share the machine (2 cores here): the numbers are
// those of the whole loopback system, not of the server alone. CPU/req is
// the process's user and system CPU time per request, client and server
// together: on a machine shared with other work it moves far less than
// requests per second do.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/seed-e7d2830f/promptkit/bench"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/server"
)

func main() {
	conns := flag.Int("c", 8, "connections")
	dur := flag.Duration("d", 10*time.Second, "duration of each phase")
	reloads := flag.Int("reloads", 20, "reloads during the reload phase")
	runs := flag.Int("runs", 5, "runs (the summary gives medians)")
	baseline := flag.Bool("baseline", true, "also run a phase without reloads, for the ratio")
	flag.Parse()
	if *conns < 1 || *dur <= 0 || *reloads < 0 || *runs < 1 || (*reloads == 0 && !*baseline) {
		fmt.Fprintln(os.Stderr, "serveload: -c, -d and -runs must be positive, -reloads not negative")
		os.Exit(2)
	}
	ws, err := bench.LoadWorkloads()
	check(err)
	w := ws[0]
	body, err := json.Marshal(w.Vars)
	check(err)

	var base, hot []result
	failed := false
	for run := 1; run <= *runs; run++ {
		// The two phases alternate which goes first, so neither always
		// inherits the other's garbage or a warmer cache.
		order := []int{0, *reloads}
		if run%2 == 0 {
			order = []int{*reloads, 0}
		}
		if *reloads == 0 {
			order = []int{0}
		}
		for _, n := range order {
			if n == 0 && !*baseline {
				continue
			}
			r, err := phase(w, body, *conns, *dur, n)
			check(err)
			if n == 0 {
				fmt.Printf("run %d  no reloads:  %s\n", run, r)
				base = append(base, r)
			} else {
				fmt.Printf("run %d  %2d reloads:  %s\n", run, n, r)
				hot = append(hot, r)
			}
			failed = failed || r.failures > 0
		}
	}
	fmt.Printf("\nmedians of %d runs, %d connections × %v, %s (%d bytes out):\n", *runs, *conns, *dur, w.Name, len(w.Golden))
	if len(base) > 0 {
		fmt.Printf("  no reloads:  %s\n", median(base))
	}
	if len(hot) > 0 {
		fmt.Printf("  %2d reloads:  %s\n", *reloads, median(hot))
	}
	if len(base) > 0 && len(hot) > 0 {
		mb, mh := median(base), median(hot)
		fmt.Printf("  reloads/no reloads: throughput ×%.2f, p99 ×%.2f\n", mh.rps/mb.rps, float64(mh.p99)/float64(mb.p99))
	}
	if failed {
		fmt.Println("FAILED: some answers were wrong; see the runs above")
		os.Exit(1)
	}
}

type result struct {
	requests, failures int
	reloads            int
	rps                float64
	cpuPerReq          time.Duration // user+system CPU of the process (client and server) per request
	p50, p99, max      time.Duration
	firstFailure       string
}

func (r result) String() string {
	s := fmt.Sprintf("%6.0f req/s  p50 %7v  p99 %7v  max %7v  CPU %5v/req  %6d requests  %d failures  %d reloads live",
		r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.max.Round(time.Microsecond),
		r.cpuPerReq.Round(time.Microsecond), r.requests, r.failures, r.reloads)
	if r.firstFailure != "" {
		s += "  first failure: " + r.firstFailure
	}
	return s
}

func median(rs []result) result {
	pick := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return result{
		requests:  int(pick(func(r result) float64 { return float64(r.requests) })),
		failures:  int(pick(func(r result) float64 { return float64(r.failures) })),
		reloads:   int(pick(func(r result) float64 { return float64(r.reloads) })),
		rps:       pick(func(r result) float64 { return r.rps }),
		p50:       time.Duration(pick(func(r result) float64 { return float64(r.p50) })),
		p99:       time.Duration(pick(func(r result) float64 { return float64(r.p99) })),
		max:       time.Duration(pick(func(r result) float64 { return float64(r.max) })),
		cpuPerReq: time.Duration(pick(func(r result) float64 { return float64(r.cpuPerReq) })),
	}
}

// version i of the template: the workload's, with a marker line that
// changes the output; version 0 is the workload itself.
func version(jinja string, i int) string {
	if i == 0 {
		return jinja
	}
	return fmt.Sprintf("%s\n(version %d)", strings.TrimSuffix(jinja, "\n"), i)
}

func writeSet(dir string, w bench.Workload, jinja string) error {
	var names []string
	for k := range w.Vars {
		names = append(names, k)
	}
	slices.Sort(names)
	index, err := json.Marshal(map[string]any{"version": 1, "templates": map[string]any{
		w.Name: map[string]any{"path": w.Name + ".jinja", "variables": names}}})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), index, 0o644); err != nil {
		return err
	}
	// Write and rename, as editors and ConfigMaps do: the watcher never
	// sees half a file.
	tmp := filepath.Join(dir, ".tmp-"+w.Name)
	if err := os.WriteFile(tmp, []byte(jinja), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, w.Name+".jinja"))
}

// expected renders every version in a scratch directory, with the manager.
func expected(w bench.Workload, n int) (map[string]int, error) {
	want := map[string]int{}
	dir, err := os.MkdirTemp("", "serveload-want-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for i := 0; i <= n; i++ {
		if err := writeSet(dir, w, version(w.Jinja, i)); err != nil {
			return nil, err
		}
		m, err := manager.Open(dir)
		if err != nil {
			return nil, err
		}
		out, err := m.Render(w.Name, w.Vars)
		m.Close()
		if err != nil {
			return nil, err
		}
		if i == 0 && out != w.Golden {
			return nil, errors.New("the workload does not render its golden output")
		}
		want[out] = i
	}
	return want, nil
}

// phase serves a fresh set and loads it for d, with reloads spread evenly.
func phase(w bench.Workload, body []byte, conns int, d time.Duration, reloads int) (result, error) {
	want, err := expected(w, reloads)
	if err != nil {
		return result{}, err
	}
	dir, err := os.MkdirTemp("", "serveload-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	if err := writeSet(dir, w, w.Jinja); err != nil {
		return result{}, err
	}
	s, err := server.New(server.Dir(dir, manager.WithDebounce(50*time.Millisecond)))
	if err != nil {
		return result{}, err
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return result{}, err
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String() + "/v1/templates/" + w.Name + ":render"
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns}}

	var (
		mu       sync.Mutex
		lat      []time.Duration
		failures int
		first    string
		genOf    = map[int]string{} // version → the one generation header it came with
	)
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		failures++
		if first == "" {
			first = msg
		}
	}
	cpu0 := cpuTime()
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, 1<<16)
			seen := map[int]string{}
			for time.Now().Before(deadline) {
				start := time.Now()
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					fail(err.Error())
					continue
				}
				out, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				mine = append(mine, time.Since(start))
				v, known := want[string(out)]
				gen := resp.Header.Get(server.HeaderGeneration)
				switch {
				case err != nil:
					fail(err.Error())
				case resp.StatusCode != http.StatusOK:
					fail(fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, out))
				case !known:
					fail(fmt.Sprintf("a body that is no version of the template: %.80q", out))
				case seen[v] != "" && seen[v] != gen:
					fail(fmt.Sprintf("version %d came with generations %s and %s", v, seen[v], gen))
				default:
					seen[v] = gen
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			for v, g := range seen {
				if genOf[v] != "" && genOf[v] != g {
					failures++
					first = fmt.Sprintf("version %d came with generations %s and %s", v, genOf[v], g)
				}
				genOf[v] = g
			}
			mu.Unlock()
		}()
	}

	live := 0
	if reloads > 0 {
		every := d / time.Duration(reloads+1)
		for i := 1; i <= reloads; i++ {
			time.Sleep(time.Until(deadline.Add(-d + time.Duration(i)*every)))
			if err := writeSet(dir, w, version(w.Jinja, i)); err != nil {
				return result{}, err
			}
			gen := s.Status().Generation
			for s.Status().Generation == gen && time.Now().Before(deadline.Add(5*time.Second)) {
				time.Sleep(time.Millisecond)
			}
			if s.Status().Generation != gen && s.Status().OK {
				live++
			}
		}
	}
	wg.Wait()
	elapsed := d + time.Since(deadline)
	cpu := cpuTime() - cpu0
	stop()
	if err := <-served; err != nil {
		return result{}, err
	}
	if live != reloads {
		failures++
		if first == "" {
			first = fmt.Sprintf("only %d of %d reloads went live", live, reloads)
		}
	}
	slices.Sort(lat)
	r := result{requests: len(lat), failures: failures, reloads: live, firstFailure: first,
		rps: float64(len(lat)) / elapsed.Seconds()}
	if len(lat) > 0 {
		r.cpuPerReq = cpu / time.Duration(len(lat))
		r.p50 = lat[len(lat)/2]
		r.p99 = lat[min(len(lat)-1, len(lat)*99/100)]
		r.max = lat[len(lat)-1]
	}
	return r, nil
}

// cpuTime is the CPU time the process has used, user and system: unlike
// wall time, other processes on a shared machine hardly change it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}
