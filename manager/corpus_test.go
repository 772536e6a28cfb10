package manager_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// The corpus (testdata/corpus, its README says how it was made): real chat
// templates of model families, applied as transformers applies them, and
// real prompt templates of LLM frameworks, each case with the output
// Python's Jinja2 gave. Every case must render byte for byte.

// corpusClock is the fixed clock the corpus was generated with.
var corpusClock = func() time.Time { return time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC) }

type chatCorpusFile struct {
	Source   map[string]any `json:"source"`
	Model    string         `json:"model"`
	Template string         `json:"template"`
	BOS      *string        `json:"bos_token"`
	EOS      *string        `json:"eos_token"`
	Cases    []struct {
		Name                string                     `json:"name"`
		Messages            json.RawMessage            `json:"messages"`
		Tools               json.RawMessage            `json:"tools"`
		Documents           json.RawMessage            `json:"documents"`
		AddGenerationPrompt bool                       `json:"add_generation_prompt"`
		Vars                map[string]json.RawMessage `json:"vars"`
		Expected            *string                    `json:"expected"`
		Error               *string                    `json:"error"`
	} `json:"cases"`
}

func corpusFiles(t *testing.T, kind string) []string {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", kind, "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the corpus is in testdata/corpus")
	sort.Strings(files)
	return files
}

func TestCorpusChatTemplates(t *testing.T) {
	files := corpusFiles(t, "chat")
	pass, total := 0, 0
	for _, f := range files {
		var cf chatCorpusFile
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &cf), f)
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		family := filepath.Base(filepath.Dir(f))
		t.Run(family+"/"+name, func(t *testing.T) {
			ct, err := manager.ParseChatTemplate(name, cf.Template, manager.WithClock(corpusClock))
			for _, c := range cf.Cases {
				total++
				t.Run(c.Name, func(t *testing.T) {
					require.NoError(t, err, "%s (%s)", cf.Source["repo"], cf.Source["path"])
					in := manager.ChatInput{MessagesJSON: c.Messages, ToolsJSON: nullIsNone(c.Tools), Documents: nullIsNone(c.Documents),
						AddGenerationPrompt: c.AddGenerationPrompt, Vars: c.Vars, BOS: cf.BOS, EOS: cf.EOS}
					out, aerr := ct.Apply(context.Background(), in)
					if c.Error != nil {
						require.ErrorIs(t, aerr, manager.ErrRaised)
						assert.Contains(t, aerr.Error(), *c.Error)
						pass++
						return
					}
					require.NoError(t, aerr)
					if assert.Equal(t, *c.Expected, out) {
						pass++
					}
				})
			}
		})
	}
	t.Logf("chat corpus: %d of %d cases byte-identical, %d templates", pass, total, len(files))
}

// TestCorpusTypedMessages: every corpus case with tool calls, given as Go
// values (message.Message, message.Tool) instead of JSON, renders the same
// bytes as its JSON does, which are Jinja2's; arguments are dicts in all
// but one (Apertus reads them as a JSON string), and both forms hold.
func TestCorpusTypedMessages(t *testing.T) {
	cases, objectArgs, stringArgs := 0, 0, 0
	for _, f := range corpusFiles(t, "chat") {
		var cf chatCorpusFile
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &cf), f)
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		for _, c := range cf.Cases {
			if !bytes.Contains(c.Messages, []byte(`"tool_calls"`)) {
				continue
			}
			cases++
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				ct, err := manager.ParseChatTemplate(name, cf.Template, manager.WithClock(corpusClock))
				require.NoError(t, err)
				msgs, err := message.DecodeMessages(c.Messages)
				require.NoError(t, err)
				typed := manager.ChatInput{Messages: msgs}
				if raw := nullIsNone(c.Tools); bytes.Contains(raw, []byte(`"parameter_definitions"`)) {
					// Command-R v01's Cohere-style tools are not function
					// tools: they stay JSON, beside the typed messages.
					typed.ToolsJSON = raw
				} else if raw != nil {
					typed.Tools, err = message.DecodeTools(raw)
					require.NoError(t, err)
				}
				for _, m := range msgs {
					for _, call := range m.ToolCalls {
						if call.ObjectArguments {
							objectArgs++
						} else {
							stringArgs++
						}
					}
				}
				asJSON := manager.ChatInput{MessagesJSON: c.Messages, ToolsJSON: nullIsNone(c.Tools)}
				for _, in := range []*manager.ChatInput{&asJSON, &typed} {
					in.Documents, in.AddGenerationPrompt, in.Vars, in.BOS, in.EOS = nullIsNone(c.Documents), c.AddGenerationPrompt, c.Vars, cf.BOS, cf.EOS
				}
				want, werr := ct.Apply(context.Background(), asJSON)
				got, err := ct.Apply(context.Background(), typed)
				if c.Error != nil {
					require.ErrorIs(t, err, manager.ErrRaised)
					assert.Contains(t, err.Error(), *c.Error)
					assert.Equal(t, werr.Error(), err.Error(), "typed == JSON")
					return
				}
				require.NoError(t, werr)
				require.NoError(t, err)
				assert.Equal(t, want, got, "typed == JSON")
				assert.Equal(t, *c.Expected, got, "typed == Jinja2")
			})
		}
	}
	assert.GreaterOrEqual(t, cases, 61, "the corpus cases with tool calls")
	assert.Positive(t, objectArgs, "arguments as dicts")
	assert.Positive(t, stringArgs, "arguments as a JSON string")
}

func nullIsNone(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

type frameworkCorpusFile struct {
	Source    map[string]any `json:"source"`
	Framework string         `json:"framework"`
	Template  string         `json:"template"`
	Env       map[string]any `json:"env"`
	Cases     []struct {
		Name     string          `json:"name"`
		Vars     json.RawMessage `json:"vars"`
		Expected *string         `json:"expected"`
		Error    *string         `json:"error"`
	} `json:"cases"`
}

func TestCorpusFrameworkTemplates(t *testing.T) {
	files := corpusFiles(t, "framework")
	pass, total := 0, 0
	for _, f := range files {
		var ff frameworkCorpusFile
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &ff), f)
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(ff.Framework+"/"+name, func(t *testing.T) {
			var opts []manager.Option
			if ff.Env["trim_blocks"] == true {
				opts = append(opts, manager.WithTrimBlocks())
			}
			if ff.Env["lstrip_blocks"] == true {
				opts = append(opts, manager.WithLStripBlocks())
			}
			if ff.Env["keep_trailing_newline"] == true {
				opts = append(opts, manager.WithKeepTrailingNewline())
			}
			// The framework's own Undefined: a set is strict unless its
			// index says "undefined": "lenient", as it must for the
			// frameworks that render with Jinja2's default Undefined.
			strict := ff.Env["undefined"] == "StrictUndefined"
			for _, c := range ff.Cases {
				total++
				t.Run(c.Name, func(t *testing.T) {
					v, err := manager.DecodeJSON(c.Vars)
					require.NoError(t, err)
					vars, _ := v.(map[string]any)
					m, err := frameworkSet(ff.Template, vars, strict, opts)
					require.NoError(t, err, "%s (%s)", ff.Source["repo"], ff.Source["path"])
					out, err := m.Render("t", vars)
					if c.Error != nil {
						require.Error(t, err)
						pass++
						return
					}
					require.NoError(t, err)
					if assert.Equal(t, *c.Expected, out) {
						pass++
					}
				})
			}
		})
	}
	t.Logf("framework corpus: %d of %d cases byte-identical, %d templates", pass, total, len(files))
}

// frameworkSet loads a one-template set declaring the case's variables,
// and, as optional, any other name the template reads (as a framework
// passes what it has and Jinja leaves the rest undefined).
func frameworkSet(src string, vars map[string]any, strict bool, opts []manager.Option) (*manager.Manager, error) {
	optional := map[string]bool{}
	for range 3 {
		var decl []any
		for k := range vars {
			decl = append(decl, k)
		}
		for k := range optional {
			decl = append(decl, map[string]any{"name": k, "required": false})
		}
		set := map[string]any{"version": 1, "templates": map[string]any{"t": map[string]any{"path": "t.md", "variables": decl}}}
		if !strict {
			set["undefined"] = "lenient"
		}
		index, _ := json.Marshal(set)
		m, err := manager.New(fstest.MapFS{"index.json": {Data: index}, "t.md": {Data: []byte(src)}}, opts...)
		if err == nil {
			return m, nil
		}
		var le *manager.LoadError
		if !errors.As(err, &le) {
			return nil, err
		}
		more := false
		for _, p := range le.Problems {
			if errors.Is(p, manager.ErrUndeclaredVariable) && len(p.Variables) == 1 && !optional[p.Variables[0]] {
				optional[p.Variables[0]], more = true, true
			}
		}
		if !more {
			return nil, fmt.Errorf("%w", err)
		}
	}
	return nil, fmt.Errorf("names keep appearing")
}
