// Command table turns the raw results of bench/run.sh into one Markdown
// report: per workload, every engine's median ns/op, B/op, allocs/op,
// renders per second and ratio to promptkit's Render; the performance targets
// with the measured figures; template sets of 10, 1,000 and 10,000;
// contextstack's assembly; and the cold start of the CLI.
//
//	table -go engines.txt -manager sets.txt -contextstack contextstack.txt -ext external.jsonl -coldstart coldstart.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/bench"
)

func main() {
	goFile := flag.String("go", "", "go test -bench output of BenchmarkEngines (any number of rounds)")
	managerFile := flag.String("manager", "", "go test -bench output of ./manager's BenchmarkLoad and BenchmarkRenderInSet")
	csFile := flag.String("contextstack", "", "go test -bench output of ./contextstack's BenchmarkAssembleRender, BenchmarkAssembleWithoutRender and BenchmarkStages")
	extFile := flag.String("ext", "", "JSON lines of the out-of-process engines (jinja2_bench.py, nunjucks_bench.js)")
	coldFile := flag.String("coldstart", "", "JSON of cmd/coldstart for promptkit render")
	defFile := flag.String("coldstart-default", "", "JSON of cmd/coldstart for promptkit render, default build")
	baseFile := flag.String("coldstart-baseline", "", "JSON of cmd/coldstart for cmd/hello")
	flag.Parse()

	r := report{w: bufio.NewWriter(os.Stdout)}
	defer r.w.Flush()
	engines := parseBench(*goFile)
	sets := parseBench(*managerFile)
	cs := parseBench(*csFile)
	ext := parseExt(*extFile)
	cold := parseCold(*coldFile)
	ws, err := bench.LoadWorkloads()
	if err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}

	r.machine(ext, engines)
	for _, w := range ws {
		r.workload(w, engines, ext)
	}
	r.targets(ws, engines, ext, cold)
	r.targets16(ws, engines, sets, cs)
	r.sets(sets)
	r.contextstack(cs)
	r.coldStart(cold, parseCold(*defFile), parseCold(*baseFile))
}

// samples are the values of one metric of one benchmark, one per round.
type samples map[string][]float64 // unit -> values

func (s samples) median(unit string) (float64, bool) {
	v := slices.Clone(s[unit])
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads go test -bench output: name, iterations, then value
// and unit pairs.
func parseBench(file string) map[string]samples {
	out := map[string]samples{}
	if file == "" {
		return out
	}
	f, err := os.Open(file)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := procSuffix.ReplaceAllString(fields[0], "")
		if out[name] == nil {
			out[name] = samples{}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			if v, err := strconv.ParseFloat(fields[i], 64); err == nil {
				out[name][fields[i+1]] = append(out[name][fields[i+1]], v)
			}
		}
	}
	return out
}

// extResult is one line of jinja2_bench.py or nunjucks_bench.js, or a
// line run.sh writes for an engine it could not run ("missing").
type extResult struct {
	Engine   string  `json:"engine"`
	Workload string  `json:"workload"`
	NsPerOp  float64 `json:"ns_per_op"`
	Version  string  `json:"version"`
	Missing  string  `json:"missing"`
}

func parseExt(file string) []extResult {
	var out []extResult
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		var r extResult
		if json.Unmarshal([]byte(line), &r) == nil && r.Engine != "" {
			out = append(out, r)
		}
	}
	return out
}

type coldResult struct {
	Runs     int     `json:"runs"`
	MedianNs float64 `json:"median_ns"`
	MinNs    float64 `json:"min_ns"`
	MaxNs    float64 `json:"max_ns"`
	Command  string  `json:"command"`
	Missing  string  `json:"missing"`
}

func parseCold(file string) *coldResult {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var c coldResult
	if json.Unmarshal(data, &c) != nil {
		return nil
	}
	return &c
}

var extNames = map[string]string{
	"jinja2":   "Jinja2 (Python, + UTF-8 encode)",
	"nunjucks": "nunjucks (Node, + UTF-8 encode)",
}

type report struct{ w *bufio.Writer }

func (r report) f(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

func (r report) machine(ext []extResult, engines map[string]samples) {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	nproc := strconv.Itoa(runtime.NumCPU())
	if out, err := exec.Command("nproc").Output(); err == nil {
		nproc = strings.TrimSpace(string(out))
	}
	rounds := 0
	for _, s := range engines {
		rounds = max(rounds, len(s["ns/op"]))
	}
	r.f("Machine: %s cores (`nproc`), %s, %s, %s/%s.", nproc, cpu, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	seen := map[string]bool{}
	for _, e := range ext {
		if e.Version != "" && !seen[e.Version] {
			seen[e.Version] = true
			r.f(" %s.", e.Version)
		}
	}
	r.f("\nGo engines: median of %d rounds of `go test -bench -benchmem` (each round runs every engine once, interleaved). "+
		"Python and Node: median of their own timed rounds, in their own process.\n\n", rounds)
}

// row is one engine's figures for one workload.
type row struct {
	name                 string
	ns, bytes, allocs    float64
	hasMem               bool
	missing              string
	promptkit            bool
	renderMessagesTarget bool
}

func goRow(engines map[string]samples, w bench.Workload, e bench.Engine) (row, bool) {
	s, ok := engines["BenchmarkEngines/"+w.Name+"/"+bench.BenchName(e)]
	if !ok {
		return row{}, false
	}
	ns, ok := s.median("ns/op")
	if !ok {
		return row{}, false
	}
	b, hb := s.median("B/op")
	a, ha := s.median("allocs/op")
	return row{name: e.Name, ns: ns, bytes: b, allocs: a, hasMem: hb && ha}, true
}

// nsSamples are the ns/op of the named engine on w, one per round.
func nsSamples(engines map[string]samples, w bench.Workload, name string) []float64 {
	for _, e := range bench.Engines {
		if e.Name == name {
			return engines["BenchmarkEngines/"+w.Name+"/"+bench.BenchName(e)]["ns/op"]
		}
	}
	return nil
}

func (r report) workload(w bench.Workload, engines map[string]samples, ext []extResult) {
	r.f("### %s — %s (output %s bytes)\n\n", w.Name, describe(w.Name), commas(float64(len(w.Golden))))
	r.f("| engine | ns/op | B/op | allocs/op | renders/s | × promptkit Render |\n|---|---:|---:|---:|---:|---:|\n")
	var rows []row
	for _, e := range bench.Engines {
		if x, ok := goRow(engines, w, e); ok {
			rows = append(rows, x)
		}
	}
	for _, e := range ext {
		if w.PromptkitOnly {
			break // Jinja2 and nunjucks render it only to check it (the golden files)
		}
		if e.Workload != w.Name && e.Missing == "" {
			continue
		}
		if e.Missing != "" {
			if e.Workload == "" || e.Workload == w.Name {
				rows = append(rows, row{name: extNames[e.Engine], missing: e.Missing})
			}
			continue
		}
		rows = append(rows, row{name: extNames[e.Engine], ns: e.NsPerOp})
	}
	base := 0.0
	if len(rows) > 0 && rows[0].name == "promptkit Render" {
		base = rows[0].ns
	}
	for _, x := range rows {
		if x.missing != "" {
			r.f("| %s | not run: %s | | | | |\n", x.name, x.missing)
			continue
		}
		mem := "| – | – "
		if x.hasMem {
			mem = fmt.Sprintf("| %s | %s ", commas(x.bytes), commas(x.allocs))
		}
		ratio := "–"
		if base > 0 {
			ratio = fmt.Sprintf("%.2f", x.ns/base)
		}
		r.f("| %s | %s %s| %s | %s |\n", x.name, commas(x.ns), mem, commas(1e9/x.ns), ratio)
	}
	r.f("\n")
	if w.Pongo2Hand {
		r.f("pongo2 (hand-written) runs `%s/%s.pongo2`, written for pongo2's Django dialect as a pongo2 user would write it "+
			"(`forloop.Counter`, `join:\", \"`, `default:\"…\"`; pongo2 has no `trim` or `replace`, so the bench registers them as plain filters).\n\n",
			w.Dir, w.Name)
	}
	if w.PromptkitOnly {
		r.f("Only promptkit renders this workload: `Render` of `%s.jinja` against `RenderMessages` of the same text in %d `{%% chat %%}` blocks (`%s_chat.jinja`).\n\n",
			w.Name, strings.Count(w.Chat, "{% chat "), w.Name)
	}
}

func describe(name string) string {
	switch name {
	case "prompt":
		return "a ~1.6 KB Chinese prompt, 3 scalar variables, a loop over 5 XML-escaped documents"
	case "tiny":
		return "a one-line template with 2 variables"
	case "large":
		return "an agent's ~52 KB work board: a loop over 200 tasks with if/elif/else on comparisons, and/or/not, " +
			"filters (trim, title, upper, join, length, default, replace), nested attributes, loop.index/first/last, " +
			"divisibleby and a nested loop over each task's steps"
	case "fewshot":
		return "a four-message few-shot chat prompt (system with a loop over 3 documents, user, assistant, user)"
	}
	return name
}

func (r report) targets(ws []bench.Workload, engines map[string]samples, ext []extResult, cold *coldResult) {
	get := func(w bench.Workload, name string) (row, bool) {
		for _, e := range bench.Engines {
			if e.Name == name {
				return goRow(engines, w, e)
			}
		}
		return row{}, false
	}
	extNs := func(engine, workload string) (float64, bool) {
		for _, e := range ext {
			if e.Engine == engine && e.Workload == workload && e.Missing == "" {
				return e.NsPerOp, true
			}
		}
		return 0, false
	}
	r.f("### Targets\n\nRatios between Go engines are medians of the per-round ratios; Jinja2's is a ratio of medians.\n\n")
	r.f("| target | measured | met |\n|---|---|---|\n")
	type check struct {
		label string
		limit float64
		ratio func(w bench.Workload) (float64, string, bool)
	}
	// ratioTo is the median over rounds of a's time over b's in the same
	// round: the two ran seconds apart, so load that comes and goes on a
	// shared machine cancels out better than in a ratio of medians.
	ratioTo := func(a, b string) func(w bench.Workload) (float64, string, bool) {
		return func(w bench.Workload) (float64, string, bool) {
			v, ok := perRoundRatio(engines, w, a, b)
			return v, fmt.Sprintf("%s %.2f×", w.Name, v), ok
		}
	}
	checks := []check{
		{"`Render` ≤ 0.85× raw pongo2 `Execute` (prompt)", 0.85, func(w bench.Workload) (float64, string, bool) {
			if w.Name != "prompt" {
				return 0, "", false
			}
			return ratioTo("promptkit Render", "pongo2 (raw)")(w)
		}},
		{"`Render` ≤ 1.0× raw pongo2 `Execute` (tiny)", 1.0, func(w bench.Workload) (float64, string, bool) {
			if w.Name != "tiny" {
				return 0, "", false
			}
			return ratioTo("promptkit Render", "pongo2 (raw)")(w)
		}},
		{"faster than gonja v2", 1, ratioTo("promptkit Render", "gonja v2")},
		{"faster than LangChainGo jinja2", 1, ratioTo("promptkit Render", "LangChainGo jinja2")},
		{"faster than Jinja2 (with encoding)", 1, func(w bench.Workload) (float64, string, bool) {
			x, ok1 := get(w, "promptkit Render")
			y, ok2 := extNs("jinja2", w.Name)
			if !ok1 || !ok2 {
				return 0, "", false
			}
			return x.ns / y, fmt.Sprintf("%s %.2f×", w.Name, x.ns/y), true
		}},
		{"allocations per render ≤ raw pongo2's", 1, func(w bench.Workload) (float64, string, bool) {
			x, ok1 := get(w, "promptkit Render")
			y, ok2 := get(w, "pongo2 (raw)")
			if !ok1 || !ok2 || !x.hasMem || !y.hasMem {
				return 0, "", false
			}
			return x.allocs / max(y.allocs, 1), fmt.Sprintf("%s %s vs %s", w.Name, commas(x.allocs), commas(y.allocs)), true
		}},
		{"`RenderMessages` ≤ 1.3× `Render`", 1.3, ratioTo("promptkit RenderMessages", "promptkit Render")},
	}
	for _, c := range checks {
		var parts []string
		met, any := true, false
		for _, w := range ws {
			v, text, ok := c.ratio(w)
			if !ok {
				continue
			}
			any = true
			parts = append(parts, text)
			if v > c.limit {
				met = false
			}
		}
		if !any {
			r.f("| %s | not measured | – |\n", c.label)
			continue
		}
		r.f("| %s | %s | %s |\n", c.label, strings.Join(parts, "; "), yesNo(met))
	}
	if cold != nil && cold.Missing == "" {
		r.f("| `promptkit render` cold start < 10 ms (median) | %.1f ms | %s |\n", cold.MedianNs/1e6, yesNo(cold.MedianNs < 10e6))
	} else {
		r.f("| `promptkit render` cold start < 10 ms (median) | not measured | – |\n")
	}
	r.f("\n")
}

// perRoundRatio is the median over rounds of engine a's ns/op over b's in
// the same round, for workload w.
func perRoundRatio(engines map[string]samples, w bench.Workload, a, b string) (float64, bool) {
	key := func(name string) string {
		for _, e := range bench.Engines {
			if e.Name == name {
				return "BenchmarkEngines/" + w.Name + "/" + bench.BenchName(e)
			}
		}
		return ""
	}
	return perRoundRatioOf(engines, key(a), key(b))
}

// perRoundRatioOf is the median over rounds of benchmark a's ns/op over
// b's in the same round.
func perRoundRatioOf(results map[string]samples, a, b string) (float64, bool) {
	xs, ys := results[a]["ns/op"], results[b]["ns/op"]
	if len(xs) == 0 || len(xs) != len(ys) {
		return 0, false
	}
	ratios := samples{"x": nil}
	for i := range xs {
		ratios["x"] = append(ratios["x"], xs[i]/ys[i])
	}
	return ratios.median("x")
}

// targets16 is the table of the render-path targets that this run measures.
func (r report) targets16(ws []bench.Workload, engines map[string]samples, sets, cs map[string]samples) {
	find := func(name string) (bench.Workload, bool) {
		for _, w := range ws {
			if w.Name == name {
				return w, true
			}
		}
		return bench.Workload{}, false
	}
	r.f("### Targets (control flow as fast as printing)\n\nRatios are medians of the per-round ratios of the two engines' ns/op.\n\n")
	r.f("| target | measured | met |\n|---|---|---|\n")
	ratios := []struct {
		label, workload, a, b string
		limit                 float64
	}{
		{"large template: `Render` ≤ 0.4× pongo2 on a hand-written equivalent", "large", "promptkit Render", "pongo2 (hand-written)", 0.4},
		{"large template: `Render` ≤ 4× hand-written `strings.Builder`", "large", "promptkit Render", "strings.Builder", 4},
		{"~1.5 KB prompt: `Render` ≤ 1.6× hand-written `strings.Builder`", "prompt", "promptkit Render", "strings.Builder", 1.6},
		{"`RenderMessages` of four messages ≤ 1.15× `Render` of the same text", "fewshot", "promptkit RenderMessages", "promptkit Render", 1.15},
		{"`RenderMessages` of one one-line message ≤ 1.5× `Render`", "tiny", "promptkit RenderMessages", "promptkit Render", 1.5},
	}
	for _, x := range ratios {
		w, ok := find(x.workload)
		v, ok2 := perRoundRatio(engines, w, x.a, x.b)
		if !ok || !ok2 {
			r.f("| %s | not measured | – |\n", x.label)
			continue
		}
		r.f("| %s | %.2f× | %s |\n", x.label, v, yesNo(v <= x.limit))
	}
	if s, ok := sets["BenchmarkLoad/templates=10000"]; ok {
		if mb, ok := s.median("heap-MB"); ok {
			kb := mb * (1 << 20) / 10000 / 1024
			r.f("| live heap per loaded template ≤ 4 KB (the set benchmark's ~400-byte templates) | %.1f KB | %s |\n", kb, yesNo(kb <= 4))
		}
	}
	if s, ok := cs["BenchmarkAssembleRender"]; ok {
		if ns, ok := s.median("ns/op"); ok {
			r.f("| contextstack `AssembleRender` (50 layers, 100 tools) ≤ 20 µs | %.1f µs | %s |\n", ns/1e3, yesNo(ns <= 20e3))
		}
	}
	r.f("\n")
}

// contextstack reports contextstack's assembly benchmarks.
func (r report) contextstack(cs map[string]samples) {
	if len(cs) == 0 {
		return
	}
	r.f("### contextstack (`go test -bench 'Assemble|Stages' ./contextstack`, medians of interleaved rounds)\n\n")
	r.f("`AssembleRender` builds a stack of 50 layers holding 100 tools (validating tool names) and derives a request from it " +
		"with the default template set: system prompt (8 template renders), tools, documents. `AssembleWithoutRender` does the same " +
		"with a renderer that runs no template: what assembly costs outside `manager.Render`. `Stages` splits it.\n\n")
	r.f("| benchmark | ns/op | B/op | allocs/op |\n|---|---:|---:|---:|\n")
	var names []string
	for name := range cs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s := cs[name]
		ns, ok := s.median("ns/op")
		if !ok {
			continue
		}
		b, _ := s.median("B/op")
		a, _ := s.median("allocs/op")
		r.f("| %s | %s | %s | %s |\n", strings.TrimPrefix(name, "Benchmark"), commas(ns), commas(b), commas(a))
	}
	r.f("\n")
	if v, ok := perRoundRatioOf(cs, "BenchmarkAssembleWithoutRender", "BenchmarkAssembleRender"); ok {
		r.f("Outside `manager.Render`: %.0f%% of `AssembleRender` (median of the per-round ratios).\n\n", 100*v)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func (r report) sets(sets map[string]samples) {
	if len(sets) == 0 {
		return
	}
	r.f("### Template sets (`go test -bench 'Load$|RenderInSet' ./manager`, medians of interleaved rounds)\n\n")
	r.f("| templates | load | load B | load allocs | live heap of the set | render ns/op | render allocs/op |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range []string{"10", "1000", "10000"} {
		load, ok1 := sets["BenchmarkLoad/templates="+n]
		render, ok2 := sets["BenchmarkRenderInSet/templates="+n]
		if !ok1 && !ok2 {
			continue
		}
		val := func(s samples, unit string, scale float64, format string) string {
			if v, ok := s.median(unit); ok {
				return fmt.Sprintf(format, v/scale)
			}
			return "–"
		}
		nf, _ := strconv.ParseFloat(n, 64)
		count := func(s samples, unit string) string {
			if v, ok := s.median(unit); ok {
				return commas(v)
			}
			return "–"
		}
		r.f("| %s | %s | %s | %s | %s | %s | %s |\n", commas(nf),
			val(load, "ns/op", 1e6, "%.1f ms"), val(load, "B/op", 1<<20, "%.1f MiB"), count(load, "allocs/op"),
			val(load, "heap-MB", 1, "%.1f MB"), count(render, "ns/op"), count(render, "allocs/op"))
	}
	r.f("\n")
}

func (r report) coldStart(c, def, base *coldResult) {
	if c == nil {
		return
	}
	if c.Missing != "" {
		r.f("Cold start: not measured (%s).\n", c.Missing)
		return
	}
	r.f("Cold start of the CLI as a fresh process, output checked against the golden file, on the same machine in the same run:\n\n")
	r.f("| command | median | min | max | runs |\n|---|---:|---:|---:|---:|\n")
	for _, x := range []*coldResult{c, def, base} {
		if x != nil && x.Missing == "" {
			r.f("| %s | %.1f ms | %.1f ms | %.1f ms | %d |\n", x.Command, x.MedianNs/1e6, x.MinNs/1e6, x.MaxNs/1e6, x.Runs)
		}
	}
	r.f("\n")
}

// commas formats a number with thousands separators, no decimals (one
// decimal under 10).
func commas(v float64) string {
	if v < 10 && v != float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
