package engine_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/seed-e7d2830f/promptkit/internal/jinjaoracle"
)

// TestOracle renders hand-written snippets — every filter, test, method,
// global, operator, loop attribute, macro and call feature, namespace, set
// and filter blocks, whitespace control, indexing and slicing by code
// point, number formatting, tojson and the printing of nested values —
// with promptkit and with Python's Jinja2, and compares them byte for byte.
// Where Jinja2 raises, promptkit must refuse too (at load or at render).
// Snippets promptkit renders differently on purpose are in differences
// (oracle_differences_test.go), not here.
//
// Jinja2's answers are recorded in testdata/oracle (see jinjaoracle.Golden):
// without Python the test checks promptkit against them, and with Python
// (always on CI) it checks them against Jinja2 too.
//
// Every snippet renders in both of promptkit's modes: a lenient set
// against Jinja2's default Undefined (stock.json), and a strict set — the
// default — against Jinja2's StrictUndefined (strict.json).
func TestOracle(t *testing.T) {
	groups := make([]string, 0, len(snippets))
	for g := range snippets {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, mode := range oracleModes {
		t.Run(mode.name, func(t *testing.T) {
			rec := jinjaoracle.Record(t, mode.golden)
			total := 0
			for _, g := range groups {
				t.Run(g, func(t *testing.T) {
					for i, tpl := range snippets[g] {
						total++
						t.Run(fmt.Sprint(i), func(t *testing.T) {
							vars := fixture()
							want := rec.RenderEnv(t, jinjaoracle.Env{Strict: mode.strict}, tpl, vars)
							if jinjaoracle.IsOracleFailure(want.Err) {
								t.Fatalf("the oracle could not render %q: %s", tpl, want.Err)
							}
							got, err := renderSet(tpl, vars, mode.strict)
							compare(t, tpl, want, got, err)
						})
					}
				})
			}
			t.Logf("%d snippets", total)
		})
	}
}

// oracleModes are promptkit's two modes, each with Jinja2's answers.
var oracleModes = []struct {
	name   string
	strict bool
	golden string
}{
	{"lenient", false, "testdata/oracle/stock.json"},
	{"strict", true, "testdata/oracle/strict.json"},
}

// TestOracleHuggingFace renders snippets in Hugging Face's chat-template
// environment (trim_blocks, lstrip_blocks, loop controls, its tojson,
// raise_exception, strftime_now) on both sides, with values decoded from
// JSON into order-keeping dicts.
func TestOracleHuggingFace(t *testing.T) {
	rec := jinjaoracle.Record(t, "testdata/oracle/huggingface.json")
	for i, tpl := range hfSnippets {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			vars := hfFixture()
			want := oracleHF(t, rec, tpl, vars)
			if jinjaoracle.IsOracleFailure(want.Err) {
				t.Fatalf("the oracle could not render %q: %s", tpl, want.Err)
			}
			got, err := renderHF(tpl, vars)
			compare(t, tpl, want, got, err)
		})
	}
}

// compare fails t unless promptkit's result matches Jinja2's: the same
// bytes, or an error on both sides.
func compare(t *testing.T, tpl string, want jinjaoracle.Answer, got string, err error) {
	t.Helper()
	switch {
	case want.Err != "" && err == nil:
		t.Errorf("template %q\nJinja2 raised %s\npromptkit rendered %q", tpl, want.Err, got)
	case want.Err == "" && err != nil:
		t.Errorf("template %q\nJinja2 rendered %q\npromptkit failed: %v", tpl, want.Out, err)
	case want.Err == "" && !want.Matches(got):
		t.Errorf("template %q\nJinja2:    %q\npromptkit: %q", tpl, want.Out, got)
	}
}

// fixture is the values every snippet may use: strings (ASCII, CJK, empty,
// padded, with markup), numbers of each kind, booleans, None, lists, a
// dict, a list of records and nested data.
func fixture() map[string]any {
	return map[string]any{
		"s": "Hello World", "u": "查询天气 ok", "em": "", "sp": "  padded\t ", "mixed": "a-b c.d_e x",
		"n": int64(7), "neg": int64(-3), "zero": int64(0), "big": int64(1234567), "f": 2.5, "g": 0.1, "fi": 3.0, "nf": -1.75,
		"yes": true, "no": false, "nothing": nil,
		"xs": []any{int64(3), int64(1), int64(2)}, "words": []any{"b", "A", "c", "a", "B"},
		"mixl": []any{int64(1), "two", 3.5, nil, true}, "empty": []any{},
		"nested": []any{[]any{int64(1), int64(2)}, []any{int64(3)}, []any{}},
		"d":      map[string]any{"b": int64(2), "a": int64(1), "C": int64(3)},
		"users": []any{
			map[string]any{"name": "Ann", "age": int64(31), "role": "admin", "tags": []any{"x", "y"}},
			map[string]any{"name": "bob", "age": int64(25), "role": "user", "tags": []any{}},
			map[string]any{"name": "Cy", "age": int64(31), "role": "user"},
		},
		"deep":  map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "deep", "n": 1.5}}}, "list": []any{nil, true, "x'y", "q\"z"}},
		"html":  `<a href="x">Tom & 'Jerry'</a>`,
		"url":   "https://example.com/a b?q=1&r=ü",
		"text":  "The quick brown fox jumps over the lazy dog. The end.",
		"multi": "line one\nline two\n\n  line four\n",
	}
}

func hfFixture() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"messages": json.RawMessage(`[
			{"role": "system", "content": "You are helpful."},
			{"role": "user", "content": "查询明天北京的天气"},
			{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "weather", "arguments": {"city": "北京", "days": 1}}}]},
			{"role": "tool", "content": "{\"temp\": 21}"},
			{"role": "assistant", "content": "明天 21 度。"},
			{"role": "user", "content": "Thanks <3 & bye"}
		]`),
		"tools":                 json.RawMessage(`[{"type": "function", "function": {"name": "weather", "description": "Forecast", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}]`),
		"add_generation_prompt": json.RawMessage(`true`),
		"bos_token":             json.RawMessage(`"<s>"`),
		"eos_token":             json.RawMessage(`"</s>"`),
	}
}
