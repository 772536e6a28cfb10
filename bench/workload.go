// Package bench compares promptkit with the template engines a Go host
// would otherwise pick, on the workloads in ../manager/testdata/bench and
// testdata/ (see README.md). It is its own module, so the peers never
// enter promptkit's go.mod.
package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// WorkloadDir is the directory of the prompt and tiny workloads, relative
// to this module; promptkit's own benchmarks render them too.
const WorkloadDir = "../manager/testdata/bench"

// Workload is one template of the benchmark, in every engine's syntax.
type Workload struct {
	Name   string
	Dir    string         // where its files are, relative to this module
	Jinja  string         // NAME.jinja: promptkit, gonja, LangChainGo, Jinja2, nunjucks
	Chat   string         // NAME_chat.jinja: the same text in {% chat %} blocks (RenderMessages)
	Pongo2 string         // NAME.pongo2: the template in pongo2's syntax (Pongo2Hand: rewritten in its dialect)
	Tmpl   string         // NAME.tmpl: text/template
	Golden string         // NAME.golden: Jinja2's output
	Vars   map[string]any // vars.json[NAME]
	// Messages is what RenderMessages of Chat gives, as "role: text" lines:
	// NAME_messages.golden (Jinja2's render of each block, trimmed) where
	// there is one, else ExpectedMessages of Golden.
	Messages string
	// Pongo2Hand says NAME.pongo2 is rewritten by hand in pongo2's Django
	// dialect, as a pongo2 user would write it (its own filters and
	// arguments), rather than the Jinja template with pongo2's spellings.
	Pongo2Hand bool
	// PromptkitOnly workloads compare promptkit with itself (RenderMessages
	// against Render of the same text); the other engines skip them.
	PromptkitOnly bool
}

// workloadSpec says where a workload lives and what it is.
type workloadSpec struct {
	dir           string
	pongo2Hand    bool
	promptkitOnly bool
}

// Workloads are the names of the workloads, in table order.
var Workloads = []string{"prompt", "tiny", "large", "fewshot"}

var specs = map[string]workloadSpec{
	"prompt":  {dir: WorkloadDir},
	"tiny":    {dir: WorkloadDir},
	"large":   {dir: "testdata/large", pongo2Hand: true},
	"fewshot": {dir: "testdata/fewshot", promptkitOnly: true},
}

// LoadWorkloads reads every workload from its directory.
func LoadWorkloads() ([]Workload, error) {
	vars := map[string]map[string]any{} // dir -> vars.json
	var out []Workload
	for _, name := range Workloads {
		spec := specs[name]
		w := Workload{Name: name, Dir: spec.dir, Pongo2Hand: spec.pongo2Hand, PromptkitOnly: spec.promptkitOnly}
		read := func(file string, optional bool) (string, error) {
			data, err := os.ReadFile(filepath.Join(spec.dir, file))
			if optional && errors.Is(err, fs.ErrNotExist) {
				return "", nil
			}
			return string(data), err
		}
		all, ok := vars[spec.dir]
		if !ok {
			data, err := read("vars.json", false)
			if err != nil {
				return nil, err
			}
			decoded, err := manager.DecodeJSON([]byte(data))
			if err != nil {
				return nil, fmt.Errorf("%s/vars.json: %w", spec.dir, err)
			}
			if all, ok = decoded.(map[string]any); !ok {
				return nil, fmt.Errorf("%s/vars.json: not an object", spec.dir)
			}
			vars[spec.dir] = all
		}
		files := []struct {
			file     string
			dst      *string
			optional bool
		}{
			{name + ".jinja", &w.Jinja, false},
			{name + "_chat.jinja", &w.Chat, false},
			{name + ".golden", &w.Golden, false},
			{name + "_messages.golden", &w.Messages, true},
			{name + ".pongo2", &w.Pongo2, spec.promptkitOnly},
			{name + ".tmpl", &w.Tmpl, spec.promptkitOnly},
		}
		for _, f := range files {
			var err error
			if *f.dst, err = read(f.file, f.optional); err != nil {
				return nil, err
			}
		}
		if w.Messages == "" {
			w.Messages = ExpectedMessages(w)
		}
		if w.Vars, ok = all[name].(map[string]any); !ok {
			return nil, fmt.Errorf("%s/vars.json: no object %q", spec.dir, name)
		}
		out = append(out, w)
	}
	return out, nil
}
