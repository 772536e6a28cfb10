package schema_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/schema"
)

// defaultWork is the engine's default work budget, WithMaxWork's.
const defaultWork = 50_000_000

// doubling passes the shape limits (five subschemas, recursive through
// its items) yet, on a list nested n deep whose innermost list is empty,
// applies 2^n subschemas: each level tries both alternatives of its anyOf.
const doubling = `{"$defs": {
	"n": {"anyOf": [{"$ref": "#/$defs/m"}, {"$ref": "#/$defs/m"}]},
	"m": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/n"}}},
  "$ref": "#/$defs/n"}`

func nestedLists(n int) any {
	var v any = []any{}
	for range n {
		v = []any{v}
	}
	return v
}

// A validation whose work is beyond the budget is refused before the
// library starts: without the count, each of these runs for hours or
// exhausts memory.
func TestBudgetRefusesBeforeTheLibrary(t *testing.T) {
	long := strings.Repeat("ab", 500_000)
	for _, tt := range []struct {
		name, schema string
		value        any
	}{
		{"alternatives doubling at each level", doubling, nestedLists(48)},
		{"a number of a million digits against maximum", `{"type": "integer", "maximum": 10}`, json.Number(strings.Repeat("9", 1_000_000))},
		{"a number with a billion-digit exponent", `{"type": "number", "maximum": 10}`, json.Number("1e1000000000")},
		{"a complex pattern against a long string", `{"type": "string", "pattern": "^(a|b|ab|ba)*[a-z]{1,1000}x$"}`, long},
		{"a wide object through many subschemas", `{"allOf": [` + strings.Repeat(`{"additionalProperties": {"minLength": 2}}, `, 99) + `{}]}`, wideObject(100_000, 8)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := compile(t, tt.schema, nil)
			b := &schema.Budget{Work: defaultWork}
			vs, err := s.Validate("v", tt.value, b)
			require.ErrorIs(t, err, schema.ErrWork)
			assert.Nil(t, vs)
			assert.Negative(t, b.Work, "the budget is spent")
		})
	}
}

// wideObject has n properties with keys of at least size bytes, all "v".
func wideObject(n, size int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[strings.Repeat("k", size)+strconv.Itoa(i)] = "v"
	}
	return m
}

// The same schemas validate the values they are for, within the budget,
// and say what is wrong with the others.
func TestBudgetValidatesWithin(t *testing.T) {
	s := compile(t, doubling, nil)
	b := &schema.Budget{Work: defaultWork}
	vs, err := s.Validate("v", nestedLists(8), b)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, "v", vs[0].Path)
	assert.Less(t, len(vs[0].Msg), 1000, "nested alternatives' messages are quoted shortened, not doubled at each level")
	assert.Less(t, b.Work, int64(defaultWork), "the work is charged")

	s = compile(t, `{"type": "integer", "maximum": 10}`, nil)
	vs, err = s.Validate("n", json.Number("123456789012345678901234567890"), &schema.Budget{Work: defaultWork})
	require.NoError(t, err)
	assert.Equal(t, []schema.Violation{{Path: "n", Msg: "maximum: got 1.2345678901234568\u202f×\u202f10²⁹, want 10"}}, vs)

	s = compile(t, `{"type": "string", "pattern": "^[a-z]{1,1000}x$"}`, nil)
	vs, err = s.Validate("p", strings.Repeat("a", 5000), &schema.Budget{Work: defaultWork})
	require.NoError(t, err)
	assert.Equal(t, []schema.Violation{{Path: "p", Msg: `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa… does not match the pattern "^[a-z]{1,1000}x$"`}}, vs, "the value is quoted shortened")
}

// Violations under long keys quote the keys shortened: the paths of a
// thousand violations under one key of half a megabyte do not repeat it.
func TestBudgetLongKeys(t *testing.T) {
	s := compile(t, `{"additionalProperties": {"additionalProperties": {"type": "string", "minLength": 2}}}`, nil)
	long := strings.Repeat("é", 250_000)
	vs, err := s.Validate("v", map[string]any{long: wideObject(1000, 1)}, &schema.Budget{Work: defaultWork})
	require.NoError(t, err)
	require.Len(t, vs, 1000)
	assert.Equal(t, `v["`+strings.Repeat("é", 32)+`…"].k0`, vs[0].Path)
	assert.Equal(t, `v["`+strings.Repeat("é", 32)+`…"].k999`, vs[999].Path, "sorted as people read numbers")
}

// The quick path is charged too: a long list of the right type is
// refused by a small budget.
func TestBudgetQuickPath(t *testing.T) {
	s := compile(t, `{"type": "array", "items": {"type": "string"}}`, nil)
	list := make([]any, 100_000)
	for i := range list {
		list[i] = "x"
	}
	b := &schema.Budget{Work: 1000}
	_, err := s.Validate("l", list, b)
	require.ErrorIs(t, err, schema.ErrWork)

	b = &schema.Budget{Work: defaultWork}
	vs, err := s.Validate("l", list, b)
	require.NoError(t, err)
	assert.Nil(t, vs)
	assert.Equal(t, int64(defaultWork-len(list)-1), b.Work, "a unit a value looked at")
}

// A validation ends when its context does: at once when it is already
// done, and at the deadline while it counts a validation too large for
// any deadline (the work budget here is no bound).
func TestBudgetContext(t *testing.T) {
	s := compile(t, doubling, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Validate("v", nestedLists(3), &schema.Budget{Ctx: ctx, Work: defaultWork})
	require.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = s.Validate("v", nestedLists(60), &schema.Budget{Ctx: ctx, Work: 1 << 62})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// The library panics on a number it cannot parse; with a budget large
// enough to let it try, the panic is the value's violation.
func TestBudgetLibraryPanic(t *testing.T) {
	s := compile(t, `{"type": "number", "maximum": 10}`, nil)
	vs, err := s.Validate("n", json.Number("1e99999999999"), &schema.Budget{Work: 1 << 62})
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Contains(t, vs[0].Msg, "the schema library failed on this value")
}
