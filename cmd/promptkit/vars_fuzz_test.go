package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// FuzzParseVars feeds --vars JSON (through stdin, "-") and --var pairs (one
// a line) to parseVars. It never panics; an error is always a usage error
// (exit code 2); on success every well-formed --var pair is in the result
// (KEY=VALUE as a string, KEY:=JSON as its valid JSON text; the last one of
// a key wins over earlier ones and over the JSON) and every other key came
// from the JSON object.
func FuzzParseVars(f *testing.F) {
	f.Add(`{"intent": "查询", "n": 3, "xs": [1, 2.5, null], "d": {"a": true}}`, "tone=正式\nintent=override")
	f.Add(``, "a=b=c")
	f.Add(`[]`, "")
	f.Add(`{"a": 1} {"b": 2}`, "=x")
	f.Add(`{"a": 1e400}`, "k=")
	f.Add(`null`, "novalue")
	f.Add(`{"a": {"a": {"a": [[[[[]]]]]}}}`, "a=1\na=2")
	f.Fuzz(func(t *testing.T, js, pairs string) {
		var ps []string
		if pairs != "" {
			ps = strings.Split(pairs, "\n")
		}
		varsFile := "-"
		if js == "" {
			varsFile = ""
		}
		out, err := parseVars(varsFile, ps, strings.NewReader(js))
		if err != nil {
			var ue *usageError
			require.True(t, errors.As(err, &ue), "want a usage error, got %T: %v", err, err)
			assert.Equal(t, 2, exitCode(context.Background(), err))
			return
		}
		require.NotNil(t, out)
		want := map[string]any{}
		for _, p := range ps {
			k, v, ok := strings.Cut(p, "=")
			require.True(t, ok && k != "", "accepted malformed --var %q", p)
			if name, isJSON := strings.CutSuffix(k, ":"); isJSON {
				require.NotEmpty(t, name, "accepted --var %q without a name", p)
				require.True(t, json.Valid([]byte(v)), "accepted --var %q with invalid JSON", p)
				want[name] = json.RawMessage(v)
				continue
			}
			want[k] = v
		}
		for k, v := range want {
			assert.Equal(t, v, out[k], "--var %s", k)
		}
		if len(out) > len(want) {
			v, err := manager.DecodeJSON([]byte(js))
			require.NoError(t, err, "keys beyond --var must come from the JSON")
			obj, ok := v.(map[string]any)
			require.True(t, ok)
			for k := range out {
				if _, ok := want[k]; !ok {
					assert.Contains(t, obj, k)
				}
			}
		}
	})
}
