package schema

import (
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
)

// The quick path. Most schemas of a prompt set say only what type a value
// has, which properties an object has and which it needs, and what its
// items are; most values passed to a render are the maps, lists and
// scalars a host just built. For those, validating through the library
// (which first converts the value, then tracks evaluated properties for
// keywords the schema does not use) costs more than the render. So a
// schema that uses no keyword beyond the few below gets a quick matcher,
// built from the library's own compiled schema, that walks the value as
// it is and only ever answers "valid": anything it is not sure of — a
// value of another Go type, a keyword it does not know, a mismatch — goes
// to the library, which decides and words the violations. The quick path
// can make validation faster, never different.

// quick matches a value against a schema of the subset.
type quick struct {
	any      bool // the schema true: every value
	types    []string
	enum     []any // strings, booleans and null only
	required []string
	// fields are the properties, sorted by name, each marked when
	// required; others are the required names that are not properties.
	// object looks each up instead of walking the value's map.
	fields     []field
	others     []string
	additional *quick // nil: any other property is allowed
	closed     bool   // additionalProperties false
	items      *quick
	ref        *quick
}

type field struct {
	name     string
	q        *quick
	required bool
}

// quickFields are the fields of the library's Schema the quick path
// understands (or that do not constrain a value). A schema that sets any
// other exported field has no quick matcher, so a keyword added to the
// library later cannot be skipped by mistake.
var quickFields = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true,
	"Bool": true, "Ref": true, "Types": true, "Enum": true,
	"Required": true, "Properties": true, "AdditionalProperties": true, "Items2020": true,
	"Title": true, "Description": true, "Default": true, "Comment": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true, "Deprecated": true,
}

// quickOf builds the quick matcher of s, or nil when s uses a keyword
// beyond the subset. memo holds the matchers built (and being built:
// recursive schemas refer to themselves).
func quickOf(s *jsonschema.Schema, memo map[*jsonschema.Schema]*quick) *quick {
	if s == nil {
		return nil
	}
	if q, ok := memo[s]; ok {
		return q
	}
	rv := reflect.ValueOf(s).Elem()
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Type().Field(i)
		if f.IsExported() && !quickFields[f.Name] && !rv.Field(i).IsZero() {
			memo[s] = nil
			return nil
		}
	}
	if s.Bool != nil {
		if !*s.Bool {
			memo[s] = nil // false: nothing is valid, the library says so
			return nil
		}
		q := &quick{any: true}
		memo[s] = q
		return q
	}
	q := &quick{required: s.Required}
	memo[s] = q
	ok := true
	if s.Types != nil {
		q.types = s.Types.ToStrings()
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			switch v.(type) {
			case string, bool, nil:
			default:
				ok = false // numbers compare as the library compares them: leave them to it
			}
		}
		q.enum = s.Enum.Values
	}
	sub := func(s *jsonschema.Schema) *quick {
		c := quickOf(s, memo)
		if c == nil {
			ok = false
		}
		return c
	}
	if s.Ref != nil {
		q.ref = sub(s.Ref)
	}
	for name, ps := range s.Properties {
		q.fields = append(q.fields, field{name: name, q: sub(ps), required: slices.Contains(q.required, name)})
	}
	slices.SortFunc(q.fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		q.closed = !a
	case *jsonschema.Schema:
		q.additional = sub(a)
	default:
		ok = false
	}
	if s.Items2020 != nil {
		q.items = sub(s.Items2020)
	}
	if !ok {
		memo[s] = nil
		return nil
	}
	for _, r := range q.required {
		if _, ok := s.Properties[r]; !ok {
			q.others = append(q.others, r)
		}
	}
	return q
}

// accepts reports whether v is certainly valid. false says nothing. It
// charges m a unit a value it looks at, and answers false once the budget
// is spent (m.err says so).
func (q *quick) accepts(v any, depth int, m *meter) bool {
	if q == nil || depth > maxDepth || !m.charge(1) {
		return false
	}
	if q.any {
		return true
	}
	if q.ref != nil && !q.ref.accepts(v, depth+1, m) {
		return false
	}
	kind, ok := quickKind(v)
	if !ok {
		return false
	}
	if q.types != nil && !slices.ContainsFunc(q.types, func(t string) bool { return kindIs(kind, t, v) }) {
		return false
	}
	if q.enum != nil && !slices.Contains(q.enum, v) {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		return object(q, x, depth, m)
	case map[string]string:
		return object(q, x, depth, m)
	case []any:
		return list(q, x, depth, m)
	case []string:
		return list(q, x, depth, m)
	case []map[string]any:
		return list(q, x, depth, m)
	}
	return true
}

// list and object are generic over the element type, not given closures
// over the value: a closure passed on to a function value escapes, and
// every object checked cost its allocations.
func list[E any](q *quick, x []E, depth int, m *meter) bool {
	if q.items == nil {
		return true
	}
	for _, it := range x {
		if !q.items.accepts(it, depth+1, m) {
			return false
		}
	}
	return true
}

func object[V any](q *quick, x map[string]V, depth int, m *meter) bool {
	for _, r := range q.others {
		if _, ok := x[r]; !ok {
			return false
		}
	}
	// Each property is looked up; the map is walked only when it holds
	// keys the properties do not name, and only if that matters.
	matched := 0
	for i := range q.fields {
		f := &q.fields[i]
		v, ok := x[f.name]
		if !ok {
			if f.required {
				return false
			}
			continue
		}
		matched++
		if !f.q.accepts(v, depth+1, m) {
			return false
		}
	}
	switch {
	case matched == len(x):
		return true
	case q.closed:
		return false
	case q.additional == nil:
		return true
	}
	for k, v := range x {
		if !q.hasField(k) && !q.additional.accepts(v, depth+1, m) {
			return false
		}
	}
	return true
}

// hasField reports whether name is one of q's properties.
func (q *quick) hasField(name string) bool {
	_, ok := slices.BinarySearchFunc(q.fields, name, func(f field, name string) int { return strings.Compare(f.name, name) })
	return ok
}

// quickKind is the JSON kind of the Go values the quick path reads as
// they are; ok is false for any other value (a struct, a named type, a
// pointer, NaN), which goes to the library. A nil list or map is null, as
// encoding/json writes it.
func quickKind(v any) (kind string, ok bool) {
	switch x := v.(type) {
	case nil:
		return "null", true
	case string:
		return "string", true
	case bool:
		return "boolean", true
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "integer", true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return "number", true
	case []any:
		if x == nil {
			return "", false
		}
		return "array", true
	case []string:
		if x == nil {
			return "", false
		}
		return "array", true
	case []map[string]any:
		if x == nil {
			return "", false
		}
		return "array", true
	case map[string]any:
		if x == nil {
			return "", false
		}
		return "object", true
	case map[string]string:
		if x == nil {
			return "", false
		}
		return "object", true
	}
	return "", false
}

// kindIs reports whether a value of kind matches the schema type t: an
// integer is a number, and a number with no fraction is an integer.
func kindIs(kind, t string, v any) bool {
	switch {
	case kind == t:
		return true
	case t == "number":
		return kind == "integer"
	case t == "integer" && kind == "number":
		f := v.(float64)
		return f == math.Trunc(f)
	}
	return false
}
