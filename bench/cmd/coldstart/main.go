// Command coldstart times a command as a fresh process: it runs it -n
// times, checks the first run's stdout against -want, and prints one JSON
// object with the median, minimum and maximum wall time from start to exit.
// With -setup DIR it writes the template set it is run on: the prompt
// workload as DIR/index.json, DIR/prompt.jinja and DIR/vars.json.
//
//	coldstart -setup set
//	coldstart -n 30 -want prompt.golden -- ./promptkit render prompt --dir set --vars set/vars.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/seed-e7d2830f/promptkit/bench"
)

func main() {
	n := flag.Int("n", 30, "runs")
	want := flag.String("want", "", "file whose bytes the command's stdout must equal")
	label := flag.String("label", "", "how the report names the command (default: the command line)")
	setupDir := flag.String("setup", "", "write the prompt workload as a template set into this directory, and exit")
	flag.Parse()
	if *setupDir != "" {
		if err := setup(*setupDir); err != nil {
			fail(err)
		}
		return
	}
	if flag.NArg() == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: coldstart [-n runs] [-want file] -- command [args...]")
		os.Exit(2)
	}
	var expected []byte
	if *want != "" {
		var err error
		if expected, err = os.ReadFile(*want); err != nil {
			fail(err)
		}
	}
	times := make([]time.Duration, 0, *n)
	for i := range *n {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		times = append(times, time.Since(start))
		if err != nil {
			fail(fmt.Errorf("%v: %v\n%s", flag.Args(), err, stderr.Bytes()))
		}
		if i == 0 && expected != nil && !bytes.Equal(stdout.Bytes(), expected) {
			fail(fmt.Errorf("%v: output differs from %s", flag.Args(), *want))
		}
	}
	slices.Sort(times)
	median := times[len(times)/2]
	if len(times)%2 == 0 {
		median = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	if *label == "" {
		*label = strings.Join(flag.Args(), " ")
	}
	out, _ := json.Marshal(map[string]any{
		"command": *label, "runs": len(times), "median_ns": median.Nanoseconds(),
		"min_ns": times[0].Nanoseconds(), "max_ns": times[len(times)-1].Nanoseconds(),
	})
	fmt.Println(string(out))
}

// setup writes the prompt workload as a template set on disk.
func setup(dir string) error {
	ws, err := bench.LoadWorkloads()
	if err != nil {
		return err
	}
	w := ws[0]
	var names []string
	for k := range w.Vars {
		names = append(names, k)
	}
	slices.Sort(names)
	index, err := json.Marshal(map[string]any{"version": 1, "templates": map[string]any{
		w.Name: map[string]any{"path": w.Name + ".jinja", "variables": names},
	}})
	if err != nil {
		return err
	}
	vars, err := json.Marshal(w.Vars)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"index.json": index, w.Name + ".jinja": []byte(w.Jinja), "vars.json": vars} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "coldstart:", err)
	os.Exit(1)
}
