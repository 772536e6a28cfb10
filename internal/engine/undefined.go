package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

// Undefined values, strict and lenient. A template compiled with
// Options.Strict renders as Jinja2 with StrictUndefined: a name, key,
// attribute or item that is not there is an undefined value that may be
// asked about — tested with "is defined", given a default(…), probed with
// "in" and .get — but that is an error as soon as it is used: printed,
// iterated, tested for truth, compared, concatenated, or passed to a
// filter, test or method that does not take undefined values (each
// builtin says whether it does: builtinDef.undef).
//
// Strictness travels with the value: a strict undefined value carries
// where it came from (a *missing in its ref), a lenient one nothing. So
// the few central places that consume a value — print, truth, iteration,
// equality and order, str(), a builtin's call — check only that, and a
// value Jinja leaves lenient even under StrictUndefined (the result of an
// inline if without else) stays lenient here too. The *missing is made
// only in a strict render and only on a miss: a render that finds what it
// looks up builds nothing more.

// missing says where a strict undefined value comes from: the lookup
// that failed (its site, the expression as written, the value looked
// into and the name not found in it), or why there is no value.
type missing struct {
	at   *site
	what string // the expression as written: d.nmae, xs[5]
	base Value  // the value looked into; its Kind is Undefined when there was none
	name Value  // the key, attribute or index not found
	attr bool   // name was looked up as an attribute (x.name)
	hint string // why there is no value, when no lookup failed
}

// strictUndefined is the undefined value m describes.
func strictUndefined(m *missing) Value { return Value{k: Undefined, ref: m} }

// undefinedOf returns what a strict undefined value came from, or nil for
// any other value (a lenient undefined one included).
func undefinedOf(v Value) *missing {
	if v.k != Undefined {
		return nil
	}
	m, _ := v.ref.(*missing)
	return m
}

// miss is the value of a failed lookup of name in base: undefined, and in
// a strict render the strict undefined value that says where.
func (st *state) miss(at *site, what string, base, name Value, attr bool) Value {
	if !st.strict {
		return undefined
	}
	return strictUndefined(&missing{at: at, what: what, base: base, name: name, attr: attr})
}

// undefinedError is the use of a strict undefined value.
type undefinedError struct {
	m   *missing
	use string // what was done with it: "printed", "tested for truth", …
}

func (e *undefinedError) Error() string {
	what := e.m.what
	if what == "" {
		what = "a value"
	}
	msg := what + " is undefined"
	if e.use != "" {
		msg += ", so it cannot be " + e.use
	}
	if d := e.detail(); d != "" {
		msg += ": " + d
	}
	if s := e.suggestion(); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// detail says what the value looked into is, or why there is no value.
func (e *undefinedError) detail() string {
	m := e.m
	if m.hint != "" {
		return m.hint
	}
	if m.base.k == Undefined {
		return ""
	}
	of := baseExpr(m.what)
	if of == "" {
		of = "the value"
	}
	d := of + " is " + describe(m.base)
	if _, ok := m.base.ref.(hostStruct); ok && m.name.k == String && slices.Contains(namesOf(m.base), m.name.s) {
		d += fmt.Sprintf(", whose field %s is left out when it is empty (omitempty, omitzero)", m.name.s)
	}
	return d
}

// suggestion is the name of the value's keys or attributes the missing
// one may misspell (suggest.Closest, the rule of every "did you mean").
func (e *undefinedError) suggestion() string {
	m := e.m
	if m.hint != "" || m.name.k != String {
		return ""
	}
	return suggest.Closest(m.name.s, namesOf(m.base))
}

// parts are what a host shows apart: the expression as written, what
// its base value is, and the suggested name.
func (e *undefinedError) parts() (expr, value, suggest string) {
	if e.m.base.k != Undefined {
		value = describe(e.m.base)
	}
	return e.m.what, value, e.suggestion()
}

// baseExpr is the expression a lookup looked into: d of d.nmae, xs of
// xs[5]; "" when what is not a lookup.
func baseExpr(what string) string {
	if strings.Contains(what, " ") {
		return "" // a description, not an expression
	}
	depth := 0
	for i := len(what) - 1; i >= 0; i-- {
		switch what[i] {
		case ']', ')':
			depth++
		case '[', '(':
			depth--
			if depth == 0 && what[i] == '[' && i > 0 {
				return what[:i]
			}
		case '.':
			if depth == 0 && i > 0 {
				return what[:i]
			}
		}
	}
	return ""
}

// maxDescribed bounds the keys a description lists.
const maxDescribed = 12

// describe says what a value is, for a message: "a dict with keys name,
// tags", "a list of 3 items", "an integer (5)".
func describe(v Value) string {
	switch v.k {
	case Undefined:
		return "undefined"
	case None:
		return "None"
	case Bool:
		if v.n != 0 {
			return "a boolean (True)"
		}
		return "a boolean (False)"
	case Int, Float:
		s, _ := strString(v)
		if v.k == Int {
			return "an integer (" + s + ")"
		}
		return "a float (" + s + ")"
	case String:
		n := runeCount(v.s)
		if n <= 40 {
			return "a string (" + pyQuote(v.s) + ")"
		}
		return fmt.Sprintf("a string of %d characters", n)
	case List, Tuple:
		kind := "list"
		if v.k == Tuple {
			kind = "tuple"
		}
		switch n := seqLen(v); n {
		case 0:
			return "an empty " + kind
		case 1:
			return "a " + kind + " of 1 item"
		default:
			return fmt.Sprintf("a %s of %d items", kind, n)
		}
	case Dict:
		names := namesOf(v)
		if len(names) == 0 && length(v) == 0 {
			return "an empty dict"
		}
		return "a dict with keys " + listNames(names, length(v))
	}
	switch o := v.ref.(type) {
	case *namespace:
		if o.attrs.Len() == 0 {
			return "an empty namespace"
		}
		return "a namespace with attributes " + listNames(namesOf(v), o.attrs.Len())
	case *loopObj:
		return "the loop variable"
	case hostStruct:
		return "a " + o.v.Type().String() + " with fields " + listNames(namesOf(v), len(namesOf(v)))
	}
	return "a " + typeName(v)
}

// listNames lists names, at most maxDescribed of them, of n in all.
func listNames(names []string, n int) string {
	if len(names) > maxDescribed {
		names = names[:maxDescribed]
	}
	s := strings.Join(names, ", ")
	if n > len(names) {
		s += fmt.Sprintf(" and %d more", n-len(names))
	}
	return s
}

// namesOf are the keys and attributes of a value a missing name may have
// meant: a dict's string keys (in its order), a namespace's attributes,
// a struct's fields, the loop variable's attributes, a string's methods.
func namesOf(v Value) []string {
	switch v.k {
	case Dict:
		var out []string
		for _, k := range dictKeys(v) {
			if k.k == String {
				out = append(out, k.s)
			}
		}
		return out
	case String:
		var out []string
		for n, m := range tables().methods {
			if m.str != nil && m.str.refused == "" {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	case Object:
		switch o := v.ref.(type) {
		case *namespace:
			var out []string
			for _, k := range o.attrs.keys {
				out = append(out, k.s)
			}
			return out
		case *loopObj:
			return slices.Clone(loopAttrs)
		case hostStruct:
			return o.fieldNames()
		}
	}
	return nil
}

// undefinedUse is the error of using v, a strict undefined value, as use
// says; nil when v is any other value.
func undefinedUse(v Value, use string) error {
	if m := undefinedOf(v); m != nil {
		return &undefinedError{m: m, use: use}
	}
	return nil
}

// mustUse stops the render when v is a strict undefined value: the
// error is placed at the lookup that made v, else at at.
func (st *state) mustUse(at *site, v Value, use string) {
	if m := undefinedOf(v); m != nil {
		panic(failure{at: at, err: &undefinedError{m: m, use: use}})
	}
}
