package manager

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// mapKeys is exactKeys as it was, decoding the object into a map: the
// key scanner must name the same key.
func mapKeys(data []byte, allowed ...string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("unknown field %q (allowed: %s)", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func TestExactKeys(t *testing.T) {
	allowed := []string{"name", "required", "default", "description", "schema"}
	for _, in := range []string{
		`{}`, ` { "name" : "a" } `, `{"name": "a", "Name": "b"}`, `"name"`, `[{"x": 1}]`, `null`, `12`,
		`{"name": {"x": [1, {"y": "}]\\""}], "z": null}, "default": [1, 2, {"a": "b"}], "zz": true}`,
		`{"default": "a,b", "required": false, "description": "x\"y", "schema": {"type": "string"}, "extra": 1.5e3}`,
		`{"n\u0061me": 1}`, `{"na\\me": 1}`, `{"b": 1, "a": 2, "name": 3}`, `{"name": 1, "name": 2}`,
		"{\n\t\"name\"\r\n:\n-0.5 ,\"x\":\"\"}",
	} {
		assert.Equal(t, fmt.Sprint(mapKeys([]byte(in), allowed...)), fmt.Sprint(exactKeys([]byte(in), allowed...)), in)
	}
}

// FuzzExactKeys holds the key scanner to the map-based check on any valid
// JSON.
func FuzzExactKeys(f *testing.F) {
	f.Add([]byte(`{"name": {"x": [1, {"y": "}]"}]}, "zz": true, "n\u0061me": "\\"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		want := fmt.Sprint(mapKeys(data, "name", "path"))
		if got := fmt.Sprint(exactKeys(data, "name", "path")); got != want {
			t.Fatalf("%q: %s, want %s", data, got, want)
		}
	})
}
