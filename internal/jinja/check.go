package jinja

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The checks run over a parsed template before anything runs: every name
// resolves to a binding (a declared variable, a local, a global of the
// runtime), in every branch, whether or not a render would take it; every
// filter, test, method and global is one the runtime has, called with
// arguments it takes; includes and imports resolve to files of the set,
// without cycles and within the size limit; chat templates keep their
// structure. Every problem is reported, not just the first.

// Spec describes one filter, test, global function or method of the
// runtime, for the checks: how many positional arguments it takes, which
// keyword arguments, or why it is refused.
type Spec struct {
	MinArgs, MaxArgs int      // positional arguments after the input; MaxArgs -1: any number
	Kwargs           []string // keyword arguments it accepts (a name may also be passed by position)
	AnyKwargs        bool     // it takes any keyword arguments (namespace, dict)
	Refused          string   // non-empty: the construct exists in Jinja but is refused, and why
	// Receivers are, for a method, the kinds of value that have it (the
	// type pass reports a method called on a value of none of them); 0:
	// not known.
	Receivers Kinds
	// Input are, for a filter or test, the kinds of value it takes as its
	// input (the type pass reports a typed value of none of them); 0: any.
	Input Kinds
	// Result is what it returns, as far as the type pass follows values.
	Result Result
	// TakesUndefined: a filter or test that takes an undefined input in a
	// strict template (defined, default, …): a read of an optional
	// variable as its input is guarded (guards.go).
	TakesUndefined bool
}

// Result is the type a builtin returns, for the type pass: fixed kinds,
// or a rule that derives it from the call.
type Result struct {
	Kinds Kinds // the kinds it returns, for ResultFixed; 0: not known
	Items Kinds // the kinds of an array result's items, when known
	Rule  ResultRule
}

// ResultRule says how a builtin's result type follows from its call.
type ResultRule uint8

const (
	ResultFixed      ResultRule = iota // Result.Kinds and Items
	ResultInput                        // the input itself, when it is certainly an array (list, sort, select…)
	ResultSame                         // the input itself, whatever it is (copy)
	ResultElem                         // an item of the input; a string's are strings (first, last)
	ResultInputOrArg                   // the input or the first argument (default)
	ResultMember                       // the member the first argument names, or the second argument (get)
)

// Catalog lists what the runtime provides; the runtime builds it from the
// tables it runs, so the checks and their messages never drift from it.
type Catalog struct {
	Filters map[string]Spec
	Tests   map[string]Spec
	Globals map[string]Spec // global functions and values (range, namespace, …)
	Methods map[string]Spec // methods of any value type (upper, items, startswith, …)
	Loop    []string        // the attributes of loop (index, first, cycle, …)
	// ChatRoles are the roles a {% chat %} block may take.
	ChatRoles []string
}

// Config is what the checks know beyond the tree.
type Config struct {
	Catalog Catalog
	// Declared are the template's variables; the checks refuse a name that
	// is neither one of them nor bound by the template.
	Declared []string
	// DeclareHint ends the message of an undeclared name, saying where to
	// declare it (for promptkit: the template's entry in index.json).
	DeclareHint string
	// Load returns a fresh parse of the file at path (relative to the
	// set's root), for include, import and from; each call must return new
	// nodes. Its error is reported at the tag that names the file.
	Load func(path string) (*Tree, error)
	// MaxInlined bounds the source bytes one template holds with every
	// include and import expanded; 0 is no bound.
	MaxInlined int
	// MaxIncludeDepth bounds the nesting of includes and imports.
	MaxIncludeDepth int
	// Lenient leaves unknown and refused filters, tests and methods to the
	// runtime, which fails the render that reaches one, as Jinja does for
	// filters and tests inside conditional branches and its sandbox does
	// for methods: for third-party templates (a model's chat template) that
	// hold such calls in branches they do not take.
	Lenient bool
}

// Program is a checked template: the tree and what the checks found.
type Program struct {
	Tree  *Tree
	Root  *Frame
	Refs  map[*NameExpr]*Symbol // the binding of every name, read or assigned
	Frame map[Node]*Frame       // the frame each frame-making node makes
	Trees map[Node]*Tree        // the resolved file of each include, import and from
	Used  map[string]bool       // declared variables the template reads
	Chat  bool                  // the template has chat blocks
	// Inherit is the chain of a template that extends another; nil when it
	// does not.
	Inherit *Inheritance
	// Inlined is the template's size in source bytes with every include
	// and import expanded.
	Inlined int
}

// LoadError is what Config.Load returns for a file that is missing or
// outside the set; its Kind says which.
type LoadError struct {
	Kind Kind
	Msg  string
}

func (e *LoadError) Error() string { return e.Msg }

// Check resolves and checks a parsed template. It returns the program and
// every problem found, as an ErrorList positioned in the files they are in.
func Check(t *Tree, cfg *Config) (*Program, error) {
	c := &checker{cfg: cfg, prog: &Program{Tree: t, Refs: map[*NameExpr]*Symbol{}, Frame: map[Node]*Frame{},
		Trees: map[Node]*Tree{}, Used: map[string]bool{}}, globals: map[string]*Symbol{}, src: t.Source,
		pending: map[*Frame][]func(){}}
	c.prog.Inlined = len(t.Source.Text)
	root := newFrame(FrameRoot, nil, nil)
	for _, d := range cfg.Declared {
		root.bind(d, SymVariable)
	}
	c.prog.Root = root
	c.stack = []string{t.Source.Name}
	if c.cfg.MaxInlined > 0 && c.cfg.Load != nil {
		// Refuse an amplifying set before expanding anything: the size of
		// each file with its includes expanded, from one parse of each.
		if n, chain, at, tag := c.expandedSize(t); n > c.cfg.MaxInlined {
			c.report(errInlinedSize(at, tag, chain, c.cfg.MaxInlined))
			return c.prog, c.errs
		}
	}
	c.inFrame(root, func() {
		if extendsNode(t) != nil {
			if in := c.inherit(t); in != nil {
				c.checkInherited(in)
			}
			return
		}
		for _, n := range t.Root {
			c.top = true
			c.node(n)
		}
		c.top = false
	})
	c.chat(t)
	if len(c.errs) > 0 {
		return c.prog, c.errs
	}
	return c.prog, nil
}

type checker struct {
	cfg     *Config
	prog    *Program
	errs    ErrorList
	cur     *Frame
	src     *Source
	stack   []string // the chain of files being expanded
	globals map[string]*Symbol
	pending map[*Frame][]func() // closure bodies to check once their frame is complete
	seen    map[string]bool     // undeclared names already reported, by file and position
	loops   []*ForNode          // the loops around the current node
	// top is set while a node of the root template's own body runs (not
	// one nested in a tag); overwritten holds the declared variables a
	// top-level set has assigned so far: a read after it, outside any
	// macro, sees the template's value, never the one passed, so it does
	// not make the variable used.
	top         bool
	overwritten map[string]bool
	modules     map[*Symbol]*Frame // names bound by {% import … as name %}, to their module
	// overSize is set once the template has outgrown MaxInlined: nothing
	// more is loaded (each further include would only repeat the error).
	overSize bool
}

func (c *checker) report(e *Error) {
	if e.File == "" {
		e.File = c.src.Name
		e.Line, e.Col = c.src.Position(e.Pos)
	}
	c.errs = append(c.errs, e)
}

// inFrame runs f with fr as the current frame, then checks the closures
// defined in it: their free names see every binding of the frame, as they
// do in Jinja, where a macro reads its names when it is called.
func (c *checker) inFrame(fr *Frame, f func()) {
	saved := c.cur
	c.cur = fr
	f()
	for len(c.pending[fr]) > 0 {
		q := c.pending[fr]
		c.pending[fr] = nil
		for _, g := range q {
			g()
		}
	}
	delete(c.pending, fr)
	c.cur = saved
}

// later queues the check of a closure body defined in the current frame.
func (c *checker) later(f func()) {
	fr, src, loops := c.cur, c.src, slices.Clone(c.loops)
	stack := slices.Clone(c.stack)
	c.pending[fr] = append(c.pending[fr], func() {
		savedSrc, savedLoops, savedStack := c.src, c.loops, c.stack
		c.src, c.loops, c.stack = src, loops, stack
		f()
		c.src, c.loops, c.stack = savedSrc, savedLoops, savedStack
	})
}

func (c *checker) body(nodes []Node) {
	top := c.top
	c.top = false
	for _, n := range nodes {
		c.node(n)
	}
	c.top = top
}

// overwrite records the declared variables a top-level set assigns.
func (c *checker) overwrite(t Expr) {
	if !c.top || c.cur != c.prog.Root {
		return
	}
	switch t := t.(type) {
	case *NameExpr:
		if s := c.prog.Refs[t]; s != nil && s.Kind == SymVariable {
			if c.overwritten == nil {
				c.overwritten = map[string]bool{}
			}
			c.overwritten[t.Name] = true
		}
	case *TupleExpr:
		for _, it := range t.Items {
			c.overwrite(it)
		}
	}
}

func (c *checker) node(n Node) {
	switch n := n.(type) {
	case *TextNode, *BreakNode, *ContinueNode:
		if _, ok := n.(*TextNode); !ok && len(c.loops) == 0 {
			c.report(errLoopControlOutside(n.Position(), n.String()))
		}
	case *OutputNode:
		c.expr(n.X)
	case *IfNode:
		for _, b := range n.Branches {
			c.expr(b.Cond)
			c.body(b.Body)
		}
		c.body(n.Else)
	case *ForNode:
		c.forNode(n)
	case *SetNode:
		c.expr(n.Value)
		c.assign(n.Target)
		c.overwrite(n.Target)
	case *SetBlockNode:
		fr := newFrame(FrameSetBlock, n, c.cur)
		c.prog.Frame[n] = fr
		c.inFrame(fr, func() { c.body(n.Body) })
		for _, f := range n.Filters {
			c.expr(f)
		}
		c.assign(n.Target)
		c.overwrite(n.Target)
	case *WithNode:
		for _, v := range n.Values {
			c.expr(v)
		}
		fr := newFrame(FrameWith, n, c.cur)
		c.prog.Frame[n] = fr
		c.inFrame(fr, func() {
			for _, t := range n.Targets {
				c.assign(t)
			}
			c.body(n.Body)
		})
	case *IncludeNode:
		c.include(n)
	case *ImportNode:
		c.importNode(n, n.Template, n.WithContext, func(mod *Frame) {
			s := c.bindLocal(n.Pos, n.Target)
			if c.modules == nil {
				c.modules = map[*Symbol]*Frame{}
			}
			c.modules[s] = mod
		})
	case *FromImportNode:
		c.importNode(n, n.Template, n.WithContext, func(mod *Frame) {
			for _, in := range n.Names {
				if mod != nil {
					if _, ok := mod.byName[in.Name]; !ok {
						c.report(errNotExported(in.Pos, in.Name, exported(mod)))
					}
				}
				name := in.Name
				if in.Alias != "" {
					name = in.Alias
				}
				c.bindLocal(in.Pos, name)
			}
		})
	case *MacroNode:
		c.bindLocal(n.Pos, n.Name)
		c.closure(FrameMacro, n, n.Params, n.Body)
	case *CallBlockNode:
		c.expr(n.Call)
		c.closure(FrameCall, n, n.Params, n.Body)
	case *FilterBlockNode:
		for _, f := range n.Filters {
			c.expr(f)
		}
		c.body(n.Body)
	case *AutoescapeNode:
		c.expr(n.X)
		c.autoescape(n)
		c.body(n.Body)
	case *ChatNode:
		c.expr(n.Role)
		c.body(n.Body)
	case *GenerationNode, *ShrinkNode:
		c.body(Children(n))
	case *ExtendsNode:
		// A top-level extends is resolved before the walk (inherit); one
		// anywhere else is not where Jinja reads it.
		c.report(errExtendsPlace(n.Pos))
	case *BlockNode:
		c.blockSite(n)
	default:
		panic(fmt.Sprintf("jinja: check: unknown node %T", n))
	}
}

func (c *checker) autoescape(n *AutoescapeNode) {
	if k, ok := n.X.(*ConstExpr); !ok || k.Value != false {
		c.report(errAutoescape(n.Pos))
	}
}

// bindLocal binds a name in the current frame, as set does.
func (c *checker) bindLocal(p Pos, name string) *Symbol {
	if reserved(name) {
		c.report(errReservedName(p, name))
	}
	return c.cur.bind(name, SymLocal)
}

// assign binds an assignment target: names, tuples of targets, or a
// namespace attribute (which reads the namespace).
func (c *checker) assign(t Expr) {
	switch t := t.(type) {
	case *NameExpr:
		c.prog.Refs[t] = c.bindLocal(t.Pos, t.Name)
	case *TupleExpr:
		for _, it := range t.Items {
			c.assign(it)
		}
	case *AttrExpr:
		c.expr(t.X)
	default:
		c.report(errBadAssign(t.Position(), t.String()))
	}
}

func (c *checker) forNode(n *ForNode) {
	c.expr(n.Iter)
	kind := FrameLoop
	if n.Recursive {
		kind = FrameRecursive
		if n.Mark != nil {
			c.report(errMarkRecursive(n.Mark.Pos))
		}
	}
	fr := newFrame(kind, n, c.cur)
	c.prog.Frame[n] = fr
	c.inFrame(fr, func() {
		c.assign(n.Target)
		if n.Cond != nil {
			// The filter sees the loop's targets but not loop itself.
			c.expr(n.Cond)
		}
		fr.bind("loop", SymLoop)
		c.loops = append(c.loops, n)
		c.body(n.Body)
		c.loops = c.loops[:len(c.loops)-1]
	})
	c.body(n.Else)
}

// closure checks a macro's or call block's body once the frame it is
// defined in is complete.
func (c *checker) closure(kind FrameKind, n Node, params []*Param, body []Node) {
	fr := newFrame(kind, n, c.cur)
	c.prog.Frame[n] = fr
	c.later(func() {
		saved := c.loops
		c.loops = nil // break and continue do not cross a macro
		c.inFrame(fr, func() {
			seen := map[string]bool{}
			for _, p := range params {
				if seen[p.Name] {
					c.report(errDuplicateParam(p.Pos, p.Name))
				}
				seen[p.Name] = true
				c.bindLocal(p.Pos, p.Name)
			}
			for _, special := range []string{"caller", "varargs", "kwargs"} {
				if !seen[special] {
					fr.bind(special, SymCaller)
				}
			}
			for _, p := range params {
				if p.Name == "caller" && p.Default == nil && readsName(body, "caller") {
					c.report(errCallerNoDefault(p.Pos))
				}
			}
			// As in Jinja, a default is evaluated when the macro is
			// called, in its scope: it sees the parameters (m(a, b=a))
			// and names bound after the macro.
			for _, p := range params {
				if p.Default != nil {
					c.expr(p.Default)
				}
			}
			c.body(body)
		})
		c.loops = saved
	})
}

// readsName reports whether body reads name, outside the blocks it holds
// (Jinja's find_undeclared: the names a macro's body reads decide which
// special parameters it takes).
func readsName(body []Node, name string) bool {
	found := false
	var visit func(n Node) bool
	visit = func(n Node) bool {
		switch n := n.(type) {
		case *NameExpr:
			found = found || n.Name == name
		case *BlockNode:
			return false
		case *SetNode: // the target is written, not read
			Inspect(n.Value, visit)
			return false
		case *SetBlockNode:
			for _, f := range n.Filters {
				Inspect(f, visit)
			}
			InspectAll(n.Body, visit)
			return false
		case *ForNode:
			Inspect(n.Iter, visit)
			if n.Cond != nil {
				Inspect(n.Cond, visit)
			}
			InspectAll(n.Body, visit)
			InspectAll(n.Else, visit)
			return false
		case *WithNode:
			for _, v := range n.Values {
				Inspect(v, visit)
			}
			InspectAll(n.Body, visit)
			return false
		}
		return !found
	}
	InspectAll(body, visit)
	return found
}

// literalPath returns the path an include or import names, which must be a
// string literal.
func (c *checker) literalPath(x Expr, tag string) (string, bool) {
	k, ok := x.(*ConstExpr)
	if ok {
		if s, ok := k.Value.(string); ok {
			return s, true
		}
	}
	c.report(errDynamicPath(x.Position(), tag))
	return "", false
}

// load resolves a file named by a tag: a fresh tree, checked for cycles,
// depth and the inlined size; nil when it fails (reported).
func (c *checker) load(p Pos, tag, file string, ignoreMissing bool) *Tree {
	clean := path.Clean(file)
	if slices.Contains(c.stack, clean) {
		c.report(errIncludeCycle(p, tag, append(slices.Clone(c.stack), clean)))
		return nil
	}
	if c.cfg.MaxIncludeDepth > 0 && len(c.stack) > c.cfg.MaxIncludeDepth {
		c.report(errIncludeDepth(p, tag, c.cfg.MaxIncludeDepth))
		return nil
	}
	if c.cfg.Load == nil {
		c.report(errNoFiles(p, tag))
		return nil
	}
	if c.overSize {
		return nil
	}
	t, err := c.cfg.Load(clean)
	if err != nil {
		var le *LoadError
		var list ErrorList
		switch {
		case errors.As(err, &le):
			if le.Kind == Include && ignoreMissing {
				return &Tree{Source: NewSource(clean, "")}
			}
			c.report(errLoad(p, tag, file, le))
		case errors.As(err, &list):
			c.errs = append(c.errs, list...)
		default:
			c.report(errLoad(p, tag, file, &LoadError{Kind: Include, Msg: err.Error()}))
		}
		return nil
	}
	c.prog.Inlined += len(t.Source.Text)
	if c.cfg.MaxInlined > 0 && c.prog.Inlined > c.cfg.MaxInlined {
		c.overSize = true
		c.report(errInlinedSize(p, tag, append(slices.Clone(c.stack), clean), c.cfg.MaxInlined))
		return nil
	}
	return t
}

// within checks a resolved file's body with src and the chain set.
func (c *checker) within(t *Tree, f func()) {
	savedSrc, savedStack := c.src, c.stack
	c.src, c.stack = t.Source, append(slices.Clone(c.stack), t.Source.Name)
	f()
	c.src, c.stack = savedSrc, savedStack
}

func (c *checker) include(n *IncludeNode) {
	file, ok := c.literalPath(n.Template, "include")
	if !ok {
		return
	}
	t := c.load(n.Pos, "include", file, n.IgnoreMissing)
	if t == nil {
		return
	}
	c.prog.Trees[n] = t
	parent := c.cur
	if !n.WithContext {
		parent = nil
	}
	fr := newFrame(FrameInclude, n, parent)
	if parent == nil {
		fr = newFrame(FrameModule, n, nil) // an isolated top level, with its own activation
	}
	c.prog.Frame[n] = fr
	c.within(t, func() {
		saved := c.loops
		c.loops = nil
		c.inFrame(fr, func() { c.body(t.Root) })
		c.loops = saved
	})
}

// importNode checks an import or from-import: the module is an imported
// template's top level, which sees the importer's variables only "with
// context". bind then binds the imported names.
func (c *checker) importNode(n Node, tmpl Expr, withContext bool, bind func(mod *Frame)) {
	file, ok := c.literalPath(tmpl, "import")
	var mod *Frame
	if ok {
		if t := c.load(n.Position(), "import", file, false); t != nil {
			c.prog.Trees[n] = t
			var parent *Frame
			if withContext {
				parent = c.rootOf(c.cur)
			}
			mod = newFrame(FrameModule, n, parent)
			mod.Closure = mod
			c.prog.Frame[n] = mod
			c.within(t, func() {
				saved := c.loops
				c.loops = nil
				c.inFrame(mod, func() { c.body(t.Root) })
				c.loops = saved
			})
		}
	}
	bind(mod)
}

// rootOf is the top-level frame a frame is in.
func (c *checker) rootOf(f *Frame) *Frame {
	for f.Parent != nil && f.Kind != FrameRoot && f.Kind != FrameModule {
		f = f.Parent
	}
	return f
}

// exported lists a module's public names, sorted.
func exported(mod *Frame) []string {
	var out []string
	for _, s := range mod.Symbols {
		if s.Kind == SymLocal && !strings.HasPrefix(s.Name, "_") {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return out
}

// reserved names cannot be bound: Jinja's keywords, and what the runtime
// binds itself.
func reserved(name string) bool {
	return isKeyword(name) || name == "loop"
}

// name resolves one name read.
func (c *checker) name(n *NameExpr) {
	if s := c.cur.lookup(n.Name); s != nil {
		c.prog.Refs[n] = s
		if s.Kind == SymVariable && s.Frame == c.prog.Root && !(c.overwritten[n.Name] && c.cur.Closure == c.prog.Root) {
			c.prog.Used[n.Name] = true
		}
		return
	}
	if spec, ok := c.cfg.Catalog.Globals[n.Name]; ok {
		if spec.Refused != "" {
			c.report(errRefused(n.Pos, "global", n.Name, spec.Refused))
			return
		}
		s := c.globals[n.Name]
		if s == nil {
			s = &Symbol{Name: n.Name, Kind: SymGlobal, Slot: -1}
			c.globals[n.Name] = s
		}
		c.prog.Refs[n] = s
		return
	}
	key := fmt.Sprintf("%s:%d:%s", c.src.Name, n.Pos, n.Name)
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	if root := c.rootOf(c.cur); root.Kind == FrameModule && root.Parent == nil && slices.Contains(c.cfg.Declared, n.Name) {
		c.report(errNotInModule(n.Pos, n.Name, root.Node))
		return
	}
	c.report(errUndeclared(n.Pos, n.Name, c.visibleNames(), c.cfg.DeclareHint))
}

// visibleNames are the names a misspelling may have meant: declared
// variables, the bindings visible here and the global functions.
func (c *checker) visibleNames() []string {
	var out []string
	for n, s := range c.cfg.Catalog.Globals {
		if s.Refused == "" {
			out = append(out, n)
		}
	}
	for f := c.cur; f != nil; f = f.Parent {
		for _, s := range f.Symbols {
			if s.Kind != SymCaller {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

func (c *checker) exprs(xs []Expr) {
	for _, x := range xs {
		if x != nil {
			c.expr(x)
		}
	}
}

func (c *checker) args(args []Expr, kwargs []*Keyword, dyn, dynkw Expr) {
	c.exprs(args)
	for _, k := range kwargs {
		c.expr(k.Value)
	}
	c.exprs([]Expr{dyn, dynkw})
}

// arity checks a call against its spec.
func (c *checker) arity(p Pos, what, name string, spec Spec, args []Expr, kwargs []*Keyword, dyn, dynkw Expr) {
	if dyn != nil || dynkw != nil {
		return
	}
	for _, k := range kwargs {
		if !spec.AnyKwargs && !slices.Contains(spec.Kwargs, k.Name) {
			c.report(errUnknownKwarg(k.Pos, what, name, k.Name, spec))
			return
		}
	}
	n := len(args)
	// A keyword argument may stand for a positional one.
	named := 0
	for i, k := range spec.Kwargs {
		if i >= n && slices.ContainsFunc(kwargs, func(kw *Keyword) bool { return kw.Name == k }) {
			named++
		}
	}
	if n+named < spec.MinArgs || (spec.MaxArgs >= 0 && n > spec.MaxArgs) {
		c.report(errArity(p, what, name, spec))
	}
}

func (c *checker) expr(x Expr) {
	switch x := x.(type) {
	case nil:
	case *NameExpr:
		c.name(x)
	case *ConstExpr:
	case *ListExpr:
		c.exprs(x.Items)
	case *TupleExpr:
		c.exprs(x.Items)
	case *DictExpr:
		c.exprs(x.Keys)
		c.exprs(x.Values)
	case *AttrExpr:
		c.expr(x.X)
		c.loopAttr(x)
	case *IndexExpr:
		c.expr(x.X)
		c.expr(x.Index)
	case *SliceExpr:
		c.exprs([]Expr{x.Start, x.Stop, x.Step})
	case *CallExpr:
		c.call(x)
	case *FilterExpr:
		c.expr(x.X)
		c.args(x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
		spec, ok := c.cfg.Catalog.Filters[x.Name]
		switch {
		case c.cfg.Lenient && (!ok || spec.Refused != ""):
		case !ok:
			c.report(errUnknownFilter(x.NamePos, x.Name, c.cfg.Catalog.Filters))
		case spec.Refused != "":
			c.report(errRefused(x.NamePos, "filter", x.Name, spec.Refused))
		case x.Name == "image":
			// Its arguments are checked with the chat structure (chat.go),
			// which says how to write it.
		default:
			c.arity(x.Pos, "filter", x.Name, spec, x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
		}
	case *TestExpr:
		c.expr(x.X)
		c.args(x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
		spec, ok := c.cfg.Catalog.Tests[x.Name]
		switch {
		case c.cfg.Lenient && (!ok || spec.Refused != ""):
		case !ok:
			c.report(errUnknownTest(x.NamePos, x.Name, c.cfg.Catalog.Tests))
		case spec.Refused != "":
			c.report(errRefused(x.NamePos, "test", x.Name, spec.Refused))
		default:
			c.arity(x.Pos, "test", x.Name, spec, x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
		}
	case *UnaryExpr:
		c.expr(x.X)
	case *BinaryExpr:
		c.expr(x.L)
		c.expr(x.R)
	case *ConcatExpr:
		c.exprs(x.Items)
	case *CompareExpr:
		c.expr(x.X)
		for _, op := range x.Ops {
			c.expr(op.Y)
		}
	case *CondExpr:
		c.exprs([]Expr{x.Test, x.Then, x.Else})
	default:
		panic(fmt.Sprintf("jinja: check: unknown expression %T", x))
	}
}

// loopAttr checks loop.name where loop is a for loop's variable.
func (c *checker) loopAttr(x *AttrExpr) {
	n, ok := x.X.(*NameExpr)
	if !ok {
		return
	}
	if s := c.prog.Refs[n]; s == nil || s.Kind != SymLoop {
		return
	}
	if !slices.Contains(c.cfg.Catalog.Loop, x.Name) {
		c.report(errLoopAttr(x.NamePos, x.Name, c.cfg.Catalog.Loop))
	}
}

func (c *checker) call(x *CallExpr) {
	c.args(x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
	switch fn := x.Fn.(type) {
	case *NameExpr:
		c.name(fn)
		s := c.prog.Refs[fn]
		switch {
		case s == nil:
		case s.Kind == SymGlobal:
			c.arity(x.Pos, "function", fn.Name, c.cfg.Catalog.Globals[fn.Name], x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
		case s.Kind == SymLoop:
			if f, ok := s.Frame.Node.(*ForNode); !ok || !f.Recursive {
				c.report(errLoopNotRecursive(x.Pos))
			}
		}
	case *AttrExpr:
		c.expr(fn.X)
		if n, ok := fn.X.(*NameExpr); ok {
			if s := c.prog.Refs[n]; s != nil {
				switch {
				case s.Kind == SymLoop:
					c.loopAttr(fn)
					return
				case c.modules[s] != nil:
					if !slices.Contains(exported(c.modules[s]), fn.Name) {
						c.report(errNotExported(fn.Pos, fn.Name, exported(c.modules[s])))
					}
					return
				}
			}
		}
		spec, ok := c.cfg.Catalog.Methods[fn.Name]
		switch {
		case c.cfg.Lenient && (!ok || spec.Refused != ""):
		case !ok:
			c.report(errUnknownMethod(fn.NamePos, fn.Name, c.cfg.Catalog.Methods))
		case spec.Refused != "":
			c.report(errRefused(fn.NamePos, "method", fn.Name, spec.Refused))
		default:
			c.arity(x.Pos, "method", fn.Name, spec, x.Args, x.Kwargs, x.DynArgs, x.DynKwargs)
		}
	default:
		c.expr(x.Fn)
	}
}

// expandedSize is the source size of t with every literal include,
// import and extends expanded (each file parsed once; the sizes of files
// memoized, so parts that include each other many times cost one parse
// each), and the chain of files that contributes the most.
func (c *checker) expandedSize(t *Tree) (total int, chain []string, at Pos, tag string) {
	type edge struct {
		path string
		pos  Pos
		tag  string
	}
	type entry struct {
		size  int
		edges []edge
	}
	memo := map[string]*entry{}
	var size func(name string, tr *Tree, depth int) int
	size = func(name string, tr *Tree, depth int) int {
		if e, ok := memo[name]; ok {
			if e == nil {
				return 0 // a cycle: reported by the walk
			}
			return e.size
		}
		if depth > 64 {
			return 0
		}
		memo[name] = nil
		e := &entry{size: len(tr.Source.Text)}
		InspectAll(tr.Root, func(n Node) bool {
			var x Expr
			var tag string
			switch n := n.(type) {
			case *IncludeNode:
				x, tag = n.Template, "include"
			case *ImportNode:
				x, tag = n.Template, "import"
			case *FromImportNode:
				x, tag = n.Template, "import"
			case *ExtendsNode:
				x, tag = n.Template, "extend"
			default:
				return true
			}
			if k, ok := x.(*ConstExpr); ok {
				if p, ok := k.Value.(string); ok {
					e.edges = append(e.edges, edge{path.Clean(p), n.Position(), tag})
				}
			}
			return true
		})
		for _, ed := range e.edges {
			if _, ok := memo[ed.path]; !ok {
				if sub, err := c.cfg.Load(ed.path); err == nil {
					size(ed.path, sub, depth+1)
				}
			}
			if sub := memo[ed.path]; sub != nil {
				e.size += sub.size
			}
			if e.size > 1<<40 {
				break // far over any limit
			}
		}
		memo[name] = e
		return e.size
	}
	total = size(t.Source.Name, t, 0)
	// The chain follows the largest part at each step; the error points
	// at the root's tag that starts it.
	chain = []string{t.Source.Name}
	tag = "include"
	for cur := memo[t.Source.Name]; cur != nil && len(chain) < 16; {
		var best *edge
		bestSize := -1
		for i, ed := range cur.edges {
			if e := memo[ed.path]; e != nil && e.size > bestSize {
				best, bestSize = &cur.edges[i], e.size
			}
		}
		if best == nil {
			break
		}
		if len(chain) == 1 {
			at, tag = best.pos, best.tag
		}
		chain = append(chain, best.path)
		cur = memo[best.path]
	}
	return total, chain, at, tag
}
