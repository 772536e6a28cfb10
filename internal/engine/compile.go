package engine

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// The compiler turns a checked Jinja program into the template's
// executable tree, once, at load: statements become nodes (exec.go,
// stmts.go), expressions become evaluator trees over slots (eval.go),
// and runs of text and outputs become one print node each.

// Options are the environment a template is compiled for.
type Options struct {
	// HuggingFace compiles for Hugging Face's chat-template runtime:
	// tojson keeps keys in their order and does not escape HTML.
	HuggingFace bool
	// Defaults are the values of optional variables not passed.
	Defaults map[string]any
	// Strict compiles for Jinja2's StrictUndefined (undefined.go): an
	// undefined value may be tested, defaulted and probed, and is an
	// error wherever else it is used. Template sets render strict; model
	// chat templates, as transformers renders them, do not.
	Strict bool
}

// Template is a compiled template, ready to render from any number of
// goroutines: nothing in it changes after Compile but the size estimate
// of its next output.
type Template struct {
	root     body
	slots    int
	vars     []varSlot
	chat     bool
	strict   bool
	inits    []frameInit  // how the top level's own names start, in a strict template
	estimate atomic.Int64 // the size of the next output, from the last ones (recordSize)
	marks    []markInfo   // the budget marks, in the order they stand (budget.go)
	order    []int32      // the marks in the order they are cut
}

type varSlot struct {
	name string
	slot int
	def  Value
	has  bool
	// undef is its value when it is not passed and has no default: in
	// a strict template, the strict undefined value that says so.
	undef Value
}

// Chat reports whether the template has chat blocks.
func (t *Template) Chat() bool { return t.chat }

type compiler struct {
	out   body        // the body being compiled
	run   []printPart // text and outputs not yet added to out (see flush)
	prog  *jinja.Program
	opt   Options
	file  *jinja.Source
	frame *jinja.Frame
	used  map[*jinja.Symbol]bool
	// refs counts the references to each symbol, plainLoop those that
	// read a plain attribute of a loop variable (loop.index), for
	// forNode to decide whether the loop object can escape.
	refs, plainLoop map[*jinja.Symbol]int
	marks           []markInfo // the budget marks met so far (budget.go)
}

// Compile compiles a checked program.
func Compile(p *jinja.Program, opt Options) (t *Template, err error) {
	c := &compiler{prog: p, opt: opt, file: p.Tree.Source, frame: p.Root, used: map[*jinja.Symbol]bool{},
		refs: map[*jinja.Symbol]int{}, plainLoop: map[*jinja.Symbol]int{}}
	for _, sym := range p.Refs {
		c.used[sym] = true
		c.refs[sym]++
	}
	jinja.InspectAll(p.Tree.Root, func(n jinja.Node) bool {
		if a, ok := n.(*jinja.AttrExpr); ok && loopFields[a.Name] {
			if x, ok := a.X.(*jinja.NameExpr); ok {
				if s := p.Refs[x]; s != nil && s.Kind == jinja.SymLoop {
					c.plainLoop[s]++
				}
			}
		}
		return true
	})
	defer func() {
		if r := recover(); r != nil {
			ce, ok := r.(compileError)
			if !ok {
				panic(r)
			}
			t, err = nil, ce.err
		}
	}()
	t = &Template{slots: p.Root.Slots, chat: p.Chat, strict: opt.Strict}
	if opt.Strict {
		// A name of the top level read before anything is assigned to it
		// is a strict undefined value that says so.
		t.inits = c.inits(p.Root, nil)
	}
	if in := p.Inherit; in != nil {
		t.root = c.inherited(in)
	} else {
		t.root = c.body(p.Tree.Root)
	}
	t.marks, t.order = c.marks, cutOrder(c.marks)
	for _, sym := range p.Root.Symbols {
		if sym.Kind != jinja.SymVariable {
			continue
		}
		vs := varSlot{name: sym.Name, slot: sym.Slot}
		if d, ok := opt.Defaults[sym.Name]; ok {
			vs.def, vs.has = FromGo(d), true
		}
		vs.undef = c.undefinedName(sym.Name, fmt.Sprintf("the variable %q was not passed, and has no default", sym.Name))
		t.vars = append(t.vars, vs)
	}
	return t, nil
}

// compileError carries a problem the checks should have caught.
type compileError struct{ err error }

func (c *compiler) fail(n jinja.Node, format string, args ...any) {
	panic(compileError{jinja.At(c.file, n.Position(), jinja.Syntax, fmt.Sprintf(format, args...), nil)})
}

func (c *compiler) site(n jinja.Node) site { return site{src: c.file, pos: n.Position()} }

// add appends a statement to the body being compiled.
func (c *compiler) add(n node) {
	c.flush()
	c.out = append(c.out, n)
}

// text adds template text to the run being collected.
func (c *compiler) text(s string) {
	if s == "" {
		return
	}
	if n := len(c.run); n > 0 && c.run[n-1].x == nil {
		c.run[n-1].text += s
		return
	}
	c.run = append(c.run, printPart{text: s})
}

// flush adds the run of text and outputs collected to the body: text
// alone as a text node, anything with an output as one print node.
func (c *compiler) flush() {
	run := c.run
	c.run = nil
	switch {
	case len(run) == 0:
	case len(run) == 1 && run[0].x == nil:
		c.out = append(c.out, textNode(run[0].text))
	default:
		c.out = append(c.out, printNode(run))
	}
}

// body compiles a list of Jinja nodes into a body of its own.
func (c *compiler) body(nodes []jinja.Node) body {
	savedOut, savedRun := c.out, c.run
	c.out, c.run = nil, nil
	for _, n := range nodes {
		c.node(n)
	}
	c.flush()
	b := c.out
	c.out, c.run = savedOut, savedRun
	return b
}

// in compiles f with fr as the current frame and file as the source.
func (c *compiler) in(fr *jinja.Frame, file *jinja.Source, f func()) {
	savedF, savedS := c.frame, c.file
	c.frame, c.file = fr, file
	f()
	c.frame, c.file = savedF, savedS
}

// bodyIn compiles nodes into a body with fr as the current frame and
// file as the source.
func (c *compiler) bodyIn(fr *jinja.Frame, file *jinja.Source, nodes []jinja.Node) (b body) {
	c.in(fr, file, func() { b = c.body(nodes) })
	return b
}

func (c *compiler) node(n jinja.Node) {
	switch n := n.(type) {
	case *jinja.TextNode:
		c.text(n.Text)
	case *jinja.OutputNode:
		c.output(n)
	case *jinja.IfNode:
		d := &ifNode{branches: make([]ifBranch, len(n.Branches))}
		for i, b := range n.Branches {
			br := &d.branches[i]
			br.cond = c.expr(b.Cond)
			br.test, _ = br.cond.(boolExpr)
			br.at = c.site(b.Cond)
			br.body = c.body(b.Body)
		}
		d.els = c.body(n.Else)
		c.add(d)
	case *jinja.ForNode:
		c.forNode(n)
	case *jinja.SetNode:
		c.add(&setDef{x: c.expr(n.Value), t: c.target(n.Target)})
	case *jinja.SetBlockNode:
		d := &captureDef{at: c.site(n)}
		for _, f := range n.Filters {
			d.filters = append(d.filters, c.filterCall(f))
		}
		t := c.target(n.Target)
		d.t = &t
		// The body is a scope of its own, as in Jinja: what it sets stays in it.
		fr := c.prog.Frame[n]
		c.in(fr, c.file, func() {
			d.body = body{&scopeDef{inits: c.inits(fr, nil), body: c.body(n.Body)}}
		})
		c.add(d)
	case *jinja.FilterBlockNode:
		d := &captureDef{at: c.site(n)}
		for _, f := range n.Filters {
			d.filters = append(d.filters, c.filterCall(f))
		}
		d.body = c.body(n.Body)
		c.add(d)
	case *jinja.WithNode:
		fr := c.prog.Frame[n]
		d := &scopeDef{}
		for _, v := range n.Values {
			d.values = append(d.values, c.expr(v))
		}
		c.in(fr, c.file, func() {
			for _, t := range n.Targets {
				d.targets = append(d.targets, c.target(t))
			}
			d.inits = c.inits(fr, nil)
			d.body = c.body(n.Body)
		})
		c.add(d)
	case *jinja.IncludeNode:
		t := c.prog.Trees[n]
		if t == nil {
			c.fail(n, "internal error: unresolved include")
		}
		fr := c.prog.Frame[n]
		c.in(fr, t.Source, func() {
			if fr.Kind == jinja.FrameModule {
				c.add(&isolatedDef{slots: fr.Slots, body: c.body(t.Root)})
			} else {
				c.add(&scopeDef{inits: c.inits(fr, nil), body: c.body(t.Root)})
			}
		})
	case *jinja.ImportNode:
		d := c.importDef(n, n.WithContext)
		t := c.target(&jinja.NameExpr{Pos: n.Pos, Name: n.Target})
		d.target = &t
		c.add(d)
	case *jinja.FromImportNode:
		d := c.importDef(n, n.WithContext)
		for _, in := range n.Names {
			name := in.Name
			if in.Alias != "" {
				name = in.Alias
			}
			d.names = append(d.names, importedName{name: in.Name, t: c.target(&jinja.NameExpr{Pos: in.Pos, Name: name})})
		}
		c.add(d)
	case *jinja.MacroNode:
		d := c.macroDef(n, n.Name, n.Params, c.prog.Frame[n], n.Body)
		d.t = c.target(&jinja.NameExpr{Pos: n.Pos, Name: n.Name})
		c.add(d)
	case *jinja.CallBlockNode:
		d := &callBlockDef{at: c.site(n), call: c.callX(n.Call)}
		d.caller = c.macroDef(n, "caller", n.Params, c.prog.Frame[n], n.Body)
		d.caller.isCaller = true
		c.add(d)
	case *jinja.BlockNode:
		c.block(n)
	case *jinja.ExtendsNode:
		// resolved by inherited
	case *jinja.AutoescapeNode:
		c.nodes(n.Body)
	case *jinja.GenerationNode:
		c.nodes(n.Body)
	case *jinja.ShrinkNode:
		c.add(&shrinkDef{mark: c.mark(n.Mark, markBlock, n), body: c.body(n.Body)})
	case *jinja.BreakNode:
		c.add(breakNode{})
	case *jinja.ContinueNode:
		c.add(continueNode{})
	case *jinja.ChatNode:
		d := &chatDef{at: c.site(n), lit: -1, mark: c.mark(n.Mark, markMessage, n)}
		if k, ok := n.Role.(*jinja.ConstExpr); ok {
			if s, ok := k.Value.(string); ok {
				d.lit = roleIndex(s)
			}
		}
		if d.lit < 0 {
			d.role, d.allow = c.expr(n.Role), n.Allow
		}
		d.body = c.body(n.Body)
		c.add(d)
	default:
		c.fail(n, "internal error: the engine cannot run %T", n)
	}
}

// nodes compiles Jinja nodes into the body being compiled (a construct
// that only wraps its body: autoescape, generation).
func (c *compiler) nodes(nodes []jinja.Node) {
	for _, n := range nodes {
		c.node(n)
	}
}

// inherited compiles a chain of templates: the top level of each that
// extends another (what follows its extends tag in a discarding body),
// then the layout.
func (c *compiler) inherited(in *jinja.Inheritance) body {
	var root body
	for _, t := range in.Chain[:len(in.Chain)-1] {
		c.in(c.prog.Root, t.Source, func() {
			var top, discarded []jinja.Node
			discarding := false
			for _, n := range t.Root {
				switch n.(type) {
				case *jinja.ExtendsNode:
					discarding = true
					continue
				case *jinja.BlockNode:
					continue
				}
				if discarding {
					discarded = append(discarded, n)
				} else {
					top = append(top, n)
				}
			}
			root = append(root, c.body(top)...)
			if discarding {
				root = append(root, &discardDef{body: c.body(discarded)})
			}
		})
	}
	layout := in.Chain[len(in.Chain)-1]
	return append(root, c.bodyIn(c.prog.Root, layout.Source, layout.Root)...)
}

// block compiles a block site: each definition of its name, most derived
// first.
func (c *compiler) block(n *jinja.BlockNode) {
	defs := []*jinja.BlockNode{n}
	srcs := map[*jinja.BlockNode]*jinja.Source{n: c.file}
	if in := c.prog.Inherit; in != nil && len(in.Blocks[n.Name]) > 0 {
		defs, srcs = in.Blocks[n.Name], in.Source
	}
	d := &blockSite{at: c.site(n), name: n.Name, scoped: n.Scoped}
	for _, def := range defs {
		fr := c.prog.Frame[def]
		if fr == nil {
			c.fail(def, "internal error: an unchecked block")
		}
		impl := blockImpl{slots: fr.Slots, super: -1}
		src := srcs[def]
		if src == nil {
			src = c.file
		}
		c.in(fr, src, func() {
			impl.inits = c.inits(fr, nil)
			if s := fr.Lookup("super"); s != nil && c.used[s] {
				impl.super = s.Slot
			}
			impl.body = c.body(def.Body)
		})
		d.defs = append(d.defs, impl)
	}
	c.add(d)
}

func (c *compiler) output(n *jinja.OutputNode) {
	if f, ok := n.X.(*jinja.FilterExpr); ok && f.Name == "image" && c.prog.Chat {
		c.add(&imageDef{at: c.site(n), x: c.expr(f.X)})
		return
	}
	x := c.expr(n.X)
	if k, ok := x.(*constX); ok && k.v.k == String && !k.v.isMarkup() {
		c.text(k.v.s) // a constant prints at load
		return
	}
	p := printPart{x: x, at: c.site(n.X), slot: -1}
	switch x := x.(type) {
	case *slotX:
		p.slot = int32(x.slot)
	case *attrX:
		if v, ok := x.x.(*slotX); ok && !x.method {
			p.slot = int32(v.slot)
		}
	case *filterX:
		if x.c.printable() {
			p.slot = printFilter
		}
	}
	c.run = append(c.run, p)
}

func (c *compiler) forNode(n *jinja.ForNode) {
	fr := c.prog.Frame[n]
	d := &forDef{at: c.site(n), iter: c.expr(n.Iter), loopSlot: -1, recursive: n.Recursive, mark: c.mark(n.Mark, markItems, n)}
	if d.mark >= 0 {
		d.markInfo = c.marks[d.mark]
	}
	c.in(fr, c.file, func() {
		d.t = c.target(n.Target)
		if n.Cond != nil {
			d.cond = c.expr(n.Cond)
		}
		if l := fr.Lookup("loop"); l != nil && (c.used[l] || n.Recursive) {
			d.loopSlot = l.Slot
			d.reuse = !n.Recursive && c.refs[l] == c.plainLoop[l] && !definesCallables(n.Body)
		}
		d.inits = c.inits(fr, targetNames(n.Target))
		if n.Recursive {
			d.slots = fr.Slots
		}
		d.body = c.body(n.Body)
	})
	d.els = c.body(n.Else)
	c.add(d)
}

// loopFields are the attributes of loop that are values: reading one
// copies it out, so a loop whose body only reads these (and defines no
// macro, call block or block that could keep loop past an iteration) can
// use a loop object the render's state owns, allocating none.
var loopFields = map[string]bool{"index": true, "index0": true, "revindex": true, "revindex0": true,
	"first": true, "last": true, "length": true, "depth": true, "depth0": true, "previtem": true, "nextitem": true}

// definesCallables reports whether body defines a macro, call block or
// block, whose body may run after the iteration that defined it.
func definesCallables(body []jinja.Node) bool {
	found := false
	jinja.InspectAll(body, func(n jinja.Node) bool {
		switch n.(type) {
		case *jinja.MacroNode, *jinja.CallBlockNode, *jinja.BlockNode:
			found = true
		}
		return !found
	})
	return found
}

// targetNames lists the names a target binds.
func targetNames(t jinja.Expr) []string {
	switch t := t.(type) {
	case *jinja.NameExpr:
		return []string{t.Name}
	case *jinja.TupleExpr:
		var out []string
		for _, it := range t.Items {
			out = append(out, targetNames(it)...)
		}
		return out
	}
	return nil
}

// inits is how a frame starts: each of its symbols (but those in skip,
// which the frame binds first thing) from its outer binding, or undefined.
func (c *compiler) inits(fr *jinja.Frame, skip []string) []frameInit {
	var out []frameInit
	for _, s := range fr.Symbols {
		if s.Kind != jinja.SymLocal || slices.Contains(skip, s.Name) {
			continue
		}
		in := frameInit{slot: s.Slot}
		if s.Outer != nil {
			in.from = c.symbolRef(s.Outer, fr)
		} else {
			in.undef = c.undefinedName(s.Name, "no value was assigned to it yet")
		}
		out = append(out, in)
	}
	return out
}

func (c *compiler) importDef(n jinja.Node, withContext bool) *importDef {
	fr := c.prog.Frame[n]
	t := c.prog.Trees[n]
	if fr == nil || t == nil {
		c.fail(n, "internal error: unresolved import")
	}
	d := &importDef{at: c.site(n), file: t.Source.Name, slots: fr.Slots, context: withContext}
	for _, s := range fr.Symbols {
		if s.Kind == jinja.SymLocal && !strings.HasPrefix(s.Name, "_") {
			d.exports = append(d.exports, exported{name: s.Name, slot: s.Slot})
		}
	}
	d.body = c.bodyIn(fr, t.Source, t.Root)
	return d
}

func (c *compiler) macroDef(n jinja.Node, name string, params []*jinja.Param, fr *jinja.Frame, nodes []jinja.Node) *macroDef {
	d := &macroDef{at: c.site(n), name: name, slots: fr.Slots, caller: -1, varargs: -1, kwargs: -1}
	var names []string
	c.in(fr, c.file, func() {
		for _, p := range params {
			mp := macroParam{name: p.Name, slot: fr.Lookup(p.Name).Slot}
			if p.Default != nil {
				mp.def = c.expr(p.Default)
			} else {
				mp.undef = c.undefinedName(p.Name, fmt.Sprintf("parameter %q of macro %s was not provided", p.Name, name))
			}
			d.params = append(d.params, mp)
			names = append(names, p.Name)
		}
	})
	for _, special := range []struct {
		name string
		slot *int
	}{{"caller", &d.caller}, {"varargs", &d.varargs}, {"kwargs", &d.kwargs}} {
		if s := fr.Lookup(special.name); s != nil && s.Kind == jinja.SymCaller && c.used[s] {
			*special.slot = s.Slot
		}
	}
	c.in(fr, c.file, func() {
		d.inits = c.inits(fr, names)
		d.body = c.body(nodes)
	})
	return d
}

// target compiles an assignment target in the current frame.
func (c *compiler) target(t jinja.Expr) target {
	switch t := t.(type) {
	case *jinja.NameExpr:
		s := c.prog.Refs[t]
		if s == nil {
			s = c.frame.Lookup(t.Name)
		}
		if s == nil {
			c.fail(t, "internal error: unbound target %s", t.Name)
		}
		return target{at: c.site(t), hops: s.Hops(c.frame), slot: s.Slot}
	case *jinja.TupleExpr:
		tt := target{at: c.site(t)}
		for _, it := range t.Items {
			tt.items = append(tt.items, c.target(it))
		}
		if tt.items == nil {
			tt.items = []target{}
		}
		return tt
	case *jinja.AttrExpr:
		return target{at: c.site(t), ns: c.expr(t.X), attr: t.Name}
	}
	c.fail(t, "cannot assign to %s", t.String())
	return target{}
}

// symbolRef reads a symbol from frame fr.
func (c *compiler) symbolRef(s *jinja.Symbol, fr *jinja.Frame) expr {
	if s.Kind == jinja.SymGlobal {
		d := tables().globals[s.Name]
		return &constX{v: objectValue(&builtin{name: s.Name, def: d})}
	}
	hops := s.Hops(fr)
	if hops < 0 {
		return &constX{v: c.undefinedName(s.Name, "no value is bound to it here")}
	}
	if hops == 0 {
		return &slotX{slot: s.Slot}
	}
	return &outerX{hops: hops, slot: s.Slot}
}

// undefinedName is the value of a name not bound at run time: undefined,
// and in a strict template the strict undefined value that says why.
func (c *compiler) undefinedName(name, why string) Value {
	if !c.opt.Strict {
		return undefined
	}
	return strictUndefined(&missing{what: name, hint: why})
}

// what names an expression in messages, kept short.
func what(x jinja.Expr) string {
	s := x.String()
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func (c *compiler) exprs(xs []jinja.Expr) []expr {
	out := make([]expr, len(xs))
	for i, x := range xs {
		out[i] = c.expr(x)
	}
	return out
}

func (c *compiler) kwargs(ks []*jinja.Keyword) []kwExpr {
	out := make([]kwExpr, len(ks))
	for i, k := range ks {
		out[i] = kwExpr{name: k.Name, x: c.expr(k.Value)}
	}
	return out
}

func (c *compiler) optExpr(x jinja.Expr) expr {
	if x == nil {
		return nil
	}
	return c.expr(x)
}

func (c *compiler) expr(x jinja.Expr) expr {
	switch x := x.(type) {
	case *jinja.NameExpr:
		s := c.prog.Refs[x]
		if s == nil {
			c.fail(x, "internal error: unresolved name %s", x.Name)
		}
		return c.symbolRef(s, c.frame)
	case *jinja.ConstExpr:
		return &constX{v: c.constant(x)}
	case *jinja.ListExpr:
		return c.fold(&listX{at: c.site(x), items: c.exprs(x.Items)})
	case *jinja.TupleExpr:
		return c.fold(&listX{at: c.site(x), items: c.exprs(x.Items), tuple: true})
	case *jinja.DictExpr:
		return c.fold(&dictX{at: c.site(x), keys: c.exprs(x.Keys), vals: c.exprs(x.Values)})
	case *jinja.AttrExpr:
		a := &attrX{at: c.site(x), x: c.expr(x.X), name: x.Name, what: what(x.X), full: what(x), method: slices.Contains(dictMethods, x.Name), slot: -1}
		if s, ok := a.x.(*slotX); ok {
			a.slot = int32(s.slot)
		}
		return a
	case *jinja.IndexExpr:
		if s, ok := x.Index.(*jinja.SliceExpr); ok {
			return &sliceX{at: c.site(x), x: c.expr(x.X), start: c.optExpr(s.Start), stop: c.optExpr(s.Stop), step: c.optExpr(s.Step)}
		}
		return &itemX{at: c.site(x), x: c.expr(x.X), key: c.expr(x.Index), what: what(x.X), full: what(x)}
	case *jinja.CallExpr:
		return c.call(x)
	case *jinja.FilterExpr:
		if c.unknown(c.opt.filterDef(x.Name)) {
			return c.failsAtRuntime(x, fmt.Sprintf("filter %q is not supported", x.Name))
		}
		f := &filterX{x: c.input(x), c: *c.filterCall(x)}
		if a, ok := f.x.(*attrX); ok && f.c.def.anyUndefined {
			a.quiet = true
		}
		return f
	case *jinja.TestExpr:
		if n, ok := x.X.(*jinja.NameExpr); ok && (x.Name == "defined" || x.Name == "undefined") {
			return &definedX{x: c.expr(n), neg: (x.Name == "undefined") != x.Negated}
		}
		d := tables().tests[x.Name]
		if c.unknown(d) {
			return c.failsAtRuntime(x, fmt.Sprintf("test %q is not supported", x.Name))
		}
		return &testX{x: c.expr(x.X), c: c.builtinCall(x, d, x.Args, x.Kwargs, x.DynArgs, x.DynKwargs), neg: x.Negated}
	case *jinja.UnaryExpr:
		switch x.Op {
		case "not":
			return &notX{at: c.site(x), x: c.expr(x.X)}
		case "-":
			return c.fold(&negX{at: c.site(x), x: c.expr(x.X), neg: true})
		}
		return &negX{at: c.site(x), x: c.expr(x.X)}
	case *jinja.BinaryExpr:
		l, r := c.expr(x.L), c.expr(x.R)
		lb, lok := l.(boolExpr)
		rb, rok := r.(boolExpr)
		switch {
		case (x.Op == "and" || x.Op == "or") && lok && rok:
			return &boolLogicX{l: lb, r: rb, or: x.Op == "or"}
		case x.Op == "and":
			return &andX{at: c.site(x.L), l: l, r: r}
		case x.Op == "or":
			return &orX{at: c.site(x.L), l: l, r: r}
		}
		if x.Op == "+" {
			return chainAdd(c.site(x), l, r)
		}
		return &binX{at: c.site(x), op: x.Op, l: l, r: r}
	case *jinja.ConcatExpr:
		return &concatX{at: c.site(x), items: c.exprs(x.Items)}
	case *jinja.CompareExpr:
		cx := &compareX{at: c.site(x), x: c.expr(x.X)}
		for _, op := range x.Ops {
			cx.ops = append(cx.ops, cmpOp{op: op.Op, y: c.expr(op.Y)})
		}
		return cx
	case *jinja.CondExpr:
		return &condX{at: c.site(x.Test), test: c.expr(x.Test), then: c.expr(x.Then), els: c.optExpr(x.Else)}
	case *jinja.SliceExpr:
		c.fail(x, "a slice outside brackets")
	}
	c.fail(x, "internal error: the engine cannot evaluate %T", x)
	return nil
}

// input is a filter's input expression.
func (c *compiler) input(f *jinja.FilterExpr) expr {
	if f.X == nil {
		c.fail(f, "internal error: a filter without input")
	}
	return c.expr(f.X)
}

func (c *compiler) constant(x *jinja.ConstExpr) Value {
	switch v := x.Value.(type) {
	case nil:
		return none
	case bool:
		return boolValue(v)
	case string:
		return strValue(v)
	case int64:
		return intValue(v)
	case float64:
		return floatValue(v)
	case *big.Int:
		return bigValue(v)
	}
	c.fail(x, "internal error: constant %T", x.Value)
	return Value{}
}

// fold evaluates an expression of constants at load. Lists, tuples and
// dicts of constants become one shared value: a template cannot change a
// value, so sharing is safe.
func (c *compiler) fold(x expr) expr {
	isConst := func(e expr) bool { _, ok := e.(*constX); return ok }
	switch e := x.(type) {
	case *listX:
		for _, it := range e.items {
			if !isConst(it) {
				return x
			}
		}
	case *dictX:
		for i := range e.keys {
			if !isConst(e.keys[i]) || !isConst(e.vals[i]) {
				return x
			}
		}
	case *negX:
		if !isConst(e.x) {
			return x
		}
	default:
		return x
	}
	st := &state{lim: &Limits{}, mem: 1 << 30, work: 1 << 30}
	v, ok := func() (v Value, ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		return x.eval(st), true
	}()
	if !ok {
		return x // evaluated at render, where its error has a template
	}
	return &constX{v: v}
}

// filterDef is the filter a name calls in this environment.
func (o Options) filterDef(name string) *builtinDef {
	if o.HuggingFace && name == "tojson" {
		return hfToJSONDef
	}
	return tables().filters[name]
}

// unknown reports a builtin the runtime does not run (only a lenient
// check lets one through: see jinja.Config.Lenient).
func (c *compiler) unknown(d *builtinDef) bool { return d == nil || d.refused != "" }

// failsAtRuntime compiles what fails when it is reached.
func (c *compiler) failsAtRuntime(n jinja.Node, msg string) expr {
	return &failX{at: c.site(n), msg: msg}
}

// filterCall binds a filter's arguments.
func (c *compiler) filterCall(f *jinja.FilterExpr) *builtinCall {
	d := c.opt.filterDef(f.Name)
	if d == nil || d.refused != "" {
		c.fail(f, "filter %q is not supported", f.Name)
	}
	bc := c.builtinCall(f, d, f.Args, f.Kwargs, f.DynArgs, f.DynKwargs)
	return &bc
}

func (c *compiler) builtinCall(n jinja.Node, d *builtinDef, args []jinja.Expr, kw []*jinja.Keyword, dyn, dynkw jinja.Expr) builtinCall {
	bc := builtinCall{at: c.site(n), def: d, dyn: c.optExpr(dyn), dynkw: c.optExpr(dynkw)}
	if bc.dyn != nil || bc.dynkw != nil {
		bc.args, bc.kw = c.exprs(args), c.kwargs(kw)
		return bc
	}
	bound, rest, kws, err := bind(d, c.exprs(args), c.kwargs(kw))
	if err != nil {
		c.fail(n, "%v", err)
	}
	bc.args, bc.rest, bc.kw = bound, rest, kws
	bc.fix()
	return bc
}

func (c *compiler) call(x *jinja.CallExpr) expr {
	switch fn := x.Fn.(type) {
	case *jinja.NameExpr:
		if s := c.prog.Refs[fn]; s != nil && s.Kind == jinja.SymGlobal {
			d := tables().globals[fn.Name]
			return &globalX{c: c.builtinCall(x, d, x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)}
		}
	case *jinja.AttrExpr:
		m := &methodX{at: c.site(x), recv: c.expr(fn.X), name: fn.Name, args: c.exprs(x.Args), kw: c.kwargs(x.Kwargs),
			dyn: c.optExpr(x.DynArgs), dynkw: c.optExpr(x.DynKwargs), what: what(x.Fn)}
		if ms := tables().methods[fn.Name]; ms != nil {
			for _, p := range []struct {
				d  *builtinDef
				to **builtinCall
			}{{ms.str, &m.str}, {ms.list, &m.list}, {ms.dict, &m.dict}} {
				if p.d == nil || p.d.refused != "" {
					continue
				}
				if _, _, _, err := bind(p.d, m.args, m.kw); err != nil && m.dyn == nil && m.dynkw == nil {
					continue // wrong arguments for this type: an error at run time
				}
				bc := c.builtinCall(x, p.d, x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
				*p.to = &bc
			}
		}
		return m
	}
	return c.callX(x)
}

func (c *compiler) callX(x *jinja.CallExpr) *callX {
	return &callX{at: c.site(x), fn: c.expr(x.Fn), args: c.exprs(x.Args), kw: c.kwargs(x.Kwargs),
		dyn: c.optExpr(x.DynArgs), dynkw: c.optExpr(x.DynKwargs), what: what(x.Fn)}
}
