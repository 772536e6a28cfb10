package engine

import (
	"fmt"
)

// Calls: macros, global functions, methods, the loop's recursion and
// methods, joiners and cyclers. A builtin called by name (a filter, a
// global) has its arguments bound at load (builtinCall); anything else is
// bound when it is called.

// globalX calls a global function whose arguments were bound at load.
type globalX struct {
	c builtinCall
}

func (x *globalX) eval(st *state) Value { return x.c.call(st, undefined) }

// filterX applies a filter.
type filterX struct {
	x expr
	c builtinCall
}

func (x *filterX) eval(st *state) Value { return x.c.call(st, x.x.eval(st)) }

// print prints the filter's result ({{ x | f }}, x.c printable).
func (x *filterX) print(st *state, at *site) { x.c.print(st, x.x.eval(st), at) }

// testX applies a test.
type testX struct {
	x   expr
	c   builtinCall
	neg bool
}

func (x *testX) eval(st *state) Value { return boolValue(x.test(st)) }
func (x *testX) test(st *state) bool  { return truthy(x.c.call(st, x.x.eval(st))) != x.neg }

// methodX is recv.name(args): the method of the receiver's type, with the
// arguments bound at load for each type that has the method.
type methodX struct {
	at         site
	recv       expr
	name       string
	str, list  *builtinCall
	dict       *builtinCall
	args       []expr // for receivers of other kinds (macros of a module, …)
	kw         []kwExpr
	dyn, dynkw expr
	what       string
}

func (x *methodX) eval(st *state) Value {
	recv := x.recv.eval(st)
	var c *builtinCall
	switch recv.k {
	case String:
		c = x.str
	case List, Tuple:
		c = x.list
	case Dict:
		c = x.dict
	case Object:
		// A module's macro, a cycler's or joiner's method, loop.cycle…
		st.at = &x.at
		f, err := getAttr(recv, x.name)
		st.check(&x.at, err)
		return callValue(st, &x.at, x.what, f, x.args, x.kw, x.dyn, x.dynkw, undefined)
	}
	if c == nil {
		st.mustUse(&x.at, recv, "called with ."+x.name+"()")
		_, err := methodFor(recv, x.name)
		st.fail(&x.at, err)
	}
	return c.call(st, recv)
}

// callX is fn(args) for anything that is not a global called by name.
type callX struct {
	at         site
	fn         expr
	args       []expr
	kw         []kwExpr
	dyn, dynkw expr
	what       string
}

func (x *callX) eval(st *state) Value { return x.evalWithCaller(st, undefined) }

func (x *callX) evalWithCaller(st *state, caller Value) Value {
	f := x.fn.eval(st)
	return callValue(st, &x.at, x.what, f, x.args, x.kw, x.dyn, x.dynkw, caller)
}

// callValue calls f with arguments evaluated now.
func callValue(st *state, at *site, what string, f Value, args []expr, kw []kwExpr, dyn, dynkw expr, caller Value) Value {
	pos := make([]Value, 0, len(args))
	for _, a := range args {
		pos = append(pos, a.eval(st))
	}
	var kws *OrderedDict
	if len(kw) > 0 || dynkw != nil {
		kws = NewOrderedDict()
		for _, k := range kw {
			kws.SetString(k.name, k.x.eval(st))
		}
	}
	if dyn != nil {
		items, err := values(dyn.eval(st))
		st.check(at, err)
		pos = append(pos, items...)
	}
	if dynkw != nil {
		v := dynkw.eval(st)
		if v.k != Dict {
			st.fail(at, fmt.Errorf("** takes a dict, not %s", typeName(v)))
		}
		for _, k := range dictKeys(v) {
			x, _ := dictGet(v, k)
			kws.Set(k, x)
		}
	}
	st.at = at
	switch o := f.ref.(type) {
	case *macro:
		return o.call(st, at, pos, kws, caller)
	case *builtin:
		a, ex, err := bindArgs(o.def, pos, kws)
		st.check(at, err)
		r, err := o.def.invoke(st, undefined, a, ex)
		st.check(at, err)
		return r
	case *boundMethod:
		return callMethod(st, at, o, pos, kws)
	case *loopObj:
		if !o.def.recursive {
			st.fail(at, fmt.Errorf("loop(…) recurses only in a loop marked recursive"))
		}
		if len(pos) != 1 || kws != nil {
			st.fail(at, fmt.Errorf("loop(…) takes the items to loop over"))
		}
		return o.recurse(st, at, pos[0])
	case *superCall:
		return o.call(st, at)
	case *joiner:
		if o.called {
			return strValue(o.sep)
		}
		o.called = true
		return strValue("")
	}
	if f.k == Undefined {
		st.mustUse(at, f, "called")
		st.fail(at, fmt.Errorf("%s is undefined, so it cannot be called", what))
	}
	st.fail(at, fmt.Errorf("%s (%s) is not callable", what, typeName(f)))
	return Value{}
}

// callMethod calls a bound method read as an attribute.
func callMethod(st *state, at *site, m *boundMethod, pos []Value, kw *OrderedDict) Value {
	switch o := m.recv.ref.(type) {
	case *loopObj:
		switch m.name {
		case "cycle":
			r, err := o.cycle(pos)
			st.check(at, err)
			return r
		case "changed":
			for _, v := range pos {
				st.mustUse(at, v, "given to loop.changed")
			}
			return o.loopChanged(pos)
		}
	case *cycler:
		switch m.name {
		case "next":
			v := o.items[o.pos%len(o.items)]
			o.pos++
			return v
		case "reset":
			o.pos = 0
			return none
		}
	}
	d, err := methodFor(m.recv, m.name)
	st.check(at, err)
	a, ex, err := bindArgs(d, pos, kw)
	st.check(at, err)
	r, err := d.invoke(st, m.recv, a, ex)
	st.check(at, err)
	return r
}

// call runs a macro: a new activation whose parent is the one the macro
// was defined in, its parameters bound, its body's output the result.
func (m *macro) call(st *state, at *site, pos []Value, kw *OrderedDict, caller Value) Value {
	d := m.def
	if st.depth++; st.depth > st.lim.MaxCallDepth {
		st.fail(at, &limitError{fmt.Sprintf("macro calls nested deeper than %d (WithMaxCallDepth): does %s call itself without end?", st.lim.MaxCallDepth, d.name)})
	}
	if err := st.spend(1); err != nil {
		st.fail(at, err)
	}
	act := &activation{slots: make([]Value, d.slots), parent: m.act}
	saved := st.act
	st.act = act
	if d.inits != nil {
		initFrame(st, d.inits)
	}
	var rest []Value
	bound := make([]bool, len(d.params))
	for i, v := range pos {
		if i < len(d.params) {
			act.slots[d.params[i].slot], bound[i] = v, true
			continue
		}
		rest = append(rest, v)
	}
	var extraKw *OrderedDict
	if kw != nil {
		for i, k := range kw.keys {
			j := -1
			for pi, p := range d.params {
				if p.name == k.s {
					j = pi
				}
			}
			switch {
			case j >= 0 && bound[j]:
				st.fail(at, fmt.Errorf("macro %s got two values for argument %q", d.name, k.s))
			case j >= 0:
				act.slots[d.params[j].slot], bound[j] = kw.vals[i], true
			default:
				if extraKw == nil {
					extraKw = NewOrderedDict()
				}
				extraKw.Set(k, kw.vals[i])
			}
		}
	}
	// A parameter not passed takes its default, evaluated now in the
	// macro's scope (it may read the parameters before it), or is
	// undefined, as in Jinja.
	for i, p := range d.params {
		switch {
		case bound[i]:
		case p.def != nil:
			act.slots[p.slot] = p.def.eval(st)
		default:
			act.slots[p.slot] = p.undef
		}
	}
	if rest != nil {
		if d.varargs < 0 {
			st.fail(at, fmt.Errorf("macro %s takes not more than %d arguments", d.name, len(d.params)))
		}
		act.slots[d.varargs] = tupleValue(rest)
	} else if d.varargs >= 0 {
		act.slots[d.varargs] = tupleValue([]Value{})
	}
	if extraKw != nil {
		if d.kwargs < 0 {
			st.fail(at, fmt.Errorf("macro %s takes no keyword argument %q", d.name, extraKw.keys[0].s))
		}
		act.slots[d.kwargs] = DictValue(extraKw)
	} else if d.kwargs >= 0 {
		act.slots[d.kwargs] = DictValue(NewOrderedDict())
	}
	passCaller(st, at, d, act, bound, caller)
	if d.caller >= 0 {
		act.slots[d.caller] = caller
	}
	st.push()
	d.body.exec(st)
	s := st.pop()
	st.act = saved
	st.depth--
	return strValue(s)
}
