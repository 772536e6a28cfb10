package engine

import (
	"fmt"
)

// Jinja's built-in tests (jinja2/tests.py). "x is defined" on a plain name
// is compiled to a slot check (definedX); here it tests a value.

func defineTests(tests, filters map[string]*builtinDef) {
	test1 := func(name string, f func(v Value) bool) *builtinDef {
		return &builtinDef{name: name, fn: func(_ *state, in Value, _ []Value, _ *extra) (Value, error) { return boolValue(f(in)), nil }}
	}
	cmp := func(name, op string) *builtinDef {
		return &builtinDef{name: name, params: []param{req("other")}, fn: func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			return boolValue(compareOp(st, st.at, op, in, a[0])), nil
		}}
	}
	stringTest := func(d *builtinDef) *builtinDef { d.in = kString; return d }
	// The tests that ask about a value's kind or identity take an
	// undefined one in a strict template too (Jinja2's do not use it).
	asks := func(d *builtinDef) *builtinDef { d.undef = true; return d }
	define(tests,
		asks(test1("boolean", func(v Value) bool { return v.k == Bool })),
		asks(test1("callable", func(v Value) bool {
			if v.k == Undefined {
				return true // Jinja's Undefined has a __call__ (that raises)
			}
			switch v.ref.(type) {
			case *macro, *builtin, *boundMethod, *joiner:
				return true
			}
			return false
		})),
		asks(test1("defined", func(v Value) bool { return v.k != Undefined })),
		asks(test1("undefined", func(v Value) bool { return v.k == Undefined })),
		&builtinDef{name: "divisibleby", in: kInt, params: []param{req("num")}, fn: func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			if (in.k == BigInt || a[0].k == BigInt) && in.isInteger() && a[0].isInteger() {
				r, err := bigArith(st, "%", in, a[0])
				return boolValue(err == nil && r.k == Int && r.n == 0), err
			}
			if in.isNumber() && a[0].isNumber() {
				if in.k != Float && a[0].k != Float {
					if a[0].n == 0 {
						return Value{}, fmt.Errorf("divisibleby: integer modulo by zero")
					}
					return boolValue(in.n%a[0].n == 0), nil
				}
				r, err := floatArith("%", toFloat(in), toFloat(a[0]))
				if err != nil {
					return Value{}, err
				}
				return boolValue(r.float() == 0), nil
			}
			return Value{}, fmt.Errorf("divisibleby needs numbers, not %s and %s", typeName(in), typeName(a[0]))
		}},
		cmp("eq", "=="), cmp("ne", "!="), cmp("lt", "<"), cmp("le", "<="), cmp("gt", ">"), cmp("ge", ">="),
		asks(test1("escaped", func(v Value) bool { return v.isMarkup() })),
		&builtinDef{name: "even", in: kInt, fn: func(_ *state, in Value, _ []Value, _ *extra) (Value, error) {
			r, err := mod2("even", in)
			return boolValue(err == nil && r == 0), err
		}},
		&builtinDef{name: "odd", in: kInt, fn: func(_ *state, in Value, _ []Value, _ *extra) (Value, error) {
			r, err := mod2("odd", in)
			return boolValue(err == nil && r == 1), err
		}},
		asks(test1("false", func(v Value) bool { return v.k == Bool && v.n == 0 })),
		asks(test1("true", func(v Value) bool { return v.k == Bool && v.n == 1 })),
		test1("filter", func(v Value) bool {
			d, ok := filters[v.s]
			return v.k == String && ok && d.refused == ""
		}),
		test1("test", func(v Value) bool {
			d, ok := tests[v.s]
			return v.k == String && ok && d.refused == ""
		}),
		asks(test1("float", func(v Value) bool { return v.k == Float })),
		asks(test1("integer", func(v Value) bool { return v.k == Int || v.k == BigInt })),
		&builtinDef{name: "in", undef: true, params: []param{req("seq")}, fn: func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			ok, err := contains(a[0], in)
			return boolValue(ok), err
		}},
		// Jinja's Undefined iterates as empty and has a length, so it is
		// iterable and a sequence.
		test1("iterable", func(v Value) bool {
			switch v.k {
			case List, Tuple, Dict, String, Undefined:
				return true
			case Object:
				_, ok := v.ref.(hostBytes)
				return ok
			}
			return false
		}),
		stringTest(test1("lower", func(v Value) bool { s, _ := str1(v); return pyIsLower(s) })),
		stringTest(test1("upper", func(v Value) bool { s, _ := str1(v); return pyIsUpper(s) })),
		asks(test1("mapping", func(v Value) bool { return v.k == Dict })),
		asks(test1("none", func(v Value) bool { return v.k == None })),
		asks(test1("number", func(v Value) bool { return v.k == Int || v.k == Float || v.k == Bool || v.k == BigInt })),
		&builtinDef{name: "sameas", undef: true, params: []param{takesUndefined(req("other"))}, fn: func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
			return boolValue(sameAs(in, a[0])), nil
		}},
		// A strict undefined value has no length, so it is no sequence
		// (Jinja's test catches the error its len() raises).
		asks(test1("sequence", func(v Value) bool {
			return v.k == List || v.k == Tuple || v.k == Dict || v.k == String || (v.k == Undefined && v.ref == nil)
		})),
		asks(test1("string", func(v Value) bool { return v.k == String })),
	)
	alias(tests, "==", "eq")
	alias(tests, "equalto", "eq")
	alias(tests, "!=", "ne")
	alias(tests, "<", "lt")
	alias(tests, "lessthan", "lt")
	alias(tests, "<=", "le")
	alias(tests, ">", "gt")
	alias(tests, "greaterthan", "gt")
	alias(tests, ">=", "ge")
}

// mod2 is value % 2, which Jinja's even and odd compare with 0 and 1: a
// float may be even (2.0) or odd (3.0), or neither (2.5).
func mod2(test string, v Value) (float64, error) {
	switch v.k {
	case Int, Bool:
		return float64(v.n & 1), nil
	case BigInt:
		return float64(toBig(v).Bit(0)), nil
	case Float:
		r, err := floatArith("%", v.float(), 2)
		return r.float(), err
	}
	return 0, fmt.Errorf("%s needs a number, not %s", test, typeName(v))
}

// sameAs is Python's "is": the same object, or the same singleton.
func sameAs(a, b Value) bool {
	switch a.k {
	case None, Undefined:
		return a.k == b.k
	case Bool:
		return b.k == Bool && a.n == b.n
	case Int:
		// CPython caches small integers; beyond them "is" is identity,
		// which two computed integers rarely share.
		return b.k == Int && a.n == b.n && a.n >= -5 && a.n <= 256
	case String:
		return b.k == String && a.s == b.s
	}
	return sameRef(a, b)
}
