// Package bench compares promptkit with the template engines a Go host
// would otherwise pick, on the workload in ../manager/testdata/bench (see
// README.md). It is its own module, so the peers never enter promptkit's
// go.mod.
package bench

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// WorkloadDir is the workload, relative to this module.
const WorkloadDir = "../manager/testdata/bench"

// Workload is one template of the benchmark, in every engine's syntax.
type Workload struct {
	Name   string
	Jinja  string         // NAME.jinja: promptkit, gonja, LangChainGo, Jinja2, nunjucks
	Chat   string         // NAME_chat.jinja: the same text in {% chat %} blocks (RenderMessages)
	Pongo2 string         // NAME.pongo2: promptkit's translation, for raw pongo2
	Tmpl   string         // NAME.tmpl: text/template
	Golden string         // NAME.golden: Jinja2's output
	Vars   map[string]any // vars.json[NAME]
}

// Workloads are the names of the workloads, in table order.
var Workloads = []string{"prompt", "tiny"}

// LoadWorkloads reads every workload from dir.
func LoadWorkloads(dir string) ([]Workload, error) {
	read := func(name string) (string, error) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		return string(data), err
	}
	varsJSON, err := read("vars.json")
	if err != nil {
		return nil, err
	}
	all, err := manager.DecodeJSON([]byte(varsJSON))
	if err != nil {
		return nil, fmt.Errorf("vars.json: %w", err)
	}
	var out []Workload
	for _, name := range Workloads {
		w := Workload{Name: name}
		for file, dst := range map[string]*string{
			name + ".jinja": &w.Jinja, name + "_chat.jinja": &w.Chat, name + ".pongo2": &w.Pongo2,
			name + ".tmpl": &w.Tmpl, name + ".golden": &w.Golden,
		} {
			if *dst, err = read(file); err != nil {
				return nil, err
			}
		}
		vars, ok := all.(map[string]any)[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("vars.json: no object %q", name)
		}
		w.Vars = vars
		out = append(out, w)
	}
	return out, nil
}
