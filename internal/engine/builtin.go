package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// Builtins: the filters, tests, methods and global functions a template
// can call. Each is declared once, as one table entry: its parameters
// (names and defaults, as Jinja's own signature has them), the kinds of
// value it takes and what it returns, and its implementation. The
// compiler binds a call's arguments to the parameters once, at load; the
// front end's catalog — its argument checks, its type pass and the
// supported lists its messages and the README give — is made from the
// same entries (Catalog), so what the checks know is what runs.

type param struct {
	name     string
	def      Value
	required bool
	undef    bool // takes an undefined value (see undefined.go)
}

// req and opt make parameters; takesUndefined marks one that takes an
// undefined value in a strict template (default's default_value).
func req(name string) param            { return param{name: name, required: true} }
func opt(name string, def Value) param { return param{name: name, def: def} }
func takesUndefined(p param) param     { p.undef = true; return p }

// extra holds a call's arguments beyond the parameters, for builtins that
// take them (*args, **kwargs).
type extra struct {
	rest []Value
	kw   *OrderedDict
}

type builtinFn func(st *state, in Value, args []Value, ex *extra) (Value, error)

type builtinDef struct {
	name   string
	params []param
	rest   bool        // takes extra positional arguments
	anyKw  bool        // takes extra keyword arguments
	in     jinja.Kinds // the kinds of input a filter or test takes; 0: any
	// undef: the builtin takes an undefined input in a strict template
	// (defined, default, …: the ways a template asks about one); any
	// other is refused it there, as Jinja2's StrictUndefined refuses.
	undef bool
	// anyUndefined: the builtin answers alike for every undefined input
	// (default), so an attribute missing before it need not record why
	// it is missing, as a strict template's missing attribute does.
	anyUndefined bool
	out          jinja.Result
	refused      string // why it is not supported, if it is not
	fn           builtinFn
	// print, when set, is fn for a filter whose result is printed
	// ({{ x | f(…) }}): it writes str() of the result to the output
	// without building it (see printFn).
	print printFn
}

// printFn writes what printing fn(st, in, args, nil) would write, and
// reports whether it did. It takes only the plain cases — for most,
// string inputs and arguments; for default, an undefined input too; never
// an undefined argument (builtinCall.print does not call it with one) —
// and leaves the output untouched when it returns false: the caller then
// calls fn, which gives the result or the error.
// A filter printed this way never builds its result string, so a
// prompt's {{ tags | join(", ") }} costs no allocation.
type printFn func(st *state, in Value, args []Value) (bool, error)

// The kinds of input builtins take, and what they return.
const (
	kString = jinja.KindString
	kArray  = jinja.KindArray
	kObject = jinja.KindObject
	kInt    = jinja.KindInt | jinja.KindBool
	kNumber = jinja.KindNumber | jinja.KindBool
	kSeq    = kArray | kString           // what a sequence filter takes
	kIter   = kArray | kString | kObject // anything iterable
)

var (
	outString   = jinja.Result{Kinds: jinja.KindString}
	outInt      = jinja.Result{Kinds: jinja.KindInt}
	outFloat    = jinja.Result{Kinds: jinja.KindFloat}
	outBool     = jinja.Result{Kinds: jinja.KindBool}
	outStrings  = jinja.Result{Kinds: jinja.KindArray, Items: jinja.KindString}
	outInts     = jinja.Result{Kinds: jinja.KindArray, Items: jinja.KindInt}
	outUnknown  = jinja.Result{}
	outInput    = jinja.Result{Rule: jinja.ResultInput}
	outSame     = jinja.Result{Rule: jinja.ResultSame}
	outElem     = jinja.Result{Rule: jinja.ResultElem}
	outInOrArg  = jinja.Result{Rule: jinja.ResultInputOrArg}
	outMemberOf = jinja.Result{Rule: jinja.ResultMember}
)

func (d *builtinDef) spec() jinja.Spec {
	s := jinja.Spec{Refused: d.refused, AnyKwargs: d.anyKw, MaxArgs: len(d.params), Input: d.in, Result: d.out, TakesUndefined: d.undef}
	for _, p := range d.params {
		if p.required {
			s.MinArgs++
		}
		s.Kwargs = append(s.Kwargs, p.name)
	}
	if d.rest {
		s.MaxArgs = -1
	}
	return s
}

// refuse makes a table entry for a construct that exists in Jinja but is
// refused, with the reason.
func refuse(name, why string) *builtinDef { return &builtinDef{name: name, refused: why} }

// The tables, filled by the files that implement them (filters.go,
// tests.go, methods.go, globals.go). They are made once, when first read
// (the first template compiled, or the first catalog) rather than when a
// program starts, and never change.
type builtinTables struct {
	filters, tests, globals map[string]*builtinDef
	// methods maps a method name to its implementation per receiver type.
	methods map[string]*methodSet
}

var (
	tablesOnce sync.Once
	tablesMade *builtinTables
)

// tables returns the builtin tables, making them the first time.
func tables() *builtinTables {
	tablesOnce.Do(func() {
		t := &builtinTables{filters: map[string]*builtinDef{}, tests: map[string]*builtinDef{},
			globals: map[string]*builtinDef{}, methods: map[string]*methodSet{}}
		defineFilters(t.filters)
		defineTests(t.tests, t.filters)
		defineMethods(t.methods)
		defineGlobals(t.globals)
		tablesMade = t
	})
	return tablesMade
}

type methodSet struct {
	str, list, dict *builtinDef
}

func define(table map[string]*builtinDef, defs ...*builtinDef) {
	for _, d := range defs {
		if _, dup := table[d.name]; dup {
			panic("engine: builtin defined twice: " + d.name)
		}
		table[d.name] = d
	}
}

// alias makes name call the same builtin as target.
func alias(table map[string]*builtinDef, name, target string) {
	d := *table[target]
	d.name = name
	table[name] = &d
}

// loopAttrs are the attributes of the loop variable.
var loopAttrs = []string{"index", "index0", "revindex", "revindex0", "first", "last", "length",
	"depth", "depth0", "previtem", "nextitem", "cycle", "changed"}

// ChatRoles are the roles a {% chat %} block may take. "tool" is left
// out: a tool message answers one tool call of the assistant and carries
// that call's id, which a template block cannot express.
var ChatRoles = []string{"system", "user", "assistant"}

// Catalog describes the builtins of the environment opt compiles for, for
// the front end's checks.
func Catalog(opt Options) jinja.Catalog {
	c := jinja.Catalog{
		Filters: map[string]jinja.Spec{}, Tests: map[string]jinja.Spec{},
		Globals: map[string]jinja.Spec{}, Methods: map[string]jinja.Spec{},
		Loop: slices.Clone(loopAttrs), ChatRoles: slices.Clone(ChatRoles),
	}
	for n, d := range tables().filters {
		c.Filters[n] = d.spec()
	}
	if opt.HuggingFace {
		c.Filters["tojson"] = hfToJSONDef.spec()
	}
	for n, d := range tables().tests {
		c.Tests[n] = d.spec()
	}
	for n, d := range tables().globals {
		c.Globals[n] = d.spec()
	}
	// The methods of the objects globals make: cycler().next(), .reset().
	c.Methods["next"] = jinja.Spec{Receivers: jinja.KindObject}
	c.Methods["reset"] = jinja.Spec{Receivers: jinja.KindObject}
	for n, m := range tables().methods {
		var s jinja.Spec
		var receivers jinja.Kinds // the types that have the method, for the type checks
		first := true
		sameOut := true // every receiver's method returns the same type
		for i, d := range []*builtinDef{m.str, m.list, m.dict} {
			if d == nil {
				continue
			}
			if d.refused == "" {
				receivers |= []jinja.Kinds{jinja.KindString, jinja.KindArray, jinja.KindObject}[i]
			}
			ds := d.spec()
			if first {
				s, first = ds, false
				continue
			}
			// One name may take different arguments per type: the checks
			// allow the union; the call is checked again at run time.
			s.MinArgs = min(s.MinArgs, ds.MinArgs)
			if s.MaxArgs >= 0 && (ds.MaxArgs < 0 || ds.MaxArgs > s.MaxArgs) {
				s.MaxArgs = ds.MaxArgs
			}
			for _, k := range ds.Kwargs {
				if !slices.Contains(s.Kwargs, k) {
					s.Kwargs = append(s.Kwargs, k)
				}
			}
			if s.Refused != "" && ds.Refused == "" {
				s.Refused = ""
			}
			sameOut = sameOut && ds.Result == s.Result
		}
		if !sameOut {
			s.Result = jinja.Result{}
		}
		s.Receivers = receivers
		c.Methods[n] = s
	}
	return c
}

// callX calls a builtin with arguments bound at load: args[i] is the
// expression for parameter i, or nil for its default; extras go in rest
// and kw. in is the filter's input, the test's value or the method's
// receiver.
type builtinCall struct {
	at   site
	def  *builtinDef
	args []expr
	rest []expr
	kw   []kwExpr
	// dyn and dynkw are *args and **kwargs, bound at run time.
	dyn, dynkw expr
	// fixed: the arguments, when each is a constant or a default, none
	// undefined, and there are no extras (made at load; builtins never
	// write to them).
	fixed []Value
}

// fix makes c.fixed when every argument is known at load.
func (c *builtinCall) fix() {
	if len(c.rest) > 0 || len(c.kw) > 0 || c.dyn != nil || c.dynkw != nil {
		return
	}
	fixed := make([]Value, len(c.args))
	for i, a := range c.args {
		switch a := a.(type) {
		case nil:
			fixed[i] = c.def.params[i].def
		case *constX:
			if a.v.k == Undefined {
				return // evaluated at each call, where the builtin's checks see it
			}
			fixed[i] = a.v
		default:
			return
		}
	}
	c.fixed, c.args = fixed, nil // the constants' nodes are no longer needed
}

type kwExpr struct {
	name string
	x    expr
}

// call evaluates the arguments onto the state's stack and calls the
// builtin.
func (c *builtinCall) call(st *state, in Value) Value {
	if c.dyn != nil || c.dynkw != nil {
		return c.callDynamic(st, in)
	}
	if c.fixed != nil {
		st.at = &c.at
		r, err := c.def.invoke(st, in, c.fixed, nil)
		if err != nil {
			st.fail(&c.at, err)
		}
		return r
	}
	base := c.push(st)
	var ex *extra
	if len(c.rest) > 0 || len(c.kw) > 0 {
		ex = &extra{}
		for _, r := range c.rest {
			ex.rest = append(ex.rest, r.eval(st))
		}
		if len(c.kw) > 0 {
			ex.kw = NewOrderedDict()
			for _, k := range c.kw {
				ex.kw.SetString(k.name, k.x.eval(st))
			}
		}
	}
	st.at = &c.at
	r, err := c.def.invoke(st, in, st.args[base:len(st.args):len(st.args)], ex)
	st.args = st.args[:base]
	if err != nil {
		st.fail(&c.at, err)
	}
	return r
}

// push evaluates the arguments bound to parameters onto the state's
// stack, and returns where they start.
func (c *builtinCall) push(st *state) int {
	base := len(st.args)
	for i, a := range c.args {
		if a == nil {
			st.args = append(st.args, c.def.params[i].def)
		} else {
			st.args = append(st.args, a.eval(st))
		}
	}
	return base
}

// printable reports whether the call can be printed by its builtin's
// print form: it has one, and every argument is bound at load to a
// parameter (no extras, no *args or **kwargs).
func (c *builtinCall) printable() bool {
	return c.def.print != nil && len(c.rest) == 0 && len(c.kw) == 0 && c.dyn == nil && c.dynkw == nil
}

// print prints the builtin's result for in (a printable call): through
// its print form when that takes the values, else as call would give it.
// at is the printed expression's site.
func (c *builtinCall) print(st *state, in Value, at *site) {
	base := len(st.args)
	args, undef := c.fixed, false // fixed arguments are never undefined
	if args == nil {
		base = c.push(st)
		args = st.args[base:len(st.args):len(st.args)]
		undef = anyUndefined(args)
	}
	st.at = &c.at
	var ok bool
	var err error
	if !undef {
		// An undefined argument is the builtin's to refuse or take (a
		// strict template refuses it before fn runs): no print form sees one.
		ok, err = c.def.print(st, in, args)
	}
	if err == nil && !ok {
		var r Value
		if r, err = c.def.invoke(st, in, args, nil); err == nil {
			st.args = st.args[:base]
			st.print(at, r)
			return
		}
	}
	st.args = st.args[:base]
	if err != nil {
		st.fail(&c.at, err)
	}
}

// anyUndefined reports whether one of args is undefined.
func anyUndefined(args []Value) bool {
	for i := range args {
		if args[i].k == Undefined {
			return true
		}
	}
	return false
}

// callDynamic binds *args and **kwargs at run time.
func (c *builtinCall) callDynamic(st *state, in Value) Value {
	var pos []Value
	for _, a := range c.args {
		if a != nil {
			pos = append(pos, a.eval(st))
		}
	}
	for _, r := range c.rest {
		pos = append(pos, r.eval(st))
	}
	kw := NewOrderedDict()
	for _, k := range c.kw {
		kw.SetString(k.name, k.x.eval(st))
	}
	if c.dyn != nil {
		v := c.dyn.eval(st)
		items, err := values(v)
		st.check(&c.at, err)
		pos = append(pos, items...)
	}
	if c.dynkw != nil {
		v := c.dynkw.eval(st)
		if v.k != Dict {
			st.fail(&c.at, fmt.Errorf("** takes a dict, not %s", typeName(v)))
		}
		for _, k := range dictKeys(v) {
			x, _ := dictGet(v, k)
			if k.k != String {
				st.fail(&c.at, fmt.Errorf("keywords must be strings"))
			}
			kw.Set(k, x)
		}
	}
	args, ex, err := bindArgs(c.def, pos, kw)
	st.check(&c.at, err)
	st.at = &c.at
	r, err := c.def.invoke(st, in, args, ex)
	st.check(&c.at, err)
	return r
}

// invoke calls the builtin with its arguments bound. In a strict render
// an undefined input or argument it does not take is an error (Jinja2's
// StrictUndefined raises when the builtin uses it), and the undefined
// value a builtin returns (first of an empty list) is a strict one that
// says which builtin gave it.
func (d *builtinDef) invoke(st *state, in Value, args []Value, ex *extra) (Value, error) {
	if !st.strict {
		return d.fn(st, in, args, ex)
	}
	if in.k == Undefined && !d.undef {
		if err := undefinedUse(in, "given to "+d.name); err != nil {
			return Value{}, err
		}
	}
	for i, a := range args {
		if a.k == Undefined && i < len(d.params) && !d.params[i].undef {
			if err := undefinedUse(a, fmt.Sprintf("given to %s as its argument %s", d.name, d.params[i].name)); err != nil {
				return Value{}, err
			}
		}
	}
	r, err := d.fn(st, in, args, ex)
	if err == nil && r.k == Undefined && r.ref == nil && !d.undef {
		r = strictUndefined(&missing{at: st.at, hint: d.name + " gave no value (as for an empty sequence)"})
	}
	return r, err
}

// bindArgs binds positional and keyword values to a builtin's parameters.
func bindArgs(d *builtinDef, pos []Value, kw *OrderedDict) ([]Value, *extra, error) {
	args := make([]Value, len(d.params))
	set := make([]bool, len(d.params))
	ex := &extra{}
	for i, v := range pos {
		if i < len(d.params) {
			args[i], set[i] = v, true
			continue
		}
		if !d.rest {
			return nil, nil, fmt.Errorf("%s takes at most %d arguments", d.name, len(d.params))
		}
		ex.rest = append(ex.rest, v)
	}
	if kw != nil {
		for i, k := range kw.keys {
			j := slices.IndexFunc(d.params, func(p param) bool { return p.name == k.s })
			switch {
			case j >= 0 && set[j]:
				return nil, nil, fmt.Errorf("%s got two values for argument %q", d.name, k.s)
			case j >= 0:
				args[j], set[j] = kw.vals[i], true
			case d.anyKw:
				if ex.kw == nil {
					ex.kw = NewOrderedDict()
				}
				ex.kw.Set(k, kw.vals[i])
			default:
				return nil, nil, fmt.Errorf("%s has no argument %q", d.name, k.s)
			}
		}
	}
	for i, p := range d.params {
		if !set[i] {
			if p.required {
				return nil, nil, fmt.Errorf("%s is missing its argument %q", d.name, p.name)
			}
			args[i] = p.def
		}
	}
	return args, ex, nil
}

// bind binds arguments written in the source to a builtin's parameters,
// at load: the error is the checks' (they report it first).
func bind(d *builtinDef, args []expr, kwargs []kwExpr) ([]expr, []expr, []kwExpr, error) {
	out := make([]expr, len(d.params))
	var rest []expr
	var kw []kwExpr
	for i, a := range args {
		if i < len(d.params) {
			out[i] = a
			continue
		}
		if !d.rest {
			return nil, nil, nil, fmt.Errorf("%s takes at most %d arguments", d.name, len(d.params))
		}
		rest = append(rest, a)
	}
	for _, k := range kwargs {
		j := slices.IndexFunc(d.params, func(p param) bool { return p.name == k.name })
		switch {
		case j >= 0 && out[j] != nil:
			return nil, nil, nil, fmt.Errorf("%s got two values for argument %q", d.name, k.name)
		case j >= 0:
			out[j] = k.x
		case d.anyKw:
			kw = append(kw, k)
		default:
			return nil, nil, nil, fmt.Errorf("%s has no argument %q", d.name, k.name)
		}
	}
	for i, p := range d.params {
		if out[i] == nil && p.required {
			return nil, nil, nil, fmt.Errorf("%s is missing its argument %q", d.name, p.name)
		}
	}
	return out, rest, kw, nil
}

// str1 returns v as str(v), for builtins that take text.
func str1(v Value) (string, error) {
	if v.k == String {
		return v.s, nil
	}
	return strString(v)
}

// argStr returns an argument's string, or an error naming it.
func argStr(d, name string, v Value) (string, error) {
	if v.k != String {
		return "", fmt.Errorf("%s: %s must be a string, not %s", d, name, typeName(v))
	}
	return v.s, nil
}

// argInt returns an argument's integer.
func argInt(d, name string, v Value) (int64, error) {
	switch v.k {
	case Int, Bool:
		return v.n, nil
	}
	return 0, fmt.Errorf("%s: %s must be an integer, not %s", d, name, typeName(v))
}

func joinNames(names []string) string { return strings.Join(names, ", ") }
