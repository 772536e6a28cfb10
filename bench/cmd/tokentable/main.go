// Command tokentable prints tokens.sh's Markdown report: throughput of each
// engine counting each text (medians over rounds), the ratio of promptkit's
// to tiktoken's (the median of the per-round ratios, and their range), and
// the time to load an encoding. It fails when an engine's count of a text
// differs from promptkit's.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type key struct{ engine, enc, text string }

func main() {
	goFile := flag.String("go", "", "go test -bench output of BenchmarkTokens, all rounds")
	loadFile := flag.String("load", "", "go test -bench output of BenchmarkTokensFirstLoad, all rounds")
	nodeFile := flag.String("node", "", "tokens_bench.js output, all rounds")
	countsFile := flag.String("counts", "", "go test -run TokenCounts -v output")
	flag.Parse()
	if err := run(*goFile, *loadFile, *nodeFile, *countsFile); err != nil {
		fmt.Fprintln(os.Stderr, "tokentable:", err)
		os.Exit(1)
	}
}

var benchLine = regexp.MustCompile(`^BenchmarkTokens/([^/]+)/([^/]+)/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) MB/s`)
var loadLine = regexp.MustCompile(`^BenchmarkTokensFirstLoad/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)
var countLine = regexp.MustCompile(`count (\S+) (\S+) (\d+)`)

func lines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func run(goFile, loadFile, nodeFile, countsFile string) error {
	mbs := map[key][]float64{} // MB/s per round, in round order
	bytesOf := map[string]int{}
	counts := map[[2]string]int{}

	gl, err := lines(goFile)
	if err != nil {
		return err
	}
	for _, l := range gl {
		if m := benchLine.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseFloat(m[5], 64)
			k := key{m[1], m[2], m[3]}
			mbs[k] = append(mbs[k], v)
		}
	}
	loads := map[key][]float64{}
	ll, err := lines(loadFile)
	if err != nil {
		return err
	}
	for _, l := range ll {
		if m := loadLine.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			k := key{"promptkit", m[1], ""}
			loads[k] = append(loads[k], v/1e6)
		}
	}
	cl, err := lines(countsFile)
	if err != nil {
		return err
	}
	for _, l := range cl {
		if m := countLine.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[3])
			counts[[2]string{m[1], m[2]}] = n
		}
	}
	nl, err := lines(nodeFile)
	if err != nil {
		return err
	}
	var mismatches []string
	for _, l := range nl {
		var r struct {
			Engine, Encoding, Text string
			Bytes, Count           int
			NsPerOp                float64 `json:"ns_per_op"`
			LoadNs                 float64 `json:"load_ns"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			return fmt.Errorf("%s: %v", nodeFile, err)
		}
		k := key{r.Engine, r.Encoding, r.Text}
		mbs[k] = append(mbs[k], float64(r.Bytes)/r.NsPerOp*1e3)
		bytesOf[r.Text] = r.Bytes
		if want := counts[[2]string{r.Encoding, r.Text}]; want != r.Count {
			mismatches = append(mismatches, fmt.Sprintf("%s counts %s with %s as %d, promptkit as %d", r.Engine, r.Text, r.Encoding, r.Count, want))
		}
		lk := key{r.Engine, r.Encoding, ""}
		if r.Text == "english" {
			loads[lk] = append(loads[lk], r.LoadNs/1e6)
		}
	}
	if len(mismatches) > 0 {
		slices.Sort(mismatches)
		return fmt.Errorf("counts differ:\n%s", strings.Join(slices.Compact(mismatches), "\n"))
	}

	engines := []string{"promptkit", "tiktoken (WASM)", "js-tiktoken", "tiktoken-go"}
	rounds := len(mbs[key{"promptkit", "o200k_base", "english"}])
	fmt.Printf("### Counting tokens (`bench/tokens.sh`, %d interleaved rounds, medians)\n\n", rounds)
	fmt.Println("MB/s of text counted (higher is faster); the last columns are promptkit's throughput over tiktoken's, the median of the per-round ratios and their range.")
	fmt.Println()
	fmt.Printf("| encoding | text | bytes | tokens | %s | promptkit ÷ tiktoken | range |\n", strings.Join(engines, " | "))
	fmt.Printf("|---|---|---:|---:|%s---:|---|\n", strings.Repeat("---:|", len(engines)))
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		for _, text := range []string{"english", "chinese", "code"} {
			fmt.Printf("| %s | %s | %d | %d |", enc, text, bytesOf[text], counts[[2]string{enc, text}])
			for _, e := range engines {
				fmt.Printf(" %.2f |", median(mbs[key{e, enc, text}]))
			}
			pk, tt := mbs[key{"promptkit", enc, text}], mbs[key{"tiktoken (WASM)", enc, text}]
			var ratios []float64
			for i := 0; i < len(pk) && i < len(tt); i++ {
				ratios = append(ratios, pk[i]/tt[i])
			}
			lo, hi := slices.Min(ratios), slices.Max(ratios)
			fmt.Printf(" %.1f× | %.1f–%.1f× |\n", median(ratios), lo, hi)
		}
	}
	fmt.Println()
	fmt.Println("Loading an encoding (ms, median; promptkit: the first `tokens.Encoding` of a fresh process, which reads tiktoken-go's embedded vocabulary; tiktoken and js-tiktoken: `get_encoding` and `new Tiktoken(ranks)`, the second encoding of a process after the first):")
	fmt.Println()
	fmt.Printf("| encoding | promptkit | tiktoken (WASM) | js-tiktoken |\n|---|---:|---:|---:|\n")
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		fmt.Printf("| %s | %.0f | %.0f | %.0f |\n", enc, median(loads[key{"promptkit", enc, ""}]),
			median(loads[key{"tiktoken (WASM)", enc, ""}]), median(loads[key{"js-tiktoken", enc, ""}]))
	}
	return nil
}
