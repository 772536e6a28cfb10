package schema

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
)

// Choices returns the values the schema lists — an enum or a const,
// found through $ref, allOf, anyOf and oneOf — that the whole schema
// accepts, in the order they are listed, each once; nil when the schema
// lists none (a string of any value, an object). Numbers are int64 when
// integral, float64 otherwise, as DecodeJSON gives them. A form or an
// MCP client offers them as completions.
func (s *Schema) Choices() []any {
	var cands []any
	collectChoices(s.s, map[*jsonschema.Schema]bool{}, &cands)
	var out []any
	var seen []string
	for _, v := range cands {
		key, err := json.Marshal(v)
		if err != nil || slices.Contains(seen, string(key)) || s.s.Validate(v) != nil {
			continue
		}
		seen = append(seen, string(key))
		out = append(out, plainNumber(v))
	}
	return out
}

// collectChoices appends the values s and the schemas it is made of list.
// Candidates only: Choices keeps those the whole schema accepts.
func collectChoices(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool, out *[]any) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	if s.Const != nil {
		*out = append(*out, *s.Const)
	}
	if s.Enum != nil {
		*out = append(*out, s.Enum.Values...)
	}
	collectChoices(s.Ref, seen, out)
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, a := range list {
			collectChoices(a, seen, out)
		}
	}
}

// plainNumber turns the library's json.Number into int64 or float64.
func plainNumber(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if !strings.ContainsAny(n.String(), ".eE") {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	f, _ := n.Float64()
	return f
}
