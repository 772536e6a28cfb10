// Command chatbench times applying six models' chat templates (the workload
// of manager/testdata/bench/chat: a ten-message conversation with three
// tools, tool calls and results) with promptkit's ChatTemplate.Apply and
// with the peers, in interleaved rounds, and prints a Markdown report.
//
// Every engine's output is checked byte for byte against Jinja2's
// (NAME.golden) before it is timed. Each round times every engine once on
// every template, in process CPU time (promptkit here, in this process;
// the peers in their own processes: chat_bench.py, chat_bench.js and
// minja's chat_bench.cpp, each reporting its own CPU time per
// application), and the report gives, per template, the median over the
// rounds of each engine's time divided by promptkit's from JSON in the
// same round, with the range of those ratios.
//
//	chatbench -root .. -rounds 8 -py /usr/bin/python3 -node node -minja results/minja_chat_bench
//
// A peer left out (an empty flag) or missing is said so in the report.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

type workload struct {
	name, label, golden string
	tmpl                *manager.ChatTemplate
	json, typed, values manager.ChatInput
}

// result is one engine's time on one template in one round, or why it
// has none.
type result struct {
	Engine   string  `json:"engine"`
	Template string  `json:"template"`
	NsPerOp  float64 `json:"ns_per_op"`
	Missing  string  `json:"missing"`
	Differs  string  `json:"differs"`
	Version  string  `json:"version"`
}

func main() {
	root := flag.String("root", "..", "the promptkit checkout")
	rounds := flag.Int("rounds", 8, "interleaved rounds")
	minTime := flag.Float64("min-time", 0.2, "CPU seconds per engine, template and round")
	py := flag.String("py", "/usr/bin/python3", "Python with Jinja2 (empty: leave Jinja2 out)")
	node := flag.String("node", "node", "Node with bench/node_modules (empty: leave @huggingface/jinja out)")
	minja := flag.String("minja", "", "minja's chat_bench binary (bench/minja.sh builds it; empty: leave minja out)")
	flag.Parse()
	ws, err := load(*root)
	if err != nil {
		fail(err)
	}
	peers := map[string][]string{}
	if *py != "" {
		peers["jinja2"] = []string{*py, filepath.Join(*root, "bench", "chat_bench.py")}
	}
	if *node != "" {
		peers["hfjinja"] = []string{*node, filepath.Join(*root, "bench", "chat_bench.js")}
	}
	if *minja != "" {
		peers["minja"] = []string{*minja, *root}
	}
	var all [][]result // per round
	missing := map[string]string{}
	versions := map[string]string{"promptkit": "promptkit at " + gitHead(*root) + ", " + runtime.Version()}
	for r := range *rounds {
		var round []result
		for _, w := range ws {
			for how, in := range map[string]manager.ChatInput{"json": w.json, "typed": w.typed, "values": w.values} {
				round = append(round, result{Engine: "promptkit-" + how, Template: w.name, NsPerOp: timeApply(w.tmpl, in, *minTime)})
			}
		}
		for _, name := range sortedKeys(peers) {
			cmd := append(slices.Clone(peers[name]), "--samples", "1", "--min-time", fmt.Sprint(*minTime))
			res, err := runPeer(cmd)
			if err != nil {
				missing[name] = err.Error()
				delete(peers, name)
				continue
			}
			for _, x := range res {
				if x.Missing != "" {
					missing[x.Engine+" "+x.Template] = x.Missing
					continue
				}
				versions[strings.TrimSuffix(x.Engine, "-json")] = x.Version
				round = append(round, x)
			}
		}
		all = append(all, round)
		fmt.Fprintf(os.Stderr, "   round %d/%d done\n", r+1, *rounds)
	}
	report(ws, all, missing, versions)
}

func load(root string) ([]workload, error) {
	dir := filepath.Join(root, "manager", "testdata", "bench", "chat")
	var spec struct {
		Templates []struct{ Name, Label, Case string }
	}
	var conv struct{ Messages, Tools json.RawMessage }
	for file, v := range map[string]any{"templates.json": &spec, "conversation.json": &conv} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
	}
	msgs, err := message.DecodeMessages(conv.Messages)
	if err != nil {
		return nil, err
	}
	tools, err := message.DecodeTools(conv.Tools)
	if err != nil {
		return nil, err
	}
	// As a server holds a request it has decoded once: the values are
	// read by every application and never changed.
	msgsValue, err := manager.DecodeChatValue(conv.Messages)
	if err != nil {
		return nil, err
	}
	toolsValue, err := manager.DecodeChatValue(conv.Tools)
	if err != nil {
		return nil, err
	}
	var out []workload
	for _, s := range spec.Templates {
		var c struct {
			Template string
			BOS      *string `json:"bos_token"`
			EOS      *string `json:"eos_token"`
		}
		data, err := os.ReadFile(filepath.Join(root, "testdata", "corpus", "chat", s.Case+".json"))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, err
		}
		golden, err := os.ReadFile(filepath.Join(dir, s.Name+".golden"))
		if err != nil {
			return nil, err
		}
		t, err := manager.ParseChatTemplate(s.Name, c.Template)
		if err != nil {
			return nil, err
		}
		w := workload{name: s.Name, label: s.Label, golden: string(golden), tmpl: t,
			json:   manager.ChatInput{MessagesJSON: conv.Messages, ToolsJSON: conv.Tools, AddGenerationPrompt: true, BOS: c.BOS, EOS: c.EOS},
			typed:  manager.ChatInput{Messages: msgs, Tools: tools, AddGenerationPrompt: true, BOS: c.BOS, EOS: c.EOS},
			values: manager.ChatInput{MessagesValue: msgsValue, ToolsValue: toolsValue, AddGenerationPrompt: true, BOS: c.BOS, EOS: c.EOS}}
		for _, in := range []manager.ChatInput{w.json, w.typed, w.values} {
			got, err := t.Apply(context.Background(), in)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", s.Name, err)
			}
			if got != w.golden {
				return nil, fmt.Errorf("%s: promptkit's output differs from Jinja2's (%s.golden)", s.Name, s.Name)
			}
		}
		out = append(out, w)
	}
	return out, nil
}

// cpu is the process's CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timeApply is the CPU time of one application, over about minTime
// seconds of them.
func timeApply(t *manager.ChatTemplate, in manager.ChatInput, minTime float64) float64 {
	ctx := context.Background()
	run := func(n int) time.Duration {
		start := cpu()
		for range n {
			if _, err := t.Apply(ctx, in); err != nil {
				fail(err)
			}
		}
		return cpu() - start
	}
	n := 1
	for run(n) < time.Duration(minTime*1e9/10) {
		n *= 2
	}
	n = max(1, int(float64(n)*minTime*1e9/float64(max(run(n), 1))))
	return float64(run(n)) / float64(n)
}

func runPeer(cmd []string) ([]result, error) {
	var stdout, stderr bytes.Buffer
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(cmd, " "), err, strings.TrimSpace(lastLine(stderr.String())))
	}
	var out []result
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %v", cmd[0], err)
		}
		out = append(out, r)
	}
	return out, nil
}

func report(ws []workload, all [][]result, missing map[string]string, versions map[string]string) {
	engines := []struct{ key, label string }{
		{"promptkit-json", "promptkit `Apply`, messages and tools as JSON"},
		{"promptkit-typed", "promptkit `Apply`, typed messages and tools"},
		{"promptkit-values", "promptkit `Apply`, messages and tools decoded once beforehand (`DecodeChatValue`)"},
		{"jinja2", "Jinja2 (transformers' environment), from Python values"},
		{"jinja2-json", "Jinja2, `json.loads` of the same JSON first"},
		{"minja", "minja (C++, llama.cpp's engine), from parsed JSON"},
		{"minja-json", "minja, parsing the same JSON first"},
		{"hfjinja", "@huggingface/jinja, from JavaScript values"},
		{"hfjinja-json", "@huggingface/jinja, `JSON.parse` of the same JSON first"},
	}
	fmt.Printf("## Chat templates: applying a ten-message conversation with three tools\n\n")
	fmt.Printf("Per application, process CPU time; each cell is the median over %d interleaved rounds of the engine's time divided by promptkit's from JSON in the same round (< 1: faster than promptkit from JSON), with the range of those ratios. The first row is promptkit's own median time.\n\n", len(all))
	fmt.Print("| engine |")
	for _, w := range ws {
		fmt.Printf(" %s |", w.label)
	}
	fmt.Print("\n|---|")
	for range ws {
		fmt.Print("---:|")
	}
	fmt.Println()
	fmt.Print("| promptkit from JSON, µs (median) |")
	for _, w := range ws {
		var xs []float64
		for _, round := range all {
			if r, ok := find(round, "promptkit-json", w.name); ok {
				xs = append(xs, r.NsPerOp/1000)
			}
		}
		fmt.Printf(" %.1f |", median(xs))
	}
	fmt.Println()
	differs := map[string]bool{}
	for _, e := range engines {
		fmt.Printf("| %s |", e.label)
		for _, w := range ws {
			var ratios []float64
			mark := ""
			for _, round := range all {
				base, ok1 := find(round, "promptkit-json", w.name)
				r, ok2 := find(round, e.key, w.name)
				if ok1 && ok2 {
					ratios = append(ratios, r.NsPerOp/base.NsPerOp)
					if r.Differs != "" {
						mark, differs[e.key+" "+w.name] = " ≠", true
						missing[e.key+" "+w.name] = r.Differs
					}
				}
			}
			if len(ratios) == 0 {
				fmt.Print(" – |")
				continue
			}
			sort.Float64s(ratios)
			fmt.Printf(" %.2f (%.2f–%.2f)%s |", median(ratios), ratios[0], ratios[len(ratios)-1], mark)
		}
		fmt.Println()
	}
	if len(missing) > 0 {
		fmt.Printf("\n– not timed, ≠ output not Jinja2's (timed, shown for scale only):\n\n")
		for _, k := range sortedKeys(missing) {
			fmt.Printf("- %s: %s\n", k, strings.ReplaceAll(missing[k], "\n", " "))
		}
	}
	fmt.Printf("\nVersions:\n\n")
	for _, k := range sortedKeys(versions) {
		fmt.Printf("- %s\n", versions[k])
	}
}

func find(round []result, engine, template string) (result, bool) {
	for _, r := range round {
		if r.Engine == engine && r.Template == template {
			return r, true
		}
	}
	return result{}, false
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func gitHead(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "an unknown commit"
	}
	return strings.TrimSpace(string(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "chatbench:", err)
	os.Exit(1)
}
