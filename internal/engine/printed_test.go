package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// A filter printed in place ({{ x | join(", ") }}: its print form) gives
// what the filter's value printed gives ({% set r = x | join(", ") %}{{ r
// }}): the same bytes, or the same error, for every kind of input the
// filters take and refuse, in strict and lenient sets alike.
func TestPrintedFiltersAsTheirValues(t *testing.T) {
	filters := []string{
		`upper`, `lower`, `title`, `capitalize`,
		`join`, `join(", ")`, `join(d="-")`, `join(", ", attribute="k")`, `join(1)`, `join(sep)`,
		`replace("_", " ")`, `replace("a", "bb")`, `replace("", "-")`, `replace("a", "b", 1)`, `replace(1, "x")`,
		`replace("o", sep)`, `replace(sep, "o")`,
		`tojson`, `tojson(indent=2)`, `tojson(4)`, `tojson(indent="\t")`, `tojson(indent=[1])`,
		`default("none")`, `default("none", true)`, `default(x)`, `default("d", missing_p)`, `d(7)`,
		`trim`, `trim("_")`, `trim(missing_p)`, `length`, `count`,
		// Undefined arguments: refused in a strict set before the filter
		// runs, taken as the filter takes them in a lenient one.
		`tojson(indent=missing_p)`, `join(missing_p)`, `replace("a", missing_p)`, `default(missing_p, true)`,
	}
	var every strings.Builder // each ASCII byte between two letters
	for c := range 128 {
		every.WriteString("xY")
		every.WriteByte(byte(c))
	}
	inputs := map[string]any{
		"every":    every.String(),
		"empty":    "",
		"ascii":    "hello wORLD",
		"breaks":   "one-two(three)[four]{five}<six>seven\teight\x1cnine\x1fTEN x",
		"under":    "__a_b__c_",
		"unicode":  "école ÉTÉ straße ǆ ΣΑΣ 你好",
		"mixed":    "ascii then Ünï",
		"long":     strings.Repeat("Word-word ", 40),
		"list":     []any{"a", "b", "c"},
		"one":      []any{"only"},
		"none":     []any{},
		"ints":     []any{1, "b"},
		"dicts":    []any{map[string]any{"k": "v1"}, map[string]any{"k": "v2"}},
		"dict":     map[string]any{"b": 1, "a": []any{"x", 2.5, nil, true}, "é": "<tag>&'"},
		"int":      42,
		"float":    1500.0,
		"null":     nil,
		"bytes":    "\u2028 \x00 \"q\"",
		"nestlist": []any{[]any{"a"}, "b"},
		"strs":     []string{"p", "q_r"},
		"decoded":  decoded(t, `["a", "b_c", "d"]`),
		"decints":  decoded(t, `["a", 2]`),
	}
	for _, strict := range []bool{false, true} {
		for _, f := range filters {
			for name, x := range inputs {
				for _, sep := range []any{"|", 7} {
					vars := map[string]any{"x": x, "sep": sep}
					printed, perr := renderIn(t, strict, `{{ x | `+f+` }}`, vars)
					valued, verr := renderIn(t, strict, `{% set r = x | `+f+` %}{{ r }}`, vars)
					what := fmt.Sprintf("strict=%v %s on %s, sep %v", strict, f, name, sep)
					assertSameResult(t, what, valued, verr, printed, perr)
				}
			}
			// An undefined input: refused in a strict set, the filter's
			// own answer in a lenient one.
			printed, perr := renderIn(t, strict, `{{ missing_o | `+f+` }}`, map[string]any{"x": "", "sep": "|"})
			valued, verr := renderIn(t, strict, `{% set r = missing_o | `+f+` %}{{ r }}`, map[string]any{"x": "", "sep": "|"})
			assertSameResult(t, fmt.Sprintf("strict=%v %s on undefined", strict, f), valued, verr, printed, perr)
		}
	}
}

// A printed value that would pass the memory budget or the output limit
// is refused as the value itself is.
func TestPrintedFiltersWithinLimits(t *testing.T) {
	big := strings.Repeat("a", 1<<20)
	for _, tc := range []struct {
		src  string
		vars map[string]any
		is   error
		msg  string
	}{
		{`{{ x | replace("a", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb") }}`,
			map[string]any{"x": big}, manager.ErrOutputLimit, "beyond the render's memory limit"},
		{`{{ x | upper }}`, map[string]any{"x": strings.Repeat("a", 2000)}, manager.ErrOutputLimit, "the output would exceed 1000 bytes"},
		{`{{ x | join(", ") }}`, map[string]any{"x": []any{strings.Repeat("a", 600), strings.Repeat("b", 600)}}, manager.ErrOutputLimit, "the output would exceed 1000 bytes"},
		{`{{ x | tojson }}`, map[string]any{"x": []any{strings.Repeat("a", 600), strings.Repeat("b", 600)}}, manager.ErrOutputLimit, "the output would exceed 1000 bytes"},
		{`{{ x | replace("a", "b") }}`, map[string]any{"x": strings.Repeat("a", 2000)}, manager.ErrOutputLimit, "the output would exceed 1000 bytes"},
	} {
		set := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["x"]}}}`
		fsys := fstest.MapFS{"index.json": {Data: []byte(set)}, "t.md": {Data: []byte(tc.src)}}
		m, err := manager.New(fsys, manager.WithMaxOutputBytes(1000), manager.WithMaxMemory(8<<20))
		require.NoError(t, err)
		_, err = m.Render("t", tc.vars)
		require.ErrorIs(t, err, tc.is, tc.src)
		assert.Contains(t, err.Error(), tc.msg, tc.src)
	}
}

// The filters a prompt prints most build no string of their own: a
// render of them allocates its output and nothing else.
func TestPrintedFiltersAllocateNothing(t *testing.T) {
	src := `{{ tags | join(", ") }}|{{ name | replace("_", " ") }}|{{ team | upper }}|{{ owner | title }}|` +
		`{{ owner | lower }}|{{ owner | capitalize }}|{{ doc | tojson }}|{{ doc.note | default("none") }}`
	set := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["tags", "name", "team", "owner", "doc"]}}}`
	fsys := fstest.MapFS{"index.json": {Data: []byte(set)}, "t.md": {Data: []byte(src)}}
	m, err := manager.New(fsys)
	require.NoError(t, err)
	doc, err := engine.DecodeJSON(json.RawMessage(`{"id": 7, "title": "a \"quoted\" title", "tags": ["x", "y"]}`))
	require.NoError(t, err)
	vars := map[string]any{"tags": []any{"go", "jinja", "prompts"}, "name": "step_one_two", "team": "infra",
		"owner": "ada lovelace-byron", "doc": doc}
	out, err := m.Render("t", vars)
	require.NoError(t, err)
	assert.Equal(t, `go, jinja, prompts|step one two|INFRA|Ada Lovelace-Byron|ada lovelace-byron|Ada lovelace-byron|`+
		`{"id": 7, "tags": ["x", "y"], "title": "a \"quoted\" title"}|none`, out)
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := m.Render("t", vars); err != nil {
			t.Fatal(err)
		}
	})
	if raceEnabled {
		// sync.Pool drops items at random under the race detector: the
		// count is not the render's. go test without -race asserts it.
		return
	}
	assert.Equal(t, 1.0, allocs, "allocations a render")
}

// A missing attribute given to default is default's value in a strict
// template, printed or not, and raises as before anywhere else.
func TestMissingAttributeForDefault(t *testing.T) {
	vars := map[string]any{"x": map[string]any{"a": "A"}, "sep": "|"}
	for src, want := range map[string]string{
		`{{ x.nope | default("d") }}`:          "d",
		`{% set r = x.nope | d("d") %}{{ r }}`: "d",
		`{{ x.nope | default(x.a ~ "!") }}`:    "A!",
		`{{ (x.nope | default("")) ~ "." }}`:   ".",
		`{{ x.a | default("d") }}`:             "A",
		`{{ x.nope | default(none) is none }}`: "True",
		`{{ x.nope | default("d", true) }}`:    "d",
	} {
		out, err := renderIn(t, true, src, vars)
		require.NoError(t, err, src)
		assert.Equal(t, want, out, src)
	}
	for _, src := range []string{`{{ x.nope | upper }}`, `{{ x.nope }}`, `{{ x.nope.deeper | default("d") }}`} {
		_, err := renderIn(t, true, src, vars)
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), "x.nope is undefined", src)
	}
}

// jinjaTitleBreaks are the ASCII bytes after which Jinja2 3.1's title
// starts a new word, as Jinja2 answers it (each byte c of 0–127 in
// "ab"+c+"cd", title gives "Cd" after it exactly for these).
var jinjaTitleBreaks = []byte{9, 10, 11, 12, 13, 28, 29, 30, 31, 32, '(', '-', '<', '[', '{'}

// title, printed or not, breaks words after Jinja2's bytes and no others.
func TestTitleBreaksEveryASCIIByte(t *testing.T) {
	for c := range 128 {
		rest := "cd"
		if slices.Contains(jinjaTitleBreaks, byte(c)) {
			rest = "Cd"
		}
		want := "Ab" + strings.ToLower(string(rune(c))) + rest
		for _, src := range []string{`{{ x | title }}`, `{% set r = x | title %}{{ r }}`} {
			got, err := renderIn(t, true, src, map[string]any{"x": "ab" + string(rune(c)) + "cd", "sep": "|"})
			require.NoError(t, err, "%s, byte %d", src, c)
			assert.Equal(t, want, got, "%s, byte %d", src, c)
		}
	}
}

// renderIn renders src as the only template of a set declaring x, sep
// and the optional names of optionalNames, strict or lenient.
func renderIn(t *testing.T, strict bool, src string, vars map[string]any) (string, error) {
	t.Helper()
	return renderSet(src, vars, strict)
}

// assertSameResult holds a printed filter's result to its value's: the
// same output, or errors of the same kind and message (their columns
// differ, as the two templates do).
func assertSameResult(t *testing.T, what, want string, wantErr error, got string, gotErr error) {
	t.Helper()
	if wantErr == nil {
		if assert.NoError(t, gotErr, what) {
			assert.Equal(t, want, got, what)
		}
		return
	}
	var we, ge *manager.Error
	require.True(t, errors.As(wantErr, &we), "%s: %v", what, wantErr)
	if !assert.Error(t, gotErr, "%s: want %v", what, wantErr) {
		return
	}
	require.True(t, errors.As(gotErr, &ge), "%s: %v", what, gotErr)
	assert.Equal(t, we.Kind, ge.Kind, what)
	assert.Equal(t, we.Msg, ge.Msg, what)
}

// decoded is JSON decoded as the engine decodes a host's input.
func decoded(t *testing.T, src string) any {
	t.Helper()
	v, err := engine.DecodeJSON(json.RawMessage(src))
	require.NoError(t, err)
	return v
}
