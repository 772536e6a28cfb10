package engine

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Compiled expressions. The compiler (compile.go) turns each Jinja
// expression into a tree of these nodes once, at load; a render evaluates
// them directly: names are slots, builtins are bound, constants are
// values. Nothing is looked up by name while rendering, and nothing is
// called by reflection.

type expr interface {
	eval(st *state) Value
}

type constX struct{ v Value }

func (x *constX) eval(*state) Value { return x.v }

// slotX reads a slot of the current activation.
type slotX struct{ slot int }

func (x *slotX) eval(st *state) Value { return st.act.slots[x.slot] }

// outerX reads a slot of an enclosing activation.
type outerX struct{ hops, slot int }

func (x *outerX) eval(st *state) Value {
	a := st.act
	for i := 0; i < x.hops; i++ {
		a = a.parent
	}
	return a.slots[x.slot]
}

type attrX struct {
	at     site
	x      expr
	name   string
	what   string // the expression x, for messages
	full   string // the whole expression, x.name
	method bool   // name is a dict method: on a dict, x.name is the method, as in Python, never the key
	// quiet: the attribute is the input of a builtin that answers alike
	// for every undefined value (x.note | default("none")): a miss is a
	// plain undefined value, without the record of why it is missing.
	quiet bool
	// slot >= 0: x is that slot of the current activation (a slotX), read
	// in place (item.title, message.role: most attributes a template reads).
	slot int32
}

func (x *attrX) eval(st *state) Value {
	// v is the value looked into: a slot's, read in place, or x's.
	var v *Value
	if x.slot >= 0 {
		v = &st.act.slots[x.slot]
	} else {
		xv := x.x.eval(st)
		v = &xv
	}
	if v.k == Dict && !x.method {
		switch d := v.ref.(type) {
		case *OrderedDict: // decoded JSON (a chat template's message.role)
			if r, ok := d.getString(x.name); ok && r.k != Undefined {
				return r
			}
		case map[string]any: // a host's JSON data
			if r, ok := d[x.name]; ok {
				if s, ok := r.(string); ok { // what most attributes a prompt prints are
					return strValue(s)
				}
				return FromGo(r)
			}
			return x.miss(st, *v)
		}
	}
	st.at = &x.at
	r, err := getAttr(*v, x.name)
	if err != nil {
		st.fail(&x.at, undefinedAttr(*v, x.what, x.name, err))
	}
	if r.k == Undefined && r.ref == nil {
		return x.miss(st, *v)
	}
	return r
}

// miss is the value of x.name not found in v.
func (x *attrX) miss(st *state, v Value) Value {
	if !st.strict || x.quiet {
		return undefined
	}
	m := &missing{at: &x.at, what: x.full, base: v, name: strValue(x.name), attr: true}
	if l, ok := v.ref.(*loopObj); ok {
		switch {
		case x.name == "previtem" && l.index == 0:
			m.base, m.hint = undefined, "there is no previous item: this is the loop's first iteration"
		case x.name == "nextitem":
			m.base, m.hint = undefined, "there is no next item: this is the loop's last iteration"
		}
	}
	return strictUndefined(m)
}

func undefinedAttr(v Value, what, name string, err error) error {
	if errors.Is(err, errUndefinedUse) {
		if ue := undefinedUse(v, fmt.Sprintf("looked into for its attribute %q", name)); ue != nil {
			return ue
		}
		return fmt.Errorf("%s is undefined, so it has no attribute %q", what, name)
	}
	return err
}

type itemX struct {
	at   site
	x    expr
	key  expr
	what string // the expression x, for messages
	full string // the whole expression, x[key]
}

func (x *itemX) eval(st *state) Value {
	v := x.x.eval(st)
	if d, ok := v.ref.(*OrderedDict); ok && v.k == Dict {
		// message['role']: a constant key found needs no key value.
		if c, ok := x.key.(*constX); ok && c.v.k == String {
			if r, ok := d.getString(c.v.s); ok && r.k != Undefined {
				return r
			}
		}
	}
	k := x.key.eval(st)
	st.at = &x.at
	r, err := getItem(v, k)
	if err != nil {
		if errors.Is(err, errUndefinedUse) {
			ks, _ := reprString(k)
			if ue := undefinedUse(v, "looked into for its item "+ks); ue != nil {
				st.fail(&x.at, ue)
			}
			st.fail(&x.at, fmt.Errorf("%s is undefined, so it has no item %s", x.what, ks))
		}
		st.fail(&x.at, err)
	}
	if r.k == Undefined && r.ref == nil && st.strict {
		st.mustUse(&x.at, k, "used as a key")
		return st.miss(&x.at, x.full, v, k, false)
	}
	return r
}

type sliceX struct {
	at                site
	x                 expr
	start, stop, step expr // nil when absent
}

func (x *sliceX) eval(st *state) Value {
	v := x.x.eval(st)
	ev := func(e expr) Value {
		if e == nil {
			return none
		}
		return e.eval(st)
	}
	r, err := slice(st, v, ev(x.start), ev(x.stop), ev(x.step))
	st.check(&x.at, err)
	return r
}

type listX struct {
	at    site
	items []expr
	tuple bool
}

func (x *listX) eval(st *state) Value {
	st.check(&x.at, st.chargeItems(len(x.items)))
	out := make([]Value, len(x.items))
	for i, it := range x.items {
		out[i] = it.eval(st)
	}
	if x.tuple {
		return tupleValue(out)
	}
	return listValue(out)
}

type dictX struct {
	at         site
	keys, vals []expr
}

func (x *dictX) eval(st *state) Value {
	st.check(&x.at, st.chargeItems(2*len(x.keys)))
	d := NewOrderedDict()
	for i := range x.keys {
		k := x.keys[i].eval(st)
		if !d.Set(k, x.vals[i].eval(st)) {
			st.mustUse(&x.at, k, "used as a dict key")
			t := unhashable(k)
			if t == "" {
				t = typeName(k)
			}
			st.fail(&x.at, fmt.Errorf("unhashable type: '%s' cannot be a dict key", t))
		}
	}
	return DictValue(d)
}

// A boolExpr is an expression whose value is always a boolean (a
// comparison, a test, a not): an {% if %} asks it for the answer without
// making the value and testing its truth.
type boolExpr interface {
	expr
	test(st *state) bool
}

type notX struct {
	at site
	x  expr
}

func (x *notX) eval(st *state) Value { return boolValue(x.test(st)) }
func (x *notX) test(st *state) bool  { return !st.truth(&x.at, x.x.eval(st)) }

type negX struct {
	at  site
	x   expr
	neg bool // - rather than +
}

func (x *negX) eval(st *state) Value {
	v := x.x.eval(st)
	switch v.k {
	case Int, Bool:
		if !x.neg {
			return intValue(v.n)
		}
		if v.n == -1<<63 {
			return bigValue(new(big.Int).Neg(toBig(v)))
		}
		return intValue(-v.n)
	case BigInt:
		if !x.neg {
			return v
		}
		return bigValue(new(big.Int).Neg(toBig(v)))
	case Float:
		if x.neg {
			return floatValue(-v.float())
		}
		return v
	}
	op := "-"
	if !x.neg {
		op = "+"
	}
	if v.k == Undefined {
		st.mustUse(&x.at, v, "used in unary "+op)
		st.fail(&x.at, fmt.Errorf("unary %s of an undefined value", op))
	}
	st.fail(&x.at, fmt.Errorf("bad operand type for unary %s: %s", op, typeName(v)))
	return Value{}
}

// andX and orX return an operand, as Python's and/or do.
type andX struct {
	at   site
	l, r expr
}

func (x *andX) eval(st *state) Value {
	if l := x.l.eval(st); !st.truth(&x.at, l) {
		return l
	}
	return x.r.eval(st)
}

type orX struct {
	at   site
	l, r expr
}

func (x *orX) eval(st *state) Value {
	if l := x.l.eval(st); st.truth(&x.at, l) {
		return l
	}
	return x.r.eval(st)
}

// boolLogicX is "and" or "or" of two boolean expressions: its value is
// the boolean the two give (the one of them "and" or "or" returns).
type boolLogicX struct {
	l, r boolExpr
	or   bool
}

func (x *boolLogicX) eval(st *state) Value { return boolValue(x.test(st)) }

func (x *boolLogicX) test(st *state) bool {
	if x.or {
		return x.l.test(st) || x.r.test(st)
	}
	return x.l.test(st) && x.r.test(st)
}

type binX struct {
	at   site
	op   string
	l, r expr
}

func (x *binX) eval(st *state) Value {
	a, b := x.l.eval(st), x.r.eval(st)
	return binary(st, &x.at, x.op, a, b)
}

// binary is a op b, for the construct at at (a binX, a step of a chain).
func binary(st *state, at *site, op string, a, b Value) Value {
	if a.k == Int && b.k == Int {
		switch op { // the common integer cases, without the general path
		case "+":
			if r := a.n + b.n; (r > a.n) == (b.n > 0) {
				return intValue(r)
			}
		case "-":
			if r := a.n - b.n; (r < a.n) == (b.n > 0) {
				return intValue(r)
			}
		}
	}
	st.at = at
	r, err := arith(st, op, a, b)
	if err != nil {
		if errors.Is(err, errUndefinedUse) {
			err = fmt.Errorf("an undefined value in %s", op)
		}
		st.fail(at, err)
	}
	return r
}

// concatX is a ~ b ~ c: every operand as str(), joined.
type concatX struct {
	at    site
	items []expr
}

func (x *concatX) eval(st *state) Value {
	// Strings, the common operands, are gathered and joined once (see
	// chain.go); from the first operand of another type on, a printer
	// writes what was gathered and prints the rest. Either way a result
	// beyond the budget left at the start is refused as soon as it is.
	limit := st.budgetLeft()
	var buf [8]string
	parts, n := buf[:0], 0
	var p *printer
	st.at = &x.at
	for _, it := range x.items {
		v := it.eval(st)
		if p == nil && v.k == String {
			if n+len(v.s) > limit {
				st.fail(&x.at, st.tooBig(n))
			}
			parts, n = append(parts, v.s), n+len(v.s)
			continue
		}
		if p == nil {
			p = &printer{b: make([]byte, 0, n), limit: limit}
			for _, s := range parts {
				p.b = append(p.b, s...)
			}
		}
		if err := p.str(v); err != nil {
			st.fail(&x.at, st.printErr(err, len(p.b)))
		}
	}
	if p != nil {
		st.check(&x.at, st.charge(len(p.b)))
		return strValue(string(p.b))
	}
	st.check(&x.at, st.charge(n))
	return strValue(strings.Join(parts, ""))
}

// printErr turns a printer's refusal into the render's error.
func (st *state) printErr(err error, n int) error {
	if errors.Is(err, errPrintSize) {
		return st.tooBig(n)
	}
	return err
}

type cmpOp struct {
	op string
	y  expr
}

// compareX is a chained comparison: a < b < c is a < b and b < c, with b
// evaluated once.
type compareX struct {
	at  site
	x   expr
	ops []cmpOp
}

func (x *compareX) eval(st *state) Value { return boolValue(x.test(st)) }

func (x *compareX) test(st *state) bool {
	a := x.x.eval(st)
	for i := range x.ops {
		op := &x.ops[i]
		b := op.y.eval(st)
		if !compareOp(st, &x.at, op.op, a, b) {
			return false
		}
		a = b
	}
	return true
}

func compareOp(st *state, at *site, op string, a, b Value) bool {
	switch op {
	case "==":
		return fastEqual(st, at, a, b)
	case "!=":
		return !fastEqual(st, at, a, b)
	case "in", "notin":
		st.at = at
		in, err := contains(b, a)
		st.check(at, err)
		return in == (op == "in")
	}
	var c int
	switch {
	case a.k == Int && b.k == Int:
		c = cmpInt(a.n, b.n)
	case a.k == String && b.k == String:
		switch {
		case a.s < b.s:
			c = -1
		case a.s > b.s:
			c = 1
		}
	default:
		var err error
		st.at = at
		if c, err = compare(a, b); err != nil {
			var ue *undefinedError
			if (a.k == Undefined || b.k == Undefined) && !errors.As(err, &ue) {
				err = fmt.Errorf("an undefined value compared with %s", op)
			}
			st.fail(at, err)
		}
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func fastEqual(st *state, at *site, a, b Value) bool {
	switch {
	case a.k == String && b.k == String:
		return a.s == b.s
	case a.k == Int && b.k == Int:
		return a.n == b.n
	}
	eq, err := equalDepth(a, b, 0)
	st.check(at, err)
	return eq
}

type condX struct {
	at              site
	test, then, els expr // els nil: undefined (a lenient one, even in a strict template, as in Jinja)
}

func (x *condX) eval(st *state) Value {
	if st.truth(&x.at, x.test.eval(st)) {
		return x.then.eval(st)
	}
	if x.els == nil {
		return undefined
	}
	return x.els.eval(st)
}

// definedX is "name is defined" for a plain name: a slot that holds a
// value. (Any other operand is tested on its value: testX.)
type definedX struct {
	x   expr
	neg bool
}

func (x *definedX) eval(st *state) Value { return boolValue(x.test(st)) }
func (x *definedX) test(st *state) bool  { return (x.x.eval(st).k != Undefined) != x.neg }

// failX is a construct the runtime does not run, let through to fail only
// if a render reaches it (a lenient check's unknown filter or test).
type failX struct {
	at  site
	msg string
}

func (x *failX) eval(st *state) Value {
	st.fail(&x.at, errors.New(x.msg))
	return Value{}
}
