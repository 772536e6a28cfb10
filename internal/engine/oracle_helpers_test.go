package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/jinjaoracle"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// The two sides of a differential test: promptkit, driven as a host
// drives it, and Python's Jinja2 (internal/jinjaoracle).

// oracleNow is the clock both sides give strftime_now.
var oracleNow = time.Date(2024, 7, 26, 9, 30, 0, 0, time.UTC)

// optionalNames are declared (optional, no default) in every set of
// renderStock and never passed: the names snippets use for undefined
// values, which Jinja2 sees as undefined too.
var optionalNames = []string{"a", "b", "missing_o", "missing_p", "undefined_x"}

// renderStock renders template as the only template of a lenient set
// ("undefined": "lenient": Jinja2's default Undefined) whose entry
// declares every name of vars (required) and optionalNames, through
// manager.New on an in-memory file system: load, checks and render, as a
// host calls them.
func renderStock(template string, vars map[string]any) (string, error) {
	return renderSet(template, vars, false)
}

// renderSet renders template in a set, strict or lenient.
func renderSet(template string, vars map[string]any, strict bool) (string, error) {
	names := make([]any, 0, len(vars)+len(optionalNames))
	for k := range vars {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	for _, o := range optionalNames {
		if _, ok := vars[o]; !ok {
			names = append(names, map[string]any{"name": o, "required": false})
		}
	}
	set := map[string]any{"version": 1, "templates": map[string]any{
		"t": map[string]any{"path": "t.md", "variables": names},
	}}
	if !strict {
		set["undefined"] = "lenient"
	}
	index, err := json.Marshal(set)
	if err != nil {
		return "", err
	}
	fsys := fstest.MapFS{"index.json": {Data: index}, "t.md": {Data: []byte(template)}}
	m, err := manager.New(fsys, manager.WithClock(func() time.Time { return oracleNow }))
	if err != nil {
		return "", err
	}
	return m.Render("t", vars)
}

// renderHF renders template as a model runtime renders a chat template:
// trim_blocks and lstrip_blocks on, tojson keeping keys in order, values
// decoded from JSON into order-keeping dicts.
func renderHF(template string, vars map[string]json.RawMessage) (string, error) {
	values := make(map[string]any, len(vars))
	for k, raw := range vars {
		v, err := engine.DecodeJSON(raw)
		if err != nil {
			return "", err
		}
		values[k] = v
	}
	return renderHFValues(template, values)
}

// renderHFValues renders template in Hugging Face's environment with the
// host's values (Go maps iterate sorted); the names of optionalNames are
// declared too, and undefined unless passed.
func renderHFValues(template string, values map[string]any) (string, error) {
	tree, err := jinja.Parse("t.md", template, jinja.Options{TrimBlocks: true, LStripBlocks: true})
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(values)+len(optionalNames))
	for k := range values {
		names = append(names, k)
	}
	for _, o := range optionalNames {
		if _, ok := values[o]; !ok {
			names = append(names, o)
		}
	}
	slices.Sort(names)
	// The checks must know Hugging Face's tojson (engine.Catalog describes
	// the stock one).
	catalog := engine.Catalog(engine.Options{})
	catalog.Filters["tojson"] = jinja.Spec{MaxArgs: 4, Kwargs: []string{"ensure_ascii", "indent", "separators", "sort_keys"}}
	prog, err := jinja.Check(tree, &jinja.Config{Catalog: catalog, Declared: names,
		Load: func(string) (*jinja.Tree, error) { return nil, fmt.Errorf("no includes here") }})
	if err != nil {
		return "", err
	}
	tmpl, err := engine.Compile(prog, engine.Options{HuggingFace: true})
	if err != nil {
		return "", err
	}
	lim := engine.Limits{Now: func() time.Time { return oracleNow }}.WithDefaults()
	return tmpl.Render(context.Background(), values, &lim)
}

// oracleHF renders with the oracle in Hugging Face's environment.
func oracleHF(t *testing.T, rec *jinjaoracle.Recorder, template string, vars map[string]json.RawMessage) jinjaoracle.Answer {
	m := make(map[string]any, len(vars))
	for k, v := range vars {
		m[k] = v
	}
	return rec.RenderEnv(t, jinjaoracle.Env{HuggingFace: true, KeepOrder: true, Now: oracleNow}, template, m)
}
