package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/flosch/pongo2/v6"
	"github.com/nikolalohinski/gonja/v2"
	gonjaconfig "github.com/nikolalohinski/gonja/v2/config"
	gonjaexec "github.com/nikolalohinski/gonja/v2/exec"
	gonjaloaders "github.com/nikolalohinski/gonja/v2/loaders"
)

// CorpusDir is the conformance corpus of real public templates (see its README.md).
const CorpusDir = "../testdata/corpus"

// corpusClock is the fixed clock the corpus's strftime_now reads (generate.py's CLOCK).
var corpusClock = time.Date(2026, 1, 15, 9, 30, 0, 0, time.Local)

type corpusFile struct {
	Template  string          `json:"template"`
	BosToken  *string         `json:"bos_token"`
	EosToken  *string         `json:"eos_token"`
	Framework string          `json:"framework"`
	Env       map[string]any  `json:"env"`
	Cases     []corpusCase    `json:"cases"`
	Model     json.RawMessage `json:"model"`
}

type corpusCase struct {
	Name                string         `json:"name"`
	Messages            any            `json:"messages"`
	Tools               any            `json:"tools"`
	Documents           any            `json:"documents"`
	AddGenerationPrompt bool           `json:"add_generation_prompt"`
	Vars                map[string]any `json:"vars"`
	Expected            *string        `json:"expected"`
	Error               *string        `json:"error"`
}

// gonjaTally counts one kind's cases by what gonja made of them.
type gonjaTally struct {
	cases, identical, loadFailed, renderFailed, differs int
	byGroup                                             map[string][3]int // identical, load failed, other
}

func (t *gonjaTally) add(group string, outcome int) {
	if t.byGroup == nil {
		t.byGroup = map[string][3]int{}
	}
	g := t.byGroup[group]
	g[outcome]++
	t.byGroup[group] = g
}

// corpusRenderer renders one case of the corpus with a peer engine.
type corpusRenderer func(kind string, f corpusFile, c corpusCase) (out string, loadErr, renderErr error)

// TestCorpusGonja renders every case of the corpus with gonja v2 and reports how many come out
// byte-identical to Jinja2's. It measures a peer, so gonja's mismatches do not fail it; a corpus
// that cannot be read does.
func TestCorpusGonja(t *testing.T) {
	gonja.SetLoggerOutput(nil)
	tallyCorpus(t, "gonja v2", renderWithGonja)
}

// TestCorpusPongo2 does the same with raw pongo2 v6, the engine promptkit's first design named,
// given each template as it is (pongo2 speaks Django's dialect: most real templates do not parse).
func TestCorpusPongo2(t *testing.T) {
	tallyCorpus(t, "pongo2 v6", renderWithPongo2)
}

// tallyCorpus renders every case of the corpus with render and logs how many are byte-identical
// to Jinja2's, by kind and model family.
func tallyCorpus(t *testing.T, engine string, render corpusRenderer) {
	tallies := map[string]*gonjaTally{"chat": {}, "framework": {}}
	for _, kind := range []string{"chat", "framework"} {
		files, err := filepath.Glob(filepath.Join(CorpusDir, kind, "*", "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no %s cases under %s: the case files are committed; regenerate them with python3 testdata/corpus/generate.py", kind, CorpusDir)
		}
		sort.Strings(files)
		tally := tallies[kind]
		for _, path := range files {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var f corpusFile
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if f.Template == "" || len(f.Cases) == 0 {
				t.Fatalf("%s: no template or no cases", path)
			}
			group := filepath.Base(filepath.Dir(path))
			for _, c := range f.Cases {
				if c.Expected == nil && c.Error == nil {
					t.Fatalf("%s [%s]: neither expected nor error", path, c.Name)
				}
				tally.cases++
				got, loadErr, renderErr := render(kind, f, c)
				switch {
				case loadErr != nil:
					tally.loadFailed++
					tally.add(group, 1)
				case c.Error != nil && renderErr != nil && strings.Contains(renderErr.Error(), *c.Error):
					tally.identical++
					tally.add(group, 0)
				case renderErr != nil:
					tally.renderFailed++
					tally.add(group, 2)
				case c.Expected != nil && got == *c.Expected:
					tally.identical++
					tally.add(group, 0)
				default:
					tally.differs++
					tally.add(group, 2)
				}
			}
		}
	}
	for _, kind := range []string{"chat", "framework"} {
		tl := tallies[kind]
		t.Logf("%s on the %s corpus: %d cases: %d byte-identical, %d fail to load, %d fail to render, %d render differently",
			engine, kind, tl.cases, tl.identical, tl.loadFailed, tl.renderFailed, tl.differs)
		groups := make([]string, 0, len(tl.byGroup))
		for g := range tl.byGroup {
			groups = append(groups, g)
		}
		sort.Strings(groups)
		for _, g := range groups {
			n := tl.byGroup[g]
			t.Logf("  %-12s identical %3d  load failed %3d  failed or differs %3d", g, n[0], n[1], n[2])
		}
	}
}

// renderWithPongo2 renders one case with raw pongo2: the template as it is, in a set of its own
// with autoescape off (as a prompt needs), trim and lstrip blocks for chat templates as
// transformers sets them, and the case's values.
func renderWithPongo2(kind string, f corpusFile, c corpusCase) (out string, loadErr, renderErr error) {
	defer func() {
		if r := recover(); r != nil {
			if out == "" && loadErr == nil {
				renderErr = fmt.Errorf("panic: %v", r)
			}
		}
	}()
	set := pongo2.NewSet("corpus", pongo2.MustNewLocalFileSystemLoader(""))
	vars := pongo2.Context{}
	if kind == "chat" {
		set.Options.TrimBlocks, set.Options.LStripBlocks = true, true
		vars["messages"] = c.Messages
		vars["tools"] = c.Tools
		vars["documents"] = c.Documents
		vars["add_generation_prompt"] = c.AddGenerationPrompt
		if f.BosToken != nil {
			vars["bos_token"] = *f.BosToken
		}
		if f.EosToken != nil {
			vars["eos_token"] = *f.EosToken
		}
		vars["raise_exception"] = func(msg string) (string, error) { return "", errors.New(msg) }
		vars["strftime_now"] = func(format string) string { return pyStrftime(corpusClock, format) }
	} else {
		set.Options.TrimBlocks, _ = f.Env["trim_blocks"].(bool)
		set.Options.LStripBlocks, _ = f.Env["lstrip_blocks"].(bool)
	}
	for k, v := range c.Vars {
		vars[k] = v
	}
	tpl, err := set.FromString("{% autoescape off %}" + f.Template + "{% endautoescape %}")
	if err != nil {
		return "", err, nil
	}
	out, err = tpl.Execute(vars)
	return out, nil, err
}

// renderWithGonja renders one case with gonja's closest configuration: for chat templates
// transformers' trim_blocks and lstrip_blocks with raise_exception and strftime_now as globals;
// for framework templates the case's own environment settings.
func renderWithGonja(kind string, f corpusFile, c corpusCase) (out string, loadErr, renderErr error) {
	defer func() {
		if r := recover(); r != nil {
			if out == "" && loadErr == nil {
				renderErr = fmt.Errorf("panic: %v", r)
			}
		}
	}()
	cfg := gonjaconfig.New()
	vars := map[string]any{}
	if kind == "chat" {
		cfg.TrimBlocks, cfg.LeftStripBlocks = true, true
		vars["messages"] = c.Messages
		vars["tools"] = c.Tools
		vars["documents"] = c.Documents
		vars["add_generation_prompt"] = c.AddGenerationPrompt
		if f.BosToken != nil {
			vars["bos_token"] = *f.BosToken
		}
		if f.EosToken != nil {
			vars["eos_token"] = *f.EosToken
		}
		vars["raise_exception"] = func(_ *gonjaexec.Evaluator, params *gonjaexec.VarArgs) (string, error) {
			msg := ""
			if len(params.Args) > 0 {
				msg = params.Args[0].String()
			}
			return "", errors.New(msg)
		}
		vars["strftime_now"] = func(_ *gonjaexec.Evaluator, params *gonjaexec.VarArgs) (string, error) {
			if len(params.Args) != 1 {
				return "", errors.New("strftime_now takes one format")
			}
			return pyStrftime(corpusClock, params.Args[0].String()), nil
		}
	} else {
		cfg.TrimBlocks, _ = f.Env["trim_blocks"].(bool)
		cfg.LeftStripBlocks, _ = f.Env["lstrip_blocks"].(bool)
		cfg.KeepTrailingNewline, _ = f.Env["keep_trailing_newline"].(bool)
		cfg.StrictUndefined = f.Env["undefined"] == "StrictUndefined"
	}
	for k, v := range c.Vars {
		vars[k] = v
	}
	loader, err := gonjaloaders.NewMemoryLoader(map[string]string{"/t": f.Template})
	if err != nil {
		return "", err, nil
	}
	tpl, err := gonjaexec.NewTemplate("/t", cfg, loader, gonja.DefaultEnvironment)
	if err != nil {
		return "", err, nil
	}
	out, err = tpl.ExecuteToString(gonjaexec.NewContext(vars))
	return out, nil, err
}

// pyStrftime formats t with the strftime directives the corpus's templates use.
func pyStrftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		switch format[i] {
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'b':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
