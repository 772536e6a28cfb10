package schema

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
)

// Validation under a budget. A value is validated under the render's
// work budget and context: the quick path charges one unit a value it
// looks at; before the library runs (it takes no context and cannot be
// stopped), the work it would do is counted — every subschema it would
// apply to every part of the value, and what each costs: a pattern
// matched, a number parsed, an enum compared — and charged. A
// validation beyond the budget is refused before the library starts, so
// it is stopped, not reported late. The count is an upper bound (every
// subschema that may apply is counted) and takes less time than the
// validation it stands for; the shape limits at load (shape.go) keep it
// from being exponential in the schema.

// Budget bounds one validation.
type Budget struct {
	// Ctx, when not nil, ends the validation when it is done (checked
	// while counting, and before and after the library runs).
	Ctx context.Context
	// Work is the units left, in the engine's units (WithMaxWork):
	// Validate subtracts what it spends.
	Work int64
}

// ErrWork is returned by Validate when validating the value would spend
// more than its budget's work.
var ErrWork = errors.New("schema: validating the value would exceed the work budget")

// The costs, in the engine's work units (about what the engine does in
// the time). One subschema applied by the library costs about a
// microsecond (it allocates its state and its errors).
const (
	applyCost  = 128     // one subschema applied to one value by the library
	checkEvery = 1 << 16 // units between two looks at the context
)

// meter spends a budget's work. It holds the budget's fields by value
// (Validate writes the work left back): a pointer to the Budget kept in
// it would make every caller's Budget escape to the heap.
type meter struct {
	work int64
	ctx  context.Context
	next int64 // look at the context when the work left falls below it
	err  error
}

func newMeter(b *Budget) meter {
	return meter{work: b.Work, ctx: b.Ctx, next: b.Work - checkEvery}
}

// charge spends n units; false when the budget is spent or the context
// done (m.err says which).
func (m *meter) charge(n int64) bool {
	if m.err != nil {
		return false
	}
	m.work -= n
	if m.work < 0 {
		m.err = ErrWork
		return false
	}
	if m.work < m.next {
		m.next = m.work - checkEvery
		return m.live()
	}
	return true
}

// live reports whether the budget's context is still going.
func (m *meter) live() bool {
	if m.err == nil && m.ctx != nil {
		m.err = m.ctx.Err()
	}
	return m.err == nil
}

// library counts what the library does to validate v against s and
// charges it; false when the budget runs out first.
func (m *meter) library(s *jsonschema.Schema, v any) bool {
	if !m.charge(applyCost + width(v)) {
		return false
	}
	if s.Bool != nil {
		return true
	}
	if !m.keywords(s, v) {
		return false
	}
	ok := true
	apply := func(c *jsonschema.Schema, v any) {
		ok = ok && m.library(c, v)
	}
	switch x := v.(type) {
	case map[string]any:
		for k, pv := range x {
			if !ok {
				return false
			}
			if c, found := s.Properties[k]; found {
				apply(c, pv)
			}
			for re, c := range s.PatternProperties {
				ok = ok && m.charge(matchCost(re, k))
				apply(c, pv) // whether it matches or not: an upper bound
			}
			if c, isSchema := s.AdditionalProperties.(*jsonschema.Schema); isSchema {
				apply(c, pv)
			}
			if s.UnevaluatedProperties != nil {
				apply(s.UnevaluatedProperties, pv)
			}
			if s.PropertyNames != nil {
				apply(s.PropertyNames, k)
			}
		}
	case []any:
		for i, it := range x {
			if !ok {
				return false
			}
			switch items := s.Items.(type) {
			case *jsonschema.Schema:
				apply(items, it)
			case []*jsonschema.Schema:
				if i < len(items) {
					apply(items[i], it)
				}
			}
			if c, isSchema := s.AdditionalItems.(*jsonschema.Schema); isSchema {
				apply(c, it)
			}
			if i < len(s.PrefixItems) {
				apply(s.PrefixItems[i], it)
			}
			for _, c := range []*jsonschema.Schema{s.Items2020, s.Contains, s.UnevaluatedItems} {
				if c != nil {
					apply(c, it)
				}
			}
		}
	}
	sameEdges(s, func(c *jsonschema.Schema) { apply(c, v) })
	return ok
}

// keywords charges what s's own keywords cost on v (its subschemas
// aside), each as it is counted; false when the budget runs out.
func (m *meter) keywords(s *jsonschema.Schema, v any) bool {
	if s.Types != nil && v != nil && slices.Contains(s.Types.ToStrings(), "integer") && !m.charge(numberCost(v)) {
		return false // an integer is told by parsing the number
	}
	if s.Const != nil && !m.charge(m.equalCost(v, *s.Const)) {
		return false
	}
	if s.Enum != nil {
		for _, e := range s.Enum.Values {
			if !m.charge(m.equalCost(v, e)) {
				return false
			}
		}
	}
	switch x := v.(type) {
	case string:
		n := int64(1)
		if s.Format != nil {
			n += int64(len(x)) / 8
		}
		if s.MinLength != nil || s.MaxLength != nil {
			n += int64(len(x)) / 64
		}
		if s.Pattern != nil {
			n = sat(n, matchCost(s.Pattern, x))
		}
		return m.charge(n)
	case map[string]any:
		n := int64(len(s.Required))
		for _, d := range s.Dependencies {
			if names, ok := d.([]string); ok {
				n += int64(len(names))
			}
		}
		for _, names := range s.DependentRequired {
			n += int64(len(names))
		}
		return m.charge(n)
	case []any:
		if s.UniqueItems && len(x) > 1 {
			// Each item is hashed (compared with each earlier one when
			// there are 20 or fewer).
			times := int64(2)
			if len(x) <= 20 {
				times = int64(len(x))
			}
			for _, it := range x {
				if !m.charge(times * m.deep(it, m.work)) {
					return false
				}
			}
		}
	default:
		if s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil {
			return m.charge(sat(numberCost(v), 2*numberCost(v)))
		}
	}
	return true
}

// equalCost is what comparing a value to a schema's const or enum value
// costs: a deep comparison when they are containers of one size.
func (m *meter) equalCost(v, e any) int64 {
	switch x := v.(type) {
	case map[string]any:
		if y, ok := e.(map[string]any); ok && len(x) == len(y) {
			return m.deep(v, m.work)
		}
	case []any:
		if y, ok := e.([]any); ok && len(x) == len(y) {
			return m.deep(v, m.work)
		}
	case string:
		return int64(len(x))/64 + 1
	}
	if isNumber(v) && isNumber(e) {
		return sat(numberCost(v), numberCost(e))
	}
	return 1
}

// deep is what reading the whole of v costs (hashing or comparing it),
// counted no further than limit.
func (m *meter) deep(v any, limit int64) int64 {
	switch x := v.(type) {
	case map[string]any:
		n := int64(1)
		for k, it := range x {
			if n > limit {
				break
			}
			n = sat(n, int64(len(k))/64+1+m.deep(it, limit-n))
		}
		return n
	case []any:
		n := int64(1)
		for _, it := range x {
			if n > limit {
				break
			}
			n = sat(n, m.deep(it, limit-n))
		}
		return n
	case string:
		return int64(len(x))/64 + 1
	}
	return numberCost(v)
}

// width is what the library does with the items or properties of a
// container each time it applies a subschema to it (it copies the keys to
// track which it evaluated, and hashes them), 0 for a scalar.
func width(v any) int64 {
	switch x := v.(type) {
	case map[string]any:
		n := int64(0)
		for k := range x {
			n += 2 + int64(len(k))/64
		}
		return n
	case []any:
		return int64(len(x))
	}
	return 0
}

// matchCost is what matching s against a pattern costs: Go's regexp runs
// in time linear in the string, at most the program's size a byte.
func matchCost(re jsonschema.Regexp, s string) int64 {
	insts := int64(MaxPatternProgram)
	if p, ok := re.(pattern); ok {
		insts = int64(p.insts)
	}
	return sat((int64(len(s))+1)*insts/16, 1)
}

// numberCost is what the library's parsing of a number costs (it reads
// every number as a big.Rat): quadratic in its digits, and linear in its
// exponent for the power of ten it builds. A Go int or float is a few
// digits.
func numberCost(v any) int64 {
	n, ok := v.(json.Number)
	if !ok {
		return 1
	}
	s := string(n)
	digits, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		digits, exp = s[:i], s[i+1:]
	}
	l := int64(len(digits))
	cost := l/32*l/16 + l/16 + 1
	exp = strings.TrimLeft(exp, "+-0")
	switch {
	case len(exp) > 12:
		return math.MaxInt64 / 2 // beyond anything: refused by any budget
	case exp != "":
		var e int64
		for _, c := range exp {
			if c < '0' || c > '9' {
				break
			}
			e = e*10 + int64(c-'0')
		}
		cost = sat(cost, e*16)
	}
	return cost
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// sat adds without overflowing.
func sat(a, b int64) int64 {
	if a > math.MaxInt64/2-b {
		return math.MaxInt64 / 2
	}
	return a + b
}
