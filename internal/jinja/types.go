package jinja

import (
	"slices"
	"strconv"
	"strings"
)

// The type pass. A variable may come with a type (made from its JSON
// Schema by the host of the front end); CheckTypes then follows every
// value that comes from a typed variable — through attributes, indexes,
// set and with locals, loop variables, macro arguments and included
// templates — and refuses, at load and in every branch, what the type
// makes certainly wrong: a path the schema does not have, a filter, test,
// method or operator that needs another kind of value, a loop over a
// number. Only what a schema makes certain is reported: a value of
// unknown type (an untyped variable, a literal, a computed list) is never
// an error here, so templates without typed variables see no new rule.

// Kinds is a set of JSON types.
type Kinds uint8

// The JSON types. A JSON Schema "number" is KindInt|KindFloat.
const (
	KindNull Kinds = 1 << iota
	KindBool
	KindInt
	KindFloat
	KindString
	KindArray
	KindObject

	KindNumber = KindInt | KindFloat
	// KindAny is every kind: nothing is known.
	KindAny = KindNull | KindBool | KindNumber | KindString | KindArray | KindObject
)

// Type is what a variable's schema says of a value, as far as the checks
// need it.
type Type struct {
	// Kinds are the JSON types the value may have; 0 is any.
	Kinds Kinds
	// Props are the declared properties of an object.
	Props map[string]*Type
	// Open says an object may have properties beyond Props
	// (additionalProperties or patternProperties allow them, or the schema
	// declares no properties at all); Extra is their type when the schema
	// gives one (nil: unknown).
	Open  bool
	Extra *Type
	// Items is the type of an array's items (nil: unknown); Prefix the
	// types of its first items (prefixItems).
	Items  *Type
	Prefix []*Type
}

func (t *Type) kinds() Kinds {
	if t == nil || t.Kinds == 0 {
		return KindAny
	}
	return t.Kinds
}

// certain reports whether the type narrows the value to some kinds.
func (t *Type) certain() bool { return t != nil && t.Kinds != 0 && t.Kinds != KindAny }

// String names the kinds of a type for messages: "a string", "an integer
// or null".
func (k Kinds) String() string {
	names := []struct {
		k    Kinds
		name string
	}{{KindString, "a string"}, {KindNumber, "a number"}, {KindInt, "an integer"}, {KindFloat, "a number"},
		{KindBool, "a boolean"}, {KindArray, "an array"}, {KindObject, "an object"}, {KindNull, "null"}}
	var parts []string
	for _, n := range names {
		if k&n.k == n.k && n.k != 0 {
			parts = append(parts, n.name)
			k &^= n.k
		}
	}
	if len(parts) == 0 {
		return "anything"
	}
	return strings.Join(parts, " or ")
}

// val is the type of an expression and where the type comes from: the
// typed variable and the schema location ("user.tags[*]"). A value whose
// variable is empty is not from a schema: it informs, it is never
// reported.
type val struct {
	t        *Type
	variable string
	at       string
}

func (v val) typed() bool { return v.variable != "" && v.t != nil }

// join is the type of a value that is one of a and b.
func join(a, b val) val {
	switch {
	case a.t == nil || b.t == nil:
		return val{}
	case a.t == b.t:
		return a
	case a.t.Props == nil && b.t.Props == nil && a.t.Items == nil && b.t.Items == nil &&
		a.t.Prefix == nil && b.t.Prefix == nil && a.t.Extra == nil && b.t.Extra == nil &&
		a.t.certain() && b.t.certain():
		// Two scalar types: the union of their kinds.
		out := val{t: &Type{Kinds: a.t.Kinds | b.t.Kinds, Open: a.t.Open || b.t.Open}, variable: a.variable, at: a.at}
		if out.variable == "" {
			out.variable, out.at = b.variable, b.at
		}
		return out
	}
	return val{}
}

func kindVal(k Kinds) val { return val{t: &Type{Kinds: k}} }

// CheckTypes checks the uses of the typed variables of a checked program:
// types maps a declared variable's name to its type; a variable not in it
// is not checked. The catalog says which kinds of value have each method
// (Spec.Receivers). It returns every problem as an ErrorList, or nil.
func CheckTypes(p *Program, cat *Catalog, types map[string]*Type) error {
	if len(types) == 0 {
		return nil
	}
	tc := &typer{prog: p, cat: cat, vars: types, binds: map[*Symbol][]func() val{}, memo: map[*Symbol]val{},
		busy: map[*Symbol]bool{}, entry: map[*Symbol]bool{}, escapes: map[*Symbol]bool{}, methods: map[*AttrExpr]bool{}}
	tc.collect(p.Tree)
	tc.check(p.Tree)
	if len(tc.errs) == 0 {
		return nil
	}
	return tc.errs
}

type typer struct {
	prog    *Program
	cat     *Catalog
	vars    map[string]*Type
	src     *Source
	errs    ErrorList
	binds   map[*Symbol][]func() val // what each name is bound to, lazily typed
	memo    map[*Symbol]val
	busy    map[*Symbol]bool
	entry   map[*Symbol]bool   // names bound on entry to their frame (for, with, parameters)
	escapes map[*Symbol]bool   // macros used other than by calling them
	calls   []*CallExpr        // every call, for the arguments of macros
	methods map[*AttrExpr]bool // attributes that are called: methods, not paths
}

// trees visits a tree and, through every include and import, the files it
// resolves to, with src set to the file being visited.
func (tc *typer) trees(t *Tree, f func(Node) bool) {
	saved := tc.src
	tc.src = t.Source
	InspectAll(t.Root, func(n Node) bool {
		if !f(n) {
			return false
		}
		if sub := tc.prog.Trees[n]; sub != nil {
			tc.trees(sub, f)
		}
		return true
	})
	tc.src = saved
}

// collect records every binding of a name: set, set blocks, with, for
// targets, and the macros whose arguments can be typed from their calls.
func (tc *typer) collect(t *Tree) {
	var macros []*MacroNode
	calledFn := map[*NameExpr]bool{}
	tc.trees(t, func(n Node) bool {
		switch n := n.(type) {
		case *SetNode:
			tc.bindTarget(n.Target, func() val { return tc.typeOf(n.Value) }, false)
		case *SetBlockNode:
			if len(n.Filters) == 0 {
				tc.bindTarget(n.Target, func() val { return kindVal(KindString) }, false)
			} else {
				tc.bindTarget(n.Target, func() val { return val{} }, false)
			}
		case *WithNode:
			for i := range n.Targets {
				v := n.Values[i]
				tc.bindTarget(n.Targets[i], func() val { return tc.typeOf(v) }, true)
			}
		case *ForNode:
			tc.bindTarget(n.Target, func() val { return tc.elem(tc.typeOf(n.Iter)) }, true)
		case *MacroNode:
			macros = append(macros, n)
		case *CallExpr:
			tc.calls = append(tc.calls, n)
			if fn, ok := n.Fn.(*NameExpr); ok {
				calledFn[fn] = true
			}
			if fn, ok := n.Fn.(*AttrExpr); ok {
				tc.methods[fn] = true
			}
		case *NameExpr:
			if s := tc.prog.Refs[n]; s != nil && !calledFn[n] {
				tc.escapes[s] = true // read as a value: passed around, its calls are not all known
			}
		}
		return true
	})
	for _, m := range macros {
		tc.bindParams(m)
	}
}

// bindTarget records what an assignment target is bound to. A tuple
// target takes the items of a literal tuple or list of the same length;
// otherwise its names are of unknown type. atEntry says the binding
// happens when its frame is entered (for and with targets), so the name
// never holds the outer binding's value.
func (tc *typer) bindTarget(target Expr, value func() val, atEntry bool) {
	switch t := target.(type) {
	case *NameExpr:
		if s := tc.prog.Refs[t]; s != nil {
			tc.binds[s] = append(tc.binds[s], value)
			if atEntry {
				tc.entry[s] = true
			}
		}
	case *TupleExpr:
		for _, it := range t.Items {
			tc.bindTarget(it, func() val { return val{} }, atEntry)
		}
	}
}

// bindParams types a macro's parameters from its calls: every call site
// of the macro's name in the same file passes arguments whose type is
// known, and the macro is never used but by calling it.
func (tc *typer) bindParams(m *MacroNode) {
	fr := tc.prog.Frame[m]
	if fr == nil || fr.Parent == nil {
		return
	}
	self := fr.Parent.Lookup(m.Name)
	if self == nil || tc.escapes[self] || len(tc.binds[self]) > 0 {
		return
	}
	for i, p := range m.Params {
		ps := fr.Lookup(p.Name)
		if ps == nil {
			continue
		}
		tc.entry[ps] = true
		tc.binds[ps] = append(tc.binds[ps], func() val {
			out, first := val{}, true
			for _, c := range tc.calls {
				fn, ok := c.Fn.(*NameExpr)
				if !ok || tc.prog.Refs[fn] != self || c.DynArgs != nil || c.DynKwargs != nil {
					continue
				}
				var arg Expr
				if i < len(c.Args) {
					arg = c.Args[i]
				}
				for _, k := range c.Kwargs {
					if k.Name == p.Name {
						arg = k.Value
					}
				}
				if arg == nil {
					arg = p.Default
				}
				if arg == nil {
					return val{}
				}
				v := tc.typeOf(arg)
				if first {
					out, first = v, false
				} else {
					out = join(out, v)
				}
			}
			return out
		})
	}
}

// symbol types a name: a typed variable, or the join of everything the
// name is bound to (and, for a name a set rebinds in an inner frame, of
// the outer binding it starts as).
func (tc *typer) symbol(s *Symbol) val {
	if v, ok := tc.memo[s]; ok {
		return v
	}
	if tc.busy[s] {
		return val{}
	}
	tc.busy[s] = true
	defer delete(tc.busy, s)
	var out val
	first := true
	add := func(v val) {
		if first {
			out, first = v, false
		} else {
			out = join(out, v)
		}
	}
	if s.Kind == SymVariable && s.Frame == tc.prog.Root {
		if t, ok := tc.vars[s.Name]; ok {
			add(val{t: t, variable: s.Name, at: s.Name})
		} else {
			add(val{})
		}
	}
	for _, b := range tc.binds[s] {
		add(b())
	}
	if s.Outer != nil && !tc.entry[s] {
		add(tc.symbol(s.Outer))
	}
	if first || (s.Kind != SymVariable && s.Kind != SymLocal) {
		out = val{}
	}
	tc.memo[s] = out
	return out
}

// typeOf types an expression. It reports nothing.
func (tc *typer) typeOf(x Expr) val {
	switch x := x.(type) {
	case *NameExpr:
		if s := tc.prog.Refs[x]; s != nil {
			return tc.symbol(s)
		}
	case *ConstExpr:
		switch x.Value.(type) {
		case string:
			return kindVal(KindString)
		case bool:
			return kindVal(KindBool)
		case float64:
			return kindVal(KindFloat)
		case nil:
			return kindVal(KindNull)
		default:
			return kindVal(KindInt)
		}
	case *AttrExpr:
		return tc.member(tc.typeOf(x.X), x.Name)
	case *IndexExpr:
		base := tc.typeOf(x.X)
		switch ix := x.Index.(type) {
		case *SliceExpr:
			return base
		case *ConstExpr:
			switch k := ix.Value.(type) {
			case string:
				return tc.member(base, k)
			case int64:
				return tc.item(base, int(k))
			}
		}
		return tc.elem(base)
	case *FilterExpr:
		return tc.filterResult(x)
	case *CallExpr:
		return tc.callResult(x)
	case *CondExpr:
		if x.Else == nil {
			return val{}
		}
		return join(tc.typeOf(x.Then), tc.typeOf(x.Else))
	case *BinaryExpr:
		switch x.Op {
		case "and", "or":
			return join(tc.typeOf(x.L), tc.typeOf(x.R))
		case "/":
			return kindVal(KindFloat)
		}
		l, r := tc.typeOf(x.L), tc.typeOf(x.R)
		if l.t.certain() && r.t.certain() && l.t.kinds()&^KindNumber == 0 && r.t.kinds()&^KindNumber == 0 {
			return kindVal(l.t.kinds() | r.t.kinds())
		}
	case *ConcatExpr:
		return kindVal(KindString)
	case *TestExpr, *CompareExpr:
		return kindVal(KindBool)
	case *UnaryExpr:
		if x.Op == "not" {
			return kindVal(KindBool)
		}
	}
	return val{}
}

// member is the type of attribute or key name of a value.
func (tc *typer) member(base val, name string) val {
	t := base.t
	if t == nil || t.kinds()&KindObject == 0 {
		return val{}
	}
	out := val{variable: base.variable, at: base.at + "." + name}
	if p, ok := t.Props[name]; ok {
		out.t = p
	} else if t.Open {
		out.t = t.Extra
	}
	return out
}

// item is the type of item i of a value.
func (tc *typer) item(base val, i int) val {
	t := base.t
	if t != nil && t.kinds()&KindArray != 0 && i >= 0 && i < len(t.Prefix) {
		return val{t: t.Prefix[i], variable: base.variable, at: base.at + "[" + strconv.Itoa(i) + "]"}
	}
	return tc.elem(base)
}

// elem is the type of what iterating a value or indexing it with a
// variable gives: an array's items, a string's characters, an object's
// keys.
func (tc *typer) elem(base val) val {
	t := base.t
	if !t.certain() {
		return val{}
	}
	switch t.Kinds &^ KindNull {
	case KindArray:
		if t.Items == nil {
			return val{}
		}
		return val{t: t.Items, variable: base.variable, at: base.at + "[*]"}
	case KindString:
		return kindVal(KindString)
	case KindObject:
		return kindVal(KindString)
	}
	return val{}
}

// filterResult is the type a filter returns, as its Spec says.
func (tc *typer) filterResult(x *FilterExpr) val {
	if x.X == nil {
		return val{}
	}
	return tc.result(tc.cat.Filters[x.Name].Result, func() val { return tc.typeOf(x.X) }, x.Args)
}

// callResult is the type a call returns: a global's or a method's, as
// its Spec says.
func (tc *typer) callResult(x *CallExpr) val {
	switch fn := x.Fn.(type) {
	case *NameExpr:
		if s := tc.prog.Refs[fn]; s != nil && s.Kind == SymGlobal {
			return tc.result(tc.cat.Globals[fn.Name].Result, func() val { return val{} }, x.Args)
		}
	case *AttrExpr:
		return tc.result(tc.cat.Methods[fn.Name].Result, func() val { return tc.typeOf(fn.X) }, x.Args)
	}
	return val{}
}

// result applies a builtin's result rule to a call: in is the type of
// its input (a filter's input, a method's receiver), args its positional
// arguments.
func (tc *typer) result(r Result, in func() val, args []Expr) val {
	switch r.Rule {
	case ResultFixed:
		if r.Kinds == 0 {
			return val{}
		}
		t := &Type{Kinds: r.Kinds}
		if r.Items != 0 {
			t.Items = &Type{Kinds: r.Items}
		}
		return val{t: t}
	case ResultInput:
		if v := in(); v.t.certain() && v.t.Kinds == KindArray {
			return v
		}
	case ResultSame:
		return in()
	case ResultElem:
		v := in()
		if v.t.certain() && v.t.Kinds&^KindNull == KindString {
			return kindVal(KindString)
		}
		return tc.elem(v)
	case ResultInputOrArg:
		if len(args) > 0 {
			return join(in(), tc.typeOf(args[0]))
		}
	case ResultMember:
		if len(args) == 0 {
			return val{}
		}
		k, ok := args[0].(*ConstExpr)
		if !ok {
			return val{}
		}
		if s, ok := k.Value.(string); ok {
			v := tc.member(in(), s)
			if len(args) == 2 {
				return join(v, tc.typeOf(args[1]))
			}
		}
	}
	return val{}
}

// check reports the uses of typed values that their types refuse.
func (tc *typer) check(t *Tree) {
	tc.trees(t, func(n Node) bool {
		switch n := n.(type) {
		case *AttrExpr:
			if !tc.methods[n] {
				tc.path(n, n.X, n.Name, true)
			}
		case *IndexExpr:
			if k, ok := n.Index.(*ConstExpr); ok {
				switch v := k.Value.(type) {
				case string:
					tc.path(n, n.X, v, false)
				case int64:
					tc.index(n)
				}
			}
		case *FilterExpr:
			if want := tc.cat.Filters[n.Name].Input; n.X != nil && want != 0 {
				tc.needs(n.Pos, "filter "+n.Name, tc.typeOf(n.X), n.X, want)
			}
		case *TestExpr:
			if want := tc.cat.Tests[n.Name].Input; want != 0 {
				tc.needs(n.Pos, "test "+n.Name, tc.typeOf(n.X), n.X, want)
			}
		case *CallExpr:
			tc.method(n)
		case *BinaryExpr:
			tc.binary(n)
		case *UnaryExpr:
			if n.Op == "-" || n.Op == "+" {
				tc.needs(n.Pos, "operator "+n.Op, tc.typeOf(n.X), n.X, KindNumber)
			}
		case *ForNode:
			tc.needs(n.Iter.Position(), "for", tc.typeOf(n.Iter), n.Iter, KindArray|KindObject|KindString)
		}
		return true
	})
}

func (tc *typer) report(e *Error) {
	e.File = tc.src.Name
	e.Line, e.Col = tc.src.Position(e.Pos)
	tc.errs = append(tc.errs, e)
}

// path checks x.name (attr) or x["name"]: the schema must have it.
func (tc *typer) path(n Expr, x Expr, name string, attr bool) {
	base := tc.typeOf(x)
	if !base.typed() {
		return
	}
	t := base.t
	if t.certain() && t.Kinds&KindObject == 0 {
		if t.Kinds&^KindNull == 0 {
			return // null alone: an undefined attribute, as Jinja reads it
		}
		tc.report(errNotObject(n.Position(), n.String(), base.variable, x.String(), base.at, t.Kinds&^KindNull, attr))
		return
	}
	if attr && t.certain() && t.Kinds&^KindNull == KindObject && tc.cat.Methods[name].Receivers&KindObject != 0 {
		// As in Jinja, x.items of a dict is its items method, whatever
		// its keys: a property of that name is read as x["items"].
		tc.report(errDictMethod(n.Position(), n.String(), base.variable, x.String(), base.at, name, t.Props[name] != nil))
		return
	}
	if t.Open {
		return
	}
	if _, ok := t.Props[name]; ok {
		return
	}
	names := make([]string, 0, len(t.Props))
	for p := range t.Props {
		names = append(names, p)
	}
	slices.Sort(names)
	tc.report(errNoProperty(n.Position(), n.String(), base.variable, x.String(), base.at, name, names))
}

// index checks x[0]: the value must be an array or a string.
func (tc *typer) index(n *IndexExpr) {
	base := tc.typeOf(n.X)
	if !base.typed() || !base.t.certain() {
		return
	}
	k := base.t.Kinds &^ KindNull
	if k == 0 || k&(KindArray|KindString) != 0 {
		return
	}
	tc.report(errNotIndexable(n.Pos, n.String(), base.variable, n.X.String(), base.at, k))
}

// needs reports a typed value none of whose kinds is one of want.
func (tc *typer) needs(p Pos, what string, v val, x Expr, want Kinds) {
	if !v.typed() || !v.t.certain() || v.t.Kinds&want != 0 {
		return
	}
	tc.report(errNeedsKind(p, what, want, v.variable, x.String(), v.at, v.t.Kinds))
}

// method checks x.name(…) on a typed value: the method must exist for
// one of the value's kinds.
func (tc *typer) method(c *CallExpr) {
	fn, ok := c.Fn.(*AttrExpr)
	if !ok {
		return
	}
	recv := tc.cat.Methods[fn.Name].Receivers
	if recv == 0 {
		return
	}
	tc.needs(c.Pos, "method "+fn.Name+"()", tc.typeOf(fn.X), fn.X, recv)
}

// binary checks arithmetic on typed values, as Python types it: - / //
// and ** need numbers; + adds two numbers, two strings or two lists; *
// repeats a string or a list by an integer; % formats a string or takes
// a remainder.
func (tc *typer) binary(b *BinaryExpr) {
	l, r := tc.typeOf(b.L), tc.typeOf(b.R)
	switch b.Op {
	case "-", "/", "//", "**":
		tc.needs(b.Pos, "operator "+b.Op, l, b.L, KindNumber)
		tc.needs(b.Pos, "operator "+b.Op, r, b.R, KindNumber)
	case "+", "*", "%":
		if !(l.typed() || r.typed()) || !l.t.certain() || !r.t.certain() {
			if b.Op != "%" {
				tc.needs(b.Pos, "operator "+b.Op, l, b.L, KindNumber|KindBool|KindString|KindArray)
				tc.needs(b.Pos, "operator "+b.Op, r, b.R, KindNumber|KindBool|KindString|KindArray)
			}
			return
		}
		if arith(b.Op, l.t.Kinds, r.t.Kinds) {
			return
		}
		v, x := l, b.L
		if !v.typed() {
			v, x = r, b.R
		}
		tc.report(errOperands(b.Pos, b.Op, l.t.Kinds, r.t.Kinds, v.variable, x.String(), v.at, v.t.Kinds))
	}
}

// arith reports whether some pair of kinds of l and r works with op.
func arith(op string, l, r Kinds) bool {
	num := KindNumber | KindBool
	for _, a := range []Kinds{KindNull, KindBool, KindInt, KindFloat, KindString, KindArray, KindObject} {
		for _, b := range []Kinds{KindNull, KindBool, KindInt, KindFloat, KindString, KindArray, KindObject} {
			if l&a == 0 || r&b == 0 {
				continue
			}
			switch op {
			case "+":
				if (a&num != 0 && b&num != 0) || (a == KindString && b == KindString) || (a == KindArray && b == KindArray) {
					return true
				}
			case "*":
				if (a&num != 0 && b&num != 0) || ((a == KindString || a == KindArray) && b&(KindInt|KindBool) != 0) ||
					((b == KindString || b == KindArray) && a&(KindInt|KindBool) != 0) {
					return true
				}
			case "%":
				if (a&num != 0 && b&num != 0) || a == KindString {
					return true
				}
			}
		}
	}
	return false
}
