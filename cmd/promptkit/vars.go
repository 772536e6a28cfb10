package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/termsafe"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// varFlags collects repeated --var KEY=VALUE flags.
type varFlags []string

func (v *varFlags) String() string     { return strings.Join(*v, ",") }
func (v *varFlags) Set(s string) error { *v = append(*v, s); return nil }

// parseVars merges --vars (a JSON object from a file, or "-" for stdin)
// and --var KEY=VALUE pairs; --var wins. --var values are strings, or
// JSON with KEY:=JSON. JSON objects keep the order of their keys, as
// Python's json.loads keeps it.
func parseVars(varsFile string, pairs []string, stdin io.Reader) (map[string]any, error) {
	out := map[string]any{}
	if varsFile != "" {
		var data []byte
		var err error
		if varsFile == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(varsFile)
		}
		if err != nil {
			return nil, usagef("--vars: %v", err)
		}
		if !json.Valid(data) {
			_, err := manager.DecodeJSON(data)
			return nil, usagef("--vars %s: invalid JSON: %v", varsFile, err)
		}
		m, err := manager.DecodeVars(data)
		if err != nil {
			return nil, usagef("--vars %s: want a JSON object of variables", varsFile)
		}
		out = m
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usagef("--var %q: want KEY=VALUE (a string) or KEY:=JSON", p)
		}
		if name, isJSON := strings.CutSuffix(k, ":"); isJSON {
			if name == "" || !json.Valid([]byte(v)) {
				return nil, usagef("--var %q: want KEY:=JSON, such as items:='[1, 2]' or d:='{\"z\": 1, \"a\": 2}'", p)
			}
			out[name] = json.RawMessage(v)
			continue
		}
		out[k] = v
	}
	return out, nil
}

// printProblems prints every problem of err, one a line, on w.
func printProblems(w io.Writer, err error) {
	ps := manager.Problems(err)
	if len(ps) == 0 {
		fmt.Fprintln(w, termsafe.Text(err.Error()))
		return
	}
	for _, p := range ps {
		fmt.Fprintln(w, termsafe.Text(p.Error()))
	}
}
