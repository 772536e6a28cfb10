package contextstack

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// fakeRenderer renders "<name k=v ...>" with the variables in key order,
// records every call, and fails for the templates in fail.
type fakeRenderer struct {
	mu    sync.Mutex
	calls []string
	vars  []map[string]any
	fail  map[string]error
	blank map[string]bool // templates that render as whitespace
}

var errFake = errors.New("fake: render failed")

func (f *fakeRenderer) Render(name string, vars map[string]any) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
	f.vars = append(f.vars, vars)
	if err := f.fail[name]; err != nil {
		return "", err
	}
	if f.blank[name] {
		return " \n\t", nil
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("<" + name)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, vars[k])
	}
	b.WriteString(">")
	return b.String(), nil
}

func tool(name string) ToolSpec {
	return ToolSpec{
		Name:        name,
		Type:        "function",
		Description: "use " + name,
		InputSchema: Schema(`{"type":"object","properties":{"q":{"type":"string"}}}`),
	}
}

func toolNames(tools []ToolSpec) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

func blockTexts(blocks []Block) []string {
	texts := make([]string, len(blocks))
	for i, b := range blocks {
		texts[i] = b.Text
	}
	return texts
}

func user(source, text string) Layer {
	return Layer{Source: source, Content: UserInstructions{Text: text}}
}

func runtime(source, text string) Layer {
	return Layer{Source: source, Content: RuntimeInstructions{Text: text}}
}

func ctxPrompt(source, text string) Layer {
	return Layer{Source: source, Content: ContextPrompt{Text: text}}
}

func tools(source string, names ...string) Layer {
	specs := make([]ToolSpec, len(names))
	for i, n := range names {
		specs[i] = tool(n)
	}
	return Layer{Source: source, Content: ToolDefinitions{Tools: specs}}
}

func doc(id string) Layer {
	return Layer{Source: "citations", Content: Document{ID: id, Title: "title " + id, Text: "text " + id}}
}
