package jinja

import (
	"maps"
	"strconv"
)

// Fixed prefixes. A provider with prompt caching reuses the computation of
// a request's prefix when the next request starts with the same bytes; a
// template set marks where that prefix ends (a cache breakpoint after a
// message). FixedPrefix proves, over the checked program, that the
// messages up to the breakpoint are the same for every render: their text
// depends on no variable, no clock and no control flow that depends on
// either. It is a dependency analysis: every value a template computes is
// fixed or depends on a cause (a variable read, strftime_now, a construct
// the analysis does not follow), followed through set, with, loops,
// namespaces, includes and macro calls; a statement under a condition or
// loop that depends on a cause depends on it too. It is sound and
// conservative: what it cannot follow (imported macros, call blocks,
// recursive loops, template inheritance) counts as changing, and the
// error says so.

// fact is what the analysis knows of a value bound to a symbol.
type fact struct {
	why   *Error     // nil: the same on every render
	macro *MacroNode // a macro defined in the template, with the file it is in
	src   *Source
}

type fixer struct {
	p     *Program
	msg   int // the message the breakpoint follows, for errors
	env   map[*Symbol]fact
	calls []*MacroNode // the macro calls being analysed (no recursion)
	// emits are the macros that hold a chat block: a call of one may add
	// messages.
	emits bool
}

// FixedPrefix proves that the first n messages a template renders are the
// same for every render (n ≥ 1; a template without chat blocks renders one
// message, its whole text). It returns nil when they are, or the problem:
// what makes them change, positioned where it is read (Name is the
// variable, when a variable does), or the statement before the breakpoint
// whose messages cannot be counted.
func FixedPrefix(p *Program, n int) *Error {
	f := &fixer{p: p, msg: n - 1, env: map[*Symbol]fact{}}
	src := p.Tree.Source
	if p.Inherit != nil {
		return f.cause(src, 0, "template inheritance, which the analysis does not follow", "")
	}
	if !p.Chat {
		if n != 1 {
			return f.short(src, 0, 1)
		}
		return f.stmts(src, p.Root, p.Tree.Root, nil)
	}
	for _, t := range append([]*Tree{p.Tree}, treesOf(p)...) {
		InspectAll(t.Root, func(x Node) bool {
			if m, ok := x.(*MacroNode); ok {
				InspectAll(m.Body, func(y Node) bool {
					_, chat := y.(*ChatNode)
					f.emits = f.emits || chat
					return !f.emits
				})
			}
			return !f.emits
		})
	}
	count, err := f.messages(src, p.Root, p.Tree.Root, n, 0)
	if err != nil || count >= n {
		return err
	}
	return f.short(src, Pos(len(src.Text)), count)
}

// short is the problem of a breakpoint after more messages than the
// template renders on every render.
func (f *fixer) short(src *Source, p Pos, have int) *Error {
	e := errPrefixShort(p, f.msg, have)
	e.File = src.Name
	e.Line, e.Col = src.Position(p)
	return e
}

func treesOf(p *Program) []*Tree {
	var out []*Tree
	for _, t := range p.Trees {
		out = append(out, t)
	}
	return out
}

// cause makes the problem of a value that depends on what.
func (f *fixer) cause(src *Source, p Pos, what, name string) *Error {
	e := errPrefixVaries(p, f.msg, what, name)
	e.File = src.Name
	e.Line, e.Col = src.Position(p)
	return e
}

// messages walks the statements at a chat template's top level, counting
// the chat blocks that run on every render, until n have run. It returns
// the count, or the problem that stops the proof.
func (f *fixer) messages(src *Source, fr *Frame, nodes []Node, n, count int) (int, *Error) {
	for _, x := range nodes {
		if count >= n {
			return count, nil
		}
		switch x := x.(type) {
		case *TextNode:
			// whitespace between blocks: the check allows nothing else
		case *ChatNode:
			if why := f.expr(src, fr, x.Role); why != nil {
				return count, why
			}
			if why := f.stmts(src, fr, x.Body, nil); why != nil {
				return count, why
			}
			count++
		case *IncludeNode:
			t := f.p.Trees[x]
			if t == nil {
				continue // a missing file, ignored: it renders nothing
			}
			var err *Error
			if count, err = f.messages(t.Source, f.p.Frame[x], t.Root, n, count); err != nil {
				return count, err
			}
		case *WithNode:
			inner := f.p.Frame[x]
			for i, v := range x.Values {
				f.assign(src, inner, x.Targets[i], f.expr(src, fr, v), nil)
			}
			var err *Error
			if count, err = f.messages(src, inner, x.Body, n, count); err != nil {
				return count, err
			}
		default:
			if !f.mayEmit(x) {
				f.stmt(src, fr, x, nil) // what it binds; it prints nothing
				continue
			}
			if why := f.control(src, fr, x); why != nil {
				return count, why
			}
			return count, f.uncounted(src, x)
		}
	}
	return count, nil
}

// control is the cause the condition or iterable of a statement depends
// on, if any.
func (f *fixer) control(src *Source, fr *Frame, x Node) *Error {
	switch x := x.(type) {
	case *IfNode:
		for _, b := range x.Branches {
			if why := f.expr(src, fr, b.Cond); why != nil {
				return why
			}
		}
	case *ForNode:
		return f.expr(src, fr, x.Iter)
	}
	return nil
}

func (f *fixer) uncounted(src *Source, x Node) *Error {
	e := errPrefixUncounted(x.Position(), f.msg, tagOf(x))
	e.File = src.Name
	e.Line, e.Col = src.Position(x.Position())
	return e
}

// mayEmit reports whether a top-level statement may add messages: it
// holds a chat block (or includes a file that does), or calls a macro
// when a macro holds one.
func (f *fixer) mayEmit(x Node) bool {
	found := false
	var look func(Node) bool
	look = func(n Node) bool {
		switch n := n.(type) {
		case *ChatNode:
			found = true
		case *CallExpr, *CallBlockNode:
			found = found || f.emits
		case *IncludeNode:
			if t := f.p.Trees[n]; t != nil {
				InspectAll(t.Root, look)
			}
		}
		return !found
	}
	Inspect(x, look)
	return found
}

// stmts analyses a body whose output is (part of) a message: it returns
// the first cause its output depends on, and records what it binds. ctl
// is the cause the body's running depends on (a condition's), nil when it
// runs on every render.
func (f *fixer) stmts(src *Source, fr *Frame, nodes []Node, ctl *Error) *Error {
	var first *Error
	for _, x := range nodes {
		first = either(first, f.stmt(src, fr, x, ctl))
	}
	return first
}

func (f *fixer) stmt(src *Source, fr *Frame, x Node, ctl *Error) *Error {
	switch x := x.(type) {
	case *TextNode, *BreakNode, *ContinueNode:
		return ctl
	case *OutputNode:
		return either(ctl, f.expr(src, fr, x.X))
	case *IfNode:
		before := maps.Clone(f.env)
		var out []map[*Symbol]fact
		var first *Error
		c := ctl
		for _, b := range x.Branches {
			c = either(c, f.expr(src, fr, b.Cond))
			f.env = maps.Clone(before)
			first = either(first, f.stmts(src, fr, b.Body, c))
			out = append(out, f.env)
		}
		f.env = maps.Clone(before)
		first = either(first, f.stmts(src, fr, x.Else, c))
		out = append(out, f.env)
		f.env = joinEnvs(out)
		return first
	case *ForNode:
		inner := f.p.Frame[x]
		c := either(ctl, f.expr(src, fr, x.Iter))
		if x.Recursive {
			c = either(c, f.cause(src, x.Pos, "a recursive loop, which the analysis does not follow", ""))
		}
		before := maps.Clone(f.env)
		var first *Error
		for range 2 { // twice: a namespace a pass sets is read by the next
			f.assign(src, inner, x.Target, c, nil)
			if s := inner.Lookup("loop"); s != nil {
				f.env[s] = fact{why: c}
			}
			body := c
			if x.Cond != nil {
				body = either(body, f.expr(src, inner, x.Cond))
			}
			first = either(first, f.stmts(src, inner, x.Body, body))
			f.env = joinEnvs([]map[*Symbol]fact{before, f.env})
		}
		return either(first, f.stmts(src, fr, x.Else, c))
	case *SetNode:
		f.assign(src, fr, x.Target, either(ctl, f.expr(src, fr, x.Value)), f.macroOf(fr, x.Value))
		return nil
	case *SetBlockNode:
		why := either(ctl, f.stmts(src, f.p.Frame[x], x.Body, nil))
		for _, flt := range x.Filters {
			why = either(why, f.expr(src, fr, flt))
		}
		f.assign(src, fr, x.Target, why, nil)
		return nil
	case *WithNode:
		inner := f.p.Frame[x]
		for i, v := range x.Values {
			f.assign(src, inner, x.Targets[i], either(ctl, f.expr(src, fr, v)), f.macroOf(fr, v))
		}
		return f.stmts(src, inner, x.Body, ctl)
	case *IncludeNode:
		if t := f.p.Trees[x]; t != nil {
			return f.stmts(t.Source, f.p.Frame[x], t.Root, ctl)
		}
		return nil
	case *ImportNode:
		if s := fr.Lookup(x.Target); s != nil {
			f.env[s] = fact{why: f.cause(src, x.Pos, "an imported template, which the analysis does not follow", "")}
		}
		return nil
	case *FromImportNode:
		for _, in := range x.Names {
			name := in.Name
			if in.Alias != "" {
				name = in.Alias
			}
			if s := fr.Lookup(name); s != nil {
				f.env[s] = fact{why: f.cause(src, in.Pos, "a macro imported from another file, which the analysis does not follow", "")}
			}
		}
		return nil
	case *MacroNode:
		if s := f.p.Frame[x].Parent.Lookup(x.Name); s != nil {
			f.env[s] = fact{why: ctl, macro: x, src: src}
		}
		return nil
	case *CallBlockNode:
		return f.cause(src, x.Pos, "a call block, which the analysis does not follow", "")
	case *FilterBlockNode:
		why := ctl
		for _, flt := range x.Filters {
			why = either(why, f.expr(src, fr, flt))
		}
		return either(why, f.stmts(src, fr, x.Body, ctl))
	case *AutoescapeNode:
		return f.stmts(src, fr, x.Body, ctl)
	case *GenerationNode:
		return f.stmts(src, fr, x.Body, ctl)
	case *ChatNode:
		return either(f.expr(src, fr, x.Role), f.stmts(src, fr, x.Body, ctl))
	case *BlockNode, *ExtendsNode:
		return f.cause(src, x.Position(), "template inheritance, which the analysis does not follow", "")
	}
	return f.cause(src, x.Position(), "a statement the analysis does not know", "")
}

// macroOf is the macro a value names, when it is a macro's name: set m2 =
// m keeps it callable.
func (f *fixer) macroOf(fr *Frame, x Expr) *fact {
	n, ok := x.(*NameExpr)
	if !ok {
		return nil
	}
	if fc, ok := f.env[f.p.Refs[n]]; ok && fc.macro != nil {
		return &fc
	}
	return nil
}

// assign records what a set, for or with target binds: why its value
// depends on, or a macro.
func (f *fixer) assign(src *Source, fr *Frame, t Expr, why *Error, macro *fact) {
	switch t := t.(type) {
	case *NameExpr:
		s := f.p.Refs[t]
		if s == nil {
			s = fr.Lookup(t.Name)
		}
		if s == nil {
			return
		}
		if macro != nil && why == nil {
			f.env[s] = *macro
			return
		}
		f.env[s] = fact{why: why}
	case *TupleExpr:
		for _, it := range t.Items {
			f.assign(src, fr, it, why, nil)
		}
	case *AttrExpr:
		// A namespace's attribute: the namespace depends on it from now.
		if n, ok := t.X.(*NameExpr); ok && why != nil {
			if s := f.p.Refs[n]; s != nil {
				f.env[s] = fact{why: either(f.env[s].why, why)}
			}
		}
	}
}

// expr is the first cause a value depends on, or nil when it is the same
// on every render.
func (f *fixer) expr(src *Source, fr *Frame, x Expr) *Error {
	switch x := x.(type) {
	case nil:
		return nil
	case *ConstExpr:
		return nil
	case *NameExpr:
		s := f.p.Refs[x]
		if s == nil {
			return f.cause(src, x.Pos, "the name "+strconv.Quote(x.Name)+", which the analysis cannot follow", x.Name)
		}
		switch s.Kind {
		case SymVariable:
			return f.cause(src, x.Pos, "the variable "+strconv.Quote(x.Name), x.Name)
		case SymGlobal:
			return nil // a global function or value; strftime_now is judged where it is called
		case SymLocal, SymLoop:
			if fc, ok := f.env[s]; ok {
				return fc.why
			}
			return f.cause(src, x.Pos, "the name "+strconv.Quote(x.Name)+", whose value the analysis cannot follow", x.Name)
		}
		return f.cause(src, x.Pos, strconv.Quote(x.Name)+", which the analysis does not follow", x.Name)
	case *CallExpr:
		if n, ok := x.Fn.(*NameExpr); ok {
			s := f.p.Refs[n]
			if s != nil && s.Kind == SymGlobal && s.Name == "strftime_now" {
				return f.cause(src, x.Pos, "the clock (strftime_now)", "strftime_now")
			}
			if fc, ok := f.env[s]; ok && fc.macro != nil {
				return either(fc.why, f.call(src, fr, fc, x))
			}
		}
	}
	var first *Error
	for _, c := range Children(x) {
		switch c := c.(type) {
		case Expr:
			first = either(first, f.expr(src, fr, c))
		case *Keyword:
			first = either(first, f.expr(src, fr, c.Value))
		case *CompareOp:
			first = either(first, f.expr(src, fr, c.Y))
		}
	}
	return first
}

// call is the cause the value of a call of a macro of the template
// depends on: its body, with its parameters bound to the arguments.
func (f *fixer) call(src *Source, fr *Frame, fc fact, x *CallExpr) *Error {
	m := fc.macro
	for _, open := range f.calls {
		if open == m {
			return f.cause(src, x.Pos, "a recursive macro, which the analysis does not follow", m.Name)
		}
	}
	inner := f.p.Frame[m]
	dyn := either(f.expr(src, fr, x.DynArgs), f.expr(src, fr, x.DynKwargs))
	for i, p := range m.Params {
		s := inner.Lookup(p.Name)
		if s == nil {
			continue
		}
		var why *Error
		switch {
		case i < len(x.Args):
			why = f.expr(src, fr, x.Args[i])
		case keyword(x.Kwargs, p.Name) != nil:
			why = f.expr(src, fr, keyword(x.Kwargs, p.Name))
		case p.Default != nil:
			why = f.expr(fc.src, inner, p.Default)
		}
		f.env[s] = fact{why: either(why, dyn)}
	}
	f.calls = append(f.calls, m)
	defer func() { f.calls = f.calls[:len(f.calls)-1] }()
	return either(dyn, f.stmts(fc.src, inner, m.Body, nil))
}

func keyword(kws []*Keyword, name string) Expr {
	for _, k := range kws {
		if k.Name == name {
			return k.Value
		}
	}
	return nil
}

// either is the first of two causes: a value that depends on both
// depends on a.
func either(a, b *Error) *Error {
	if a != nil {
		return a
	}
	return b
}

// joinEnvs is what is known after one of several paths ran: a symbol
// bound differently on two paths depends on the first cause either gives.
func joinEnvs(envs []map[*Symbol]fact) map[*Symbol]fact {
	out := map[*Symbol]fact{}
	for _, env := range envs {
		for s, fc := range env {
			prev, seen := out[s]
			switch {
			case !seen:
				out[s] = fc
			case prev.why != nil:
			case fc.why != nil:
				out[s] = fact{why: fc.why}
			case prev.macro != fc.macro:
				out[s] = fact{why: errPrefixVaries(0, 0, "a macro defined differently on different paths", s.Name)}
			}
		}
	}
	// A symbol bound on some paths only is undefined on the others.
	for s, fc := range out {
		for _, env := range envs {
			if _, ok := env[s]; !ok && fc.why == nil && fc.macro != nil {
				out[s] = fact{why: errPrefixVaries(0, 0, "a macro defined on some paths only", s.Name)}
			}
		}
	}
	return out
}
