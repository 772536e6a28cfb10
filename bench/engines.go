package bench

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
	"text/template"
	"unicode"

	"github.com/flosch/pongo2/v6"
	"github.com/nikolalohinski/gonja/v2"
	gonjaconfig "github.com/nikolalohinski/gonja/v2/config"
	gonjaexec "github.com/nikolalohinski/gonja/v2/exec"
	gonjaloaders "github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/tmc/langchaingo/prompts"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Engine is one way to render a workload.
type Engine struct {
	Name string
	Note string // what is timed, for the README's table
	// Prepare does the once-per-process work (loading, compiling).
	Prepare func(w Workload) (Renderer, error)
	// Applies says whether the engine renders w; nil means every workload.
	Applies func(w Workload) bool
}

// Applies reports whether e renders w.
func Applies(e Engine, w Workload) bool { return e.Applies == nil || e.Applies(w) }

// Renderer renders one workload with one engine.
type Renderer struct {
	Render func() error           // one render, as a host would call it: what is timed
	Output func() (string, error) // one render's output as text, for the check
}

// textRenderer is the Renderer of an engine whose render returns text.
func textRenderer(f func() (string, error)) (Renderer, error) {
	return Renderer{Render: func() error { _, err := f(); return err }, Output: f}, nil
}

// Engines are the in-process Go engines, in table order. Jinja2 (Python)
// and nunjucks (Node) are timed in their own processes by run.sh.
var Engines = []Engine{
	{"promptkit Render", "Manager.Render", preparePromptkit, nil},
	{"promptkit RenderMessages", "Manager.RenderMessages of the {% chat %} variant", prepareMessages, nil},
	{"pongo2 (raw)", "Template.Execute of NAME.pongo2, the same template in pongo2's syntax", preparePongo2, translated},
	{"pongo2 (hand-written)", "Template.Execute of a template written for pongo2's dialect", preparePongo2, handWritten},
	{"text/template", "Template.Execute into a strings.Builder", prepareTextTemplate, peers},
	{"gonja v2", "Template.ExecuteToString, StrictUndefined, compiled once", prepareGonja, peers},
	{"LangChainGo jinja2", "prompts.PromptTemplate.Format (parses the template on every call)", prepareLangChain, peers},
	{"strings.Builder", "hand-written Go: the floor", prepareBuilder, peers},
}

func peers(w Workload) bool       { return !w.PromptkitOnly }
func translated(w Workload) bool  { return !w.PromptkitOnly && !w.Pongo2Hand }
func handWritten(w Workload) bool { return !w.PromptkitOnly && w.Pongo2Hand }

// BenchName is the engine's name as a sub-benchmark name (no spaces).
func BenchName(e Engine) string { return strings.NewReplacer(" ", "_", "/", "_").Replace(e.Name) }

// managerFor loads a set holding w (as NAME) and its chat variant (as
// NAME_chat), each declaring exactly the variables w passes.
func managerFor(w Workload) (*manager.Manager, error) {
	var vars []string
	for k := range w.Vars {
		vars = append(vars, k)
	}
	index, err := json.Marshal(map[string]any{"version": 1, "templates": map[string]any{
		w.Name:           map[string]any{"path": w.Name + ".jinja", "variables": vars},
		w.Name + "_chat": map[string]any{"path": w.Name + "_chat.jinja", "variables": vars},
	}})
	if err != nil {
		return nil, err
	}
	return manager.New(fstest.MapFS{
		manager.IndexFile:      {Data: index},
		w.Name + ".jinja":      {Data: []byte(w.Jinja)},
		w.Name + "_chat.jinja": {Data: []byte(w.Chat)},
	})
}

func preparePromptkit(w Workload) (Renderer, error) {
	m, err := managerFor(w)
	if err != nil {
		return Renderer{}, err
	}
	return textRenderer(func() (string, error) { return m.Render(w.Name, w.Vars) })
}

// prepareMessages renders the chat variant. Its output, for the check, is
// the messages as "role: text" lines (made outside the timed render);
// ExpectedMessages gives the same for the golden text.
func prepareMessages(w Workload) (Renderer, error) {
	m, err := managerFor(w)
	if err != nil {
		return Renderer{}, err
	}
	name := w.Name + "_chat"
	return Renderer{
		Render: func() error { _, err := m.RenderMessages(name, w.Vars); return err },
		Output: func() (string, error) {
			msgs, err := m.RenderMessages(name, w.Vars)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			for _, msg := range msgs {
				b.WriteString(msg.Role + ": " + msg.Text() + "\n")
			}
			return b.String(), nil
		},
	}, nil
}

// ExpectedMessages is what prepareMessages's render gives when the
// messages hold the golden text: a system message with the text before
// <documents> and a user message with the rest, each trimmed (one user
// message when there is no <documents>). It is the expectation of the
// chat variants in ../manager/testdata/bench, which split there; the
// workloads in testdata/ have Jinja2's own in NAME_messages.golden.
func ExpectedMessages(w Workload) string {
	if i := strings.Index(w.Golden, "<documents>"); i > 0 {
		return "system: " + strings.TrimSpace(w.Golden[:i]) + "\nuser: " + strings.TrimSpace(w.Golden[i:]) + "\n"
	}
	return "user: " + strings.TrimSpace(w.Golden) + "\n"
}

// preparePongo2 compiles NAME.pongo2 with plain pongo2 and executes it the
// way pongo2's users do. For prompt and tiny that is the Jinja template
// with pongo2's spellings (forloop.Counter, autoescape off); for large it
// is written by hand in pongo2's dialect, with the two filters pongo2
// lacks (registerPongo2Filters).
func preparePongo2(w Workload) (Renderer, error) {
	if err := registerPongo2Filters(); err != nil {
		return Renderer{}, err
	}
	tpl, err := pongo2.FromString(w.Pongo2)
	if err != nil {
		return Renderer{}, err
	}
	return textRenderer(func() (string, error) { return tpl.Execute(pongo2.Context(w.Vars)) })
}

// registerPongo2Filters registers trim and replace, which pongo2 (like
// Django) does not have, as a pongo2 user would: trim is
// strings.TrimSpace; replace takes Django's single argument as "old|new".
var registerPongo2Filters = sync.OnceValue(func() error {
	if err := pongo2.RegisterFilter("trim", func(in, _ *pongo2.Value) (*pongo2.Value, *pongo2.Error) {
		return pongo2.AsValue(strings.TrimSpace(in.String())), nil
	}); err != nil {
		return err
	}
	return pongo2.RegisterFilter("replace", func(in, param *pongo2.Value) (*pongo2.Value, *pongo2.Error) {
		old, repl, ok := strings.Cut(param.String(), "|")
		if !ok {
			return nil, &pongo2.Error{Sender: "filter:replace", OrigError: fmt.Errorf("want \"old|new\", got %q", param.String())}
		}
		return pongo2.AsValue(strings.ReplaceAll(in.String(), old, repl)), nil
	})
})

// templateFuncs are the functions the .tmpl files call: what Jinja's
// filters and tests do, written in Go.
var templateFuncs = template.FuncMap{
	"inc":         func(i int) int { return i + 1 },
	"trim":        strings.TrimSpace,
	"upper":       strings.ToUpper,
	"title":       jinjaTitle,
	"replace":     strings.ReplaceAll,
	"join":        func(list []any, sep string) string { return joinAny(list, sep) },
	"divisibleby": func(n, d int) bool { return n%d == 0 },
}

// jinjaTitle is Jinja's title filter: the first letter of each word upper
// case and the rest lower case, a word starting after a run of spaces or
// any of -({[<.
func jinjaTitle(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := true
	for _, r := range s {
		if unicode.IsSpace(r) || strings.ContainsRune("-({[<", r) {
			start = true
			b.WriteRune(r)
			continue
		}
		if start {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		start = false
	}
	return b.String()
}

// joinAny joins the elements of a decoded JSON list, each as its string.
func joinAny(list []any, sep string) string {
	var b strings.Builder
	for i, v := range list {
		if i > 0 {
			b.WriteString(sep)
		}
		fmt.Fprint(&b, v)
	}
	return b.String()
}

func prepareTextTemplate(w Workload) (Renderer, error) {
	tpl, err := template.New(w.Name).Funcs(templateFuncs).Option("missingkey=error").Parse(w.Tmpl)
	if err != nil {
		return Renderer{}, err
	}
	return textRenderer(func() (string, error) {
		var b strings.Builder
		err := tpl.Execute(&b, w.Vars)
		return b.String(), err
	})
}

func prepareGonja(w Workload) (Renderer, error) {
	cfg := gonjaconfig.New()
	cfg.StrictUndefined = true
	loader, err := gonjaloaders.NewMemoryLoader(map[string]string{"/" + w.Name: w.Jinja})
	if err != nil {
		return Renderer{}, err
	}
	tpl, err := gonjaexec.NewTemplate("/"+w.Name, cfg, loader, gonja.DefaultEnvironment)
	if err != nil {
		return Renderer{}, err
	}
	return textRenderer(func() (string, error) { return tpl.ExecuteToString(gonjaexec.NewContext(w.Vars)) })
}

func prepareLangChain(w Workload) (Renderer, error) {
	var names []string
	for k := range w.Vars {
		names = append(names, k)
	}
	p := prompts.PromptTemplate{Template: w.Jinja, InputVariables: names, TemplateFormat: prompts.TemplateFormatJinja2}
	return textRenderer(func() (string, error) { return p.Format(w.Vars) })
}

// prepareBuilder is the floor: the template's text cut at its
// placeholders once, then each render writes the pieces and the values
// into a strings.Builder grown to the final size, as hand-written Go would.
func prepareBuilder(w Workload) (Renderer, error) {
	switch w.Name {
	case "prompt":
		return promptBuilder(w)
	case "tiny":
		return tinyBuilder(w)
	case "large":
		return largeBuilder(w)
	}
	return Renderer{}, fmt.Errorf("no hand-written builder for %q", w.Name)
}

// cut splits s at each marker in turn: len(markers)+1 pieces.
func cut(s string, markers ...string) ([]string, error) {
	var out []string
	for _, m := range markers {
		before, after, ok := strings.Cut(s, m)
		if !ok {
			return nil, fmt.Errorf("marker %q not found", m)
		}
		out = append(out, before)
		s = after
	}
	return append(out, s), nil
}

func promptBuilder(w Workload) (Renderer, error) {
	p, err := cut(w.Jinja, "{{ assistant_name }}", "{{ today }}", "{% for doc in documents %}", "{{ loop.index }}",
		"{{ doc.source }}", "{{ doc.content }}", "{% endfor %}", "{{ question }}")
	if err != nil {
		return Renderer{}, err
	}
	static := len(p[0]) + len(p[1]) + len(p[2]) + len(p[7]) + len(p[8])
	perDoc := len(p[3]) + len(p[4]) + len(p[5]) + len(p[6]) + 3
	return textRenderer(func() (string, error) {
		name, _ := w.Vars["assistant_name"].(string)
		today, _ := w.Vars["today"].(string)
		question, _ := w.Vars["question"].(string)
		docs, _ := w.Vars["documents"].([]any)
		n := static + len(name) + len(today) + len(question) + perDoc*len(docs)
		for _, d := range docs {
			d, _ := d.(map[string]any)
			src, _ := d["source"].(string)
			content, _ := d["content"].(string)
			n += len(src) + len(content)
		}
		var b strings.Builder
		b.Grow(n)
		b.WriteString(p[0])
		b.WriteString(name)
		b.WriteString(p[1])
		b.WriteString(today)
		b.WriteString(p[2])
		var num [20]byte
		for i, d := range docs {
			d, _ := d.(map[string]any)
			src, _ := d["source"].(string)
			content, _ := d["content"].(string)
			b.WriteString(p[3])
			b.Write(strconv.AppendInt(num[:0], int64(i+1), 10))
			b.WriteString(p[4])
			b.WriteString(src)
			b.WriteString(p[5])
			b.WriteString(content)
			b.WriteString(p[6])
		}
		b.WriteString(p[7])
		b.WriteString(question)
		b.WriteString(p[8])
		return b.String(), nil
	})
}

func tinyBuilder(w Workload) (Renderer, error) {
	p, err := cut(w.Jinja, "{{ name }}", "{{ language }}")
	if err != nil {
		return Renderer{}, err
	}
	return textRenderer(func() (string, error) {
		name, _ := w.Vars["name"].(string)
		language, _ := w.Vars["language"].(string)
		var b strings.Builder
		b.Grow(len(p[0]) + len(name) + len(p[1]) + len(language) + len(p[2]))
		b.WriteString(p[0])
		b.WriteString(name)
		b.WriteString(p[1])
		b.WriteString(language)
		b.WriteString(p[2])
		return b.String(), nil
	})
}

// Expected is the output engine e must give for w.
func Expected(e Engine, w Workload) string {
	if reflect.ValueOf(e.Prepare).Pointer() == reflect.ValueOf(prepareMessages).Pointer() {
		return w.Messages
	}
	return w.Golden
}
