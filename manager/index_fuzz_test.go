package manager

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseIndex feeds arbitrary bytes to the index.json parser. It never
// panics; every problem is an ErrIndex or ErrSandbox *Error about
// index.json with a position inside the input; an accepted entry has a
// valid name, a path inside the root and valid, unique, unreserved
// variables whose defaults belong to optional variables only.
func sortedProblems(ps []*Error) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Error()
	}
	slices.Sort(out)
	return out
}

func FuzzParseIndex(f *testing.F) {
	for _, s := range []string{
		`{"version": 1, "templates": {"title": {"path": "templates/title.md", "description": "d", "variables": ["intent"]}}}`,
		`{"version": 1, "templates": {"faq": {"path": "faq.md", "variables": ["question", {"name": "tone", "required": false, "default": "正式", "description": "…"}]}}}`,
		`{"version": 1, "templates": {"a": {"path": "../x.md"}, "b": {"path": "/etc/passwd"}, "c": {"path": "c:\\x"}}}`,
		`{"version": 2, "templates": {}}`,
		`{"version": 1, "templates": {"x": {"path": "x.md", "variables": ["a", "a", "loop", "_pkx", "1b", {"name": "d", "default": 1}]}}}`,
		`{"version": 1, "templates": {"x": {"path": "x.md", "extra": true}}, "more": 1}`,
		`{"version": 1, "templates": null}`,
		`{"version": 1,`,
		"{\n\"version\": 1,\n\"templates\": {\"x\": {\"path\": 3}}\n}",
		`[]`, `null`, ``, `{} {}`,
		`{"version": 1, "templates": {"x": {"path": "x.md", "variables": [{"name": "n", "required": false, "default": {"a": [1, 2.5, null]}}]}}}`,
		`{"version": 1, "templates": {"x": {"path": null, "description": null, "variables": null}}}`,
		`{"version": 1, "templates": {"x": {"path": "x.md", "variables": [{"name": null}, {"name": "a", "required": null}, {"name": "b", "Required": false}, 7, null, "\u0061"]}}}`,
		`{"version": 1, "undefined": "lenient", "templates": {"x": {"path": "x.md", "undefined": "strict", "budget": {"tokens": 10}, "model": {"name": "m"}}, "x": {"path": "y.md"}}}`,
		`{"version": 1, "templates": {"x": {"path": "x.md", "Path": "y.md"}, "y": {"pa\u0074h": "y.md"}}}`,
		"\ufeff{\"version\": 1, \"templates\": {}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, problems := parseIndex(data)
		// Read from its tree or by encoding/json alone, the index gives
		// the same entries and problems (in an order of their own: the
		// top keys are a map's).
		slow, slowProblems := parseIndexTree(trimBOM(data), nil)
		require.Equal(t, slow, entries)
		require.Equal(t, sortedProblems(slowProblems), sortedProblems(problems))
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range problems {
			require.True(t, errors.Is(p, ErrIndex) || errors.Is(p, ErrSandbox), "kind %v", p.Kind)
			assert.Equal(t, IndexFile, p.Path)
			assert.NotEmpty(t, p.Msg)
			assert.True(t, strings.HasPrefix(p.Error(), IndexFile), p.Error())
			assert.LessOrEqual(t, p.Line, lines, "line out of range: %s", p.Error())
			assert.GreaterOrEqual(t, p.Line, 0)
			assert.GreaterOrEqual(t, p.Col, 0)
		}
		prev := ""
		for i, e := range entries {
			if i > 0 {
				assert.Less(t, prev, e.Name, "entries sorted and unique")
			}
			prev = e.Name
			assert.Regexp(t, templateNameRE, e.Name)
			require.NoError(t, checkPath(e.Path), "accepted path %q", e.Path)
			assert.NotContains(t, strings.Split(e.Path, "/"), "..")
			assert.False(t, strings.HasPrefix(e.Path, "/"))
			seen := map[string]bool{}
			for _, v := range e.Variables {
				assert.Regexp(t, identRE, v.Name)
				assert.False(t, reservedName(v.Name), "reserved name %q accepted", v.Name)
				assert.False(t, seen[v.Name], "duplicate %q accepted", v.Name)
				seen[v.Name] = true
				if v.HasDefault {
					assert.False(t, v.Required, "required variable %q with a default", v.Name)
				}
			}
		}
		if len(problems) == 0 {
			// A clean parse is stable: the same bytes give the same entries.
			again, p2 := parseIndex(data)
			require.Empty(t, p2)
			require.Equal(t, len(entries), len(again))
		}
	})
}
