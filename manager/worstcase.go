package manager

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// Worst cases. A template whose index.json entry declares a token budget
// ("budget": {"tokens": N}) is proved, when the set loads, to fit it on
// every render after every cut its marks allow — or refused, naming the
// variables that can overflow it.
//
// The proof bounds bytes, not tokens, and that bound is an upper bound on
// tokens: the encodings a budget may name (OpenAI's, tokens.Encodings)
// are byte-level BPE over the UTF-8 bytes of the text, every token stands
// for at least one byte, so a text of n bytes has at most n tokens. (The
// converse does not hold — n bytes may be far fewer tokens — so the bound
// is conservative: English prose is about four bytes a token. A bound on
// tokens built from counts of the pieces would not be sound: BPE merges
// across the places where pieces meet, and the count of a concatenation is
// not bounded by the sum of the counts.) Text that is not valid UTF-8 is
// counted as tokens.ValidUTF8 makes it, each invalid byte U+FFFD, three
// bytes.
//
// The bytes are bounded by walking the checked program: fixed text is its
// length; a value printed is bounded by its variable's schema — a string
// by maxLength (characters, each at most four bytes once valid UTF-8; an
// invalid byte is one character of the schema's count and three bytes),
// an integer by minimum and maximum, a boolean, null, an enum or a const
// by their longest printed form; a loop runs at most maxItems times (a
// literal list's length, range's count); a branch is its longest branch.
// After every allowed cut, a {% shrink %} block and a marked message
// print nothing and a marked loop keeps keep= items. What the walk does not
// bound — a variable without a schema or without maxLength, a macro call,
// a filter it does not know, a local assigned twice — makes the proof
// fail, and the problem names it: the budget cannot be proved.

// bound is an upper bound on bytes printed: n, or unbounded (why says
// what makes it so). vars is the part of n each variable accounts for.
type bound struct {
	n    int64
	inf  bool
	why  []cause
	vars map[string]int64
}

// cause is what makes a bound unbounded: a variable, or a construct.
type cause struct {
	variable string
	msg      string
	file     string
	pos      jinja.Pos
}

func fixed(n int) bound { return bound{n: int64(n)} }

func unbounded(c cause) bound { return bound{inf: true, why: []cause{c}} }

// satAdd adds without overflow (an overflow is as good as unbounded, but
// kept finite: the budget check still fails).
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func (b bound) plus(o bound) bound {
	out := bound{n: satAdd(b.n, o.n), inf: b.inf || o.inf, why: append(slices.Clip(b.why), o.why...)}
	if b.vars != nil || o.vars != nil {
		out.vars = map[string]int64{}
		for k, v := range b.vars {
			out.vars[k] = v
		}
		for k, v := range o.vars {
			out.vars[k] = satAdd(out.vars[k], v)
		}
	}
	return out
}

// or is the larger of two bounds (either may run).
func (b bound) or(o bound) bound {
	out := bound{n: max(b.n, o.n), inf: b.inf || o.inf, why: append(slices.Clip(b.why), o.why...)}
	if b.vars != nil || o.vars != nil {
		out.vars = map[string]int64{}
		for k, v := range b.vars {
			out.vars[k] = v
		}
		for k, v := range o.vars {
			out.vars[k] = max(out.vars[k], v)
		}
	}
	return out
}

// times is k runs of b; the bytes not due to another variable are due to
// the variables in by (what k depends on).
func (b bound) times(k int64, by []string) bound {
	out := bound{n: satMul(b.n, k), inf: b.inf, why: b.why, vars: map[string]int64{}}
	rest := out.n
	for v, n := range b.vars {
		out.vars[v] = satMul(n, k)
		rest -= out.vars[v]
	}
	for _, v := range by {
		if rest > 0 && len(by) > 0 {
			out.vars[v] = satAdd(out.vars[v], rest/int64(len(by)))
		}
	}
	return out
}

// due marks all of b as due to variable v.
func (b bound) due(v string) bound {
	if v == "" {
		return b
	}
	b.vars = map[string]int64{v: b.n}
	return b
}

// aval is what the walk knows of a value: its schema (a typed variable or
// a part of one, with the variable it comes from), or its printed bound.
type aval struct {
	s     *jsonschema.Schema // nil: not from a schema
	root  string             // the variable it comes from
	print bound              // when s is nil
	loop  bool               // the loop object
	count int64              // of the loop object: its loop's most runs
	elem  *aval              // of a literal list: its items (joined)
	n     int64              // of a literal list: its length
}

type worst struct {
	p       *jinja.Program
	schemas map[string]*jsonschema.Schema
	env     map[*jinja.Symbol]aval
	assigns map[*jinja.Symbol]int // how many places assign each symbol
	src     *jinja.Source
}

// worstCase bounds the bytes a checked program prints after every cut its
// marks allow; schemas are the typed variables'.
func worstCase(p *jinja.Program, schemas map[string]*jsonschema.Schema) bound {
	w := &worst{p: p, schemas: schemas, env: map[*jinja.Symbol]aval{}, assigns: map[*jinja.Symbol]int{}, src: p.Tree.Source}
	if p.Inherit != nil {
		return unbounded(cause{msg: "template inheritance, which the bound does not follow", file: w.src.Name})
	}
	trees := append([]*jinja.Tree{p.Tree}, treesOf(p)...)
	for _, t := range trees {
		jinja.InspectAll(t.Root, func(n jinja.Node) bool {
			for _, tg := range targets(n) {
				jinja.Inspect(tg, func(x jinja.Node) bool {
					if ne, ok := x.(*jinja.NameExpr); ok {
						if s := p.Refs[ne]; s != nil {
							w.assigns[s]++
						}
					}
					return true
				})
			}
			return true
		})
	}
	return w.stmts(p.Tree.Root)
}

func treesOf(p *jinja.Program) []*jinja.Tree {
	var out []*jinja.Tree
	for _, t := range p.Trees {
		out = append(out, t)
	}
	return out
}

// targets are the names a statement assigns.
func targets(n jinja.Node) []jinja.Expr {
	switch n := n.(type) {
	case *jinja.SetNode:
		return []jinja.Expr{n.Target}
	case *jinja.SetBlockNode:
		return []jinja.Expr{n.Target}
	case *jinja.ForNode:
		return []jinja.Expr{n.Target}
	case *jinja.WithNode:
		return n.Targets
	}
	return nil
}

func (w *worst) cause(p jinja.Pos, variable, format string, args ...any) bound {
	return unbounded(cause{variable: variable, msg: fmt.Sprintf(format, args...), file: w.src.Name, pos: p})
}

func (w *worst) stmts(nodes []jinja.Node) bound {
	var b bound
	for _, x := range nodes {
		b = b.plus(w.stmt(x))
	}
	return b
}

func (w *worst) stmt(x jinja.Node) bound {
	switch x := x.(type) {
	case *jinja.TextNode:
		return fixed(len(x.Text))
	case *jinja.BreakNode, *jinja.ContinueNode, *jinja.MacroNode, *jinja.ImportNode, *jinja.FromImportNode:
		return bound{} // prints nothing; a call of what it binds is not bounded
	case *jinja.ShrinkNode:
		return bound{} // dropped by the last cuts
	case *jinja.OutputNode:
		return w.print(x.X)
	case *jinja.IfNode:
		var b bound
		for _, br := range x.Branches {
			b = b.or(w.stmts(br.Body))
		}
		return b.or(w.stmts(x.Else))
	case *jinja.ForNode:
		return w.loop(x)
	case *jinja.SetNode:
		w.assign(x.Target, w.value(x.Value))
		return bound{}
	case *jinja.SetBlockNode:
		body := w.stmts(x.Body)
		if len(x.Filters) > 0 {
			body = w.cause(x.Pos, "", "a set block with filters, which the bound does not follow")
		}
		w.assign(x.Target, aval{print: body})
		return bound{}
	case *jinja.WithNode:
		for i, v := range x.Values {
			w.assign(x.Targets[i], w.value(v))
		}
		return w.stmts(x.Body)
	case *jinja.IncludeNode:
		t := w.p.Trees[x]
		if t == nil {
			return bound{}
		}
		src := w.src
		w.src = t.Source
		b := w.stmts(t.Root)
		w.src = src
		return b
	case *jinja.ChatNode:
		if x.Mark != nil {
			return bound{} // dropped by the last cuts
		}
		return w.stmts(x.Body)
	case *jinja.AutoescapeNode:
		return w.stmts(x.Body)
	case *jinja.GenerationNode:
		return w.stmts(x.Body)
	case *jinja.BlockNode:
		return w.stmts(x.Body) // without inheritance, a block renders in place
	case *jinja.CallBlockNode:
		return w.cause(x.Pos, "", "a call block, which the bound does not follow")
	case *jinja.FilterBlockNode:
		return w.cause(x.Pos, "", "a filter block, which the bound does not follow")
	}
	return w.cause(x.Position(), "", "a statement the bound does not follow")
}

// loop bounds a for loop: its most runs times its body, or its else.
func (w *worst) loop(x *jinja.ForNode) bound {
	if x.Recursive {
		return w.cause(x.Pos, "", "a recursive loop, which the bound does not follow")
	}
	n, elem, by := w.iter(x.Iter)
	if x.Mark != nil && (n < 0 || n > x.Mark.Keep) {
		n = x.Mark.Keep // the last cuts keep keep= items
	}
	w.assign(x.Target, elem)
	if s := w.p.Frame[x].Lookup("loop"); s != nil {
		w.env[s] = aval{loop: true, count: n}
	}
	body := w.stmts(x.Body)
	els := w.stmts(x.Else)
	if n < 0 {
		if len(body.why) == 0 && body.n == 0 {
			return els // a body that prints nothing
		}
		msg := "a loop whose length has no bound"
		v := ""
		if len(by) == 1 {
			v = by[0]
			msg = fmt.Sprintf("a loop over %s, whose schema sets no maxItems", by[0])
		}
		return w.cause(x.Pos, v, "%s", msg).plus(body).or(els)
	}
	return body.times(n, by).or(els)
}

// iter is the most items an iterable has (-1: no bound), what each item
// is, and the variables the count comes from.
func (w *worst) iter(x jinja.Expr) (int64, aval, []string) {
	switch x := x.(type) {
	case *jinja.ListExpr:
		el := aval{}
		for _, it := range x.Items {
			el = joinVals(el, w.value(it))
		}
		return int64(len(x.Items)), el, nil
	case *jinja.TupleExpr:
		el := aval{}
		for _, it := range x.Items {
			el = joinVals(el, w.value(it))
		}
		return int64(len(x.Items)), el, nil
	case *jinja.CallExpr:
		if n, ok := x.Fn.(*jinja.NameExpr); ok && n.Name == "range" && w.p.Refs[n] != nil && w.p.Refs[n].Kind == jinja.SymGlobal {
			if k, ok := rangeCount(x); ok {
				return k, aval{print: fixed(20)}, nil
			}
		}
	case *jinja.FilterExpr:
		switch x.Name {
		case "reverse", "sort", "unique", "list", "select", "reject", "selectattr", "rejectattr":
			if x.X != nil {
				return w.iter(x.X)
			}
		}
	}
	v := w.value(x)
	if v.elem != nil {
		return v.n, *v.elem, nil
	}
	if v.s == nil {
		return -1, aval{print: w.cause(x.Position(), "", "an item of a list the bound cannot follow")}, nil
	}
	n, items := arrayBound(v.s)
	el := aval{s: items, root: v.root}
	if items == nil {
		el = aval{print: w.cause(x.Position(), v.root, "an item of %s, whose schema gives no items", v.root)}
	}
	return n, el, []string{v.root}
}

// rangeCount is the count of range(stop), range(start, stop[, step]) of
// literal integers.
func rangeCount(x *jinja.CallExpr) (int64, bool) {
	if len(x.Kwargs) > 0 || x.DynArgs != nil || x.DynKwargs != nil || len(x.Args) == 0 || len(x.Args) > 3 {
		return 0, false
	}
	var a [3]int64
	for i, e := range x.Args {
		c, ok := e.(*jinja.ConstExpr)
		if !ok {
			return 0, false
		}
		v, ok := c.Value.(int64)
		if !ok {
			return 0, false
		}
		a[i] = v
	}
	start, stop, step := int64(0), a[0], int64(1)
	if len(x.Args) >= 2 {
		start, stop = a[0], a[1]
	}
	if len(x.Args) == 3 {
		step = a[2]
	}
	switch {
	case step > 0 && stop > start:
		return (stop - start + step - 1) / step, true
	case step < 0 && stop < start:
		return (start - stop - step - 1) / -step, true
	case step != 0:
		return 0, true
	}
	return 0, false
}

func joinVals(a, b aval) aval {
	if a.s == nil && a.elem == nil && !a.loop && a.print.n == 0 && !a.print.inf {
		return b
	}
	return aval{print: a.bound().or(b.bound())}
}

// assign binds what a set, for or with target names.
func (w *worst) assign(t jinja.Expr, v aval) {
	switch t := t.(type) {
	case *jinja.NameExpr:
		s := w.p.Refs[t]
		if s == nil {
			return
		}
		if w.assigns[s] > 1 {
			v = aval{print: w.cause(t.Pos, "", "%s, assigned in more than one place", strconv.Quote(t.Name))}
		}
		w.env[s] = v
	case *jinja.TupleExpr:
		for _, it := range t.Items {
			w.assign(it, aval{print: w.cause(it.Position(), "", "a value unpacked from a tuple, which the bound does not follow")})
		}
	case *jinja.AttrExpr:
		if n, ok := t.X.(*jinja.NameExpr); ok {
			if s := w.p.Refs[n]; s != nil {
				w.env[s] = aval{print: w.cause(t.Pos, "", "a namespace's attribute, which the bound does not follow")}
			}
		}
	}
}

// bound is the most bytes v prints.
func (v aval) bound() bound {
	switch {
	case v.loop:
		return fixed(20) // loop.index, length, first…: an integer or a boolean
	case v.elem != nil:
		return unbounded(cause{msg: "a list printed, which the bound does not follow"})
	case v.s != nil:
		return schemaPrint(v.s, v.root)
	}
	return v.print
}

// value is what the walk knows of an expression's value.
func (w *worst) value(x jinja.Expr) aval {
	var inner aval // of an attribute's or item's value
	switch x := x.(type) {
	case *jinja.NameExpr:
		s := w.p.Refs[x]
		if s == nil {
			break
		}
		switch s.Kind {
		case jinja.SymVariable:
			sch := w.schemas[x.Name]
			if sch == nil {
				return aval{print: w.cause(x.Pos, x.Name, "%s, which has no schema", x.Name)}
			}
			return aval{s: sch, root: x.Name}
		case jinja.SymLocal, jinja.SymLoop:
			if v, ok := w.env[s]; ok {
				return v
			}
		}
		return aval{print: w.cause(x.Pos, "", "the name %s, whose value the bound cannot follow", strconv.Quote(x.Name))}
	case *jinja.ListExpr:
		n, el, _ := w.iter(x)
		return aval{elem: &el, n: n}
	case *jinja.AttrExpr:
		v := w.value(x.X)
		inner = v
		if v.loop {
			switch x.Name {
			case "previtem", "nextitem", "cycle", "changed":
				return aval{print: w.cause(x.Pos, "", "loop.%s, which the bound does not follow", x.Name)}
			}
			return aval{print: fixed(20)}
		}
		if v.s != nil && !slices.Contains(dictMethods, x.Name) {
			if p := property(v.s, x.Name); p != nil {
				return aval{s: p, root: v.root}
			}
			return aval{print: w.cause(x.Pos, v.root, "%s.%s, which its schema does not bound", v.root, x.Name)}
		}
	case *jinja.IndexExpr:
		v := w.value(x.X)
		inner = v
		if v.s != nil {
			if c, ok := x.Index.(*jinja.ConstExpr); ok {
				if k, ok := c.Value.(string); ok {
					if p := property(v.s, k); p != nil {
						return aval{s: p, root: v.root}
					}
				}
				if _, ok := c.Value.(int64); ok {
					if _, items := arrayBound(v.s); items != nil {
						return aval{s: items, root: v.root}
					}
				}
			}
			return aval{print: w.cause(x.Pos, v.root, "an item of %s, which its schema does not bound", v.root)}
		}
	}
	// A name, attribute or item the cases above do not follow (print
	// would ask value again): of a value that has no bound, what leaves
	// that unbounded; else this place.
	if inner.print.inf && inner.s == nil && inner.elem == nil {
		return inner
	}
	switch x := x.(type) {
	case *jinja.NameExpr:
		return aval{print: w.cause(x.Pos, "", "the name %s, whose value the bound cannot follow", strconv.Quote(x.Name))}
	case *jinja.AttrExpr:
		return aval{print: w.cause(x.Pos, "", "the attribute %s of a value the bound cannot follow", strconv.Quote(x.Name))}
	case *jinja.IndexExpr:
		return aval{print: w.cause(x.Pos, "", "an item of a value the bound cannot follow")}
	}
	return aval{print: w.print(x)}
}

// print is the most bytes printing x writes.
func (w *worst) print(x jinja.Expr) bound {
	switch x := x.(type) {
	case *jinja.ConstExpr:
		return fixed(len(constText(x.Value)))
	case *jinja.NameExpr, *jinja.AttrExpr, *jinja.IndexExpr:
		v := w.value(x)
		b := v.bound()
		if b.inf && len(b.why) > 0 && b.why[0].file == "" {
			b.why[0].file, b.why[0].pos = w.src.Name, x.Position()
		}
		return b
	case *jinja.ConcatExpr:
		var b bound
		for _, it := range x.Items {
			b = b.plus(w.print(it))
		}
		return b
	case *jinja.CondExpr:
		b := w.print(x.Then)
		if x.Else != nil {
			b = b.or(w.print(x.Else))
		}
		return b
	case *jinja.BinaryExpr:
		switch x.Op {
		case "and", "or":
			return w.print(x.L).or(w.print(x.R))
		case "+":
			return w.print(x.L).plus(w.print(x.R)).plus(fixed(1)) // strings join; numbers' sum has at most one digit more
		}
	case *jinja.TestExpr, *jinja.CompareExpr:
		return fixed(5) // True or False
	case *jinja.UnaryExpr:
		if x.Op == "not" {
			return fixed(5)
		}
	case *jinja.FilterExpr:
		return w.filter(x)
	}
	return w.cause(x.Position(), "", "%s, which the bound does not follow", exprWhat(x))
}

func exprWhat(x jinja.Expr) string {
	switch x := x.(type) {
	case *jinja.CallExpr:
		return "a call"
	case *jinja.BinaryExpr:
		return "the operator " + x.Op
	case *jinja.UnaryExpr:
		return "the operator " + x.Op
	}
	return "an expression"
}

// filter bounds the filters that do not lengthen what they are given, or
// whose result the bound knows.
func (w *worst) filter(x *jinja.FilterExpr) bound {
	if x.X == nil {
		return w.cause(x.Pos, "", "the filter %s, which the bound does not follow", x.Name)
	}
	switch x.Name {
	case "image":
		return bound{} // an image part of its message: not text, not counted
	case "trim", "string", "safe": // never longer than what they are given (escape is: & is &amp;)
		return w.print(x.X)
	case "default", "d":
		b := w.print(x.X)
		if len(x.Args) > 0 {
			b = b.or(w.print(x.Args[0]))
		}
		return b
	case "length", "count", "wordcount":
		return fixed(20)
	case "first", "last":
		_, el, _ := w.iter(x.X)
		return el.bound()
	case "join":
		n, el, by := w.iter(x.X)
		sep := fixed(0)
		if len(x.Args) > 0 {
			sep = w.print(x.Args[0])
		}
		if len(x.Args) > 1 || len(x.Kwargs) > 0 {
			break
		}
		if n < 0 {
			v := ""
			if len(by) == 1 {
				v = by[0]
			}
			return w.cause(x.Pos, v, "a join of a list whose length has no bound")
		}
		return el.bound().plus(sep).times(n, by)
	}
	return w.cause(x.Pos, "", "the filter %s, which the bound does not follow", x.Name)
}

// constText is a literal as Python prints it, near enough for a bound:
// strings exactly; numbers, booleans and None at most as long.
func constText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case *big.Int:
		return v.String()
	case bool:
		return "False"
	case nil:
		return "None"
	}
	return strings.Repeat("0", 32) // a float's repr is at most 24 bytes
}

// dictMethods are the names x.name finds as a dict's method before its
// key (Jinja's getattr): printed, a method is not the property.
var dictMethods = []string{"clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"}

// property is the schema of property name of an object schema, or of
// its additional properties; nil when neither says.
func property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	for ; s != nil; s = s.Ref {
		if p := s.Properties[name]; p != nil {
			return p
		}
		if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			return a
		}
		if len(s.Properties) > 0 || s.AdditionalProperties != nil {
			for _, a := range s.AllOf {
				if p := property(a, name); p != nil {
					return p
				}
			}
		}
	}
	return nil
}

// arrayBound is the most items an array schema allows (-1: no bound) and
// the schema of each (nil: unknown; prefixItems are not followed).
func arrayBound(s *jsonschema.Schema) (int64, *jsonschema.Schema) {
	n, items := int64(-1), (*jsonschema.Schema)(nil)
	for ; s != nil; s = s.Ref {
		if s.MaxItems != nil && (n < 0 || int64(*s.MaxItems) < n) {
			n = int64(*s.MaxItems)
		}
		if items == nil && len(s.PrefixItems) == 0 {
			if s.Items2020 != nil {
				items = s.Items2020
			} else if it, ok := s.Items.(*jsonschema.Schema); ok {
				items = it
			}
		}
	}
	return n, items
}

// schemaPrint is the most bytes a value its schema allows prints as
// (Python's str), due to variable root.
func schemaPrint(s *jsonschema.Schema, root string) bound {
	n, why := schemaBytes(s)
	if why != "" {
		return unbounded(cause{variable: root, msg: fmt.Sprintf("%s, whose schema %s", root, why)})
	}
	return fixed64(n).due(root)
}

func fixed64(n int64) bound { return bound{n: n} }

// schemaBytes bounds the printed form of a value of s, or says why it
// cannot.
func schemaBytes(s *jsonschema.Schema) (int64, string) {
	best, why := int64(-1), ""
	tighten := func(n int64) {
		if best < 0 || n < best {
			best = n
		}
	}
	for t := s; t != nil; t = t.Ref {
		if t.Const != nil {
			if n, ok := printedLen(*t.Const); ok {
				tighten(n)
			}
		}
		if t.Enum != nil {
			most, ok := int64(0), true
			for _, v := range t.Enum.Values {
				n, k := printedLen(v)
				ok = ok && k
				most = max(most, n)
			}
			if ok {
				tighten(most)
			}
		}
		if t.Types == nil {
			continue
		}
		types := t.Types.ToStrings()
		most, ok := int64(0), true
		for _, ty := range types {
			switch ty {
			case "string":
				if t.MaxLength == nil {
					ok, why = false, "sets no maxLength"
				} else {
					most = max(most, 4*int64(*t.MaxLength))
				}
			case "boolean":
				most = max(most, 5)
			case "null":
				most = max(most, 4)
			case "integer":
				if t.Maximum == nil || t.Minimum == nil {
					ok, why = false, "sets no minimum and maximum"
				} else {
					// 2 more: an integral JSON number written 9.0 or 9e0
					// is an integer to the schema and prints as 9.0.
					most = max(most, int64(len(ratInt(t.Maximum)))+2, int64(len(ratInt(t.Minimum)))+2)
				}
			default:
				ok, why = false, "allows "+ty+"s, which print unbounded"
			}
		}
		if ok {
			tighten(most)
		}
	}
	for _, a := range s.AllOf {
		if n, w := schemaBytes(a); w == "" {
			tighten(n)
		}
	}
	if best < 0 {
		if why == "" {
			why = "gives no type"
		}
		return 0, why
	}
	return best, ""
}

// ratInt prints an integer bound of a schema, rounded away from zero.
func ratInt(r *big.Rat) string {
	f, _ := r.Float64()
	return strconv.FormatFloat(math.Trunc(f)+math.Copysign(1, f), 'f', 0, 64)
}

// printedLen is the length of a JSON value Python prints, when it is a
// scalar.
func printedLen(v any) (int64, bool) {
	switch v := v.(type) {
	case string:
		return int64(len(v)), true
	case bool:
		return 5, true
	case nil:
		return 4, true
	case fmt.Stringer: // json.Number: an integer prints as written; 1e5 as 100000.0
		if n := v.String(); !strings.ContainsAny(n, ".eE") {
			return int64(len(n)), true
		}
		return 32, true
	case float64, int64, int:
		return 32, true
	}
	return 0, false
}

// WorstCase is an upper bound of what every render of a template prints,
// after every cut its marks allow, its typed variables bounded by their
// schemas (maxLength, maxItems, enums): in bytes, and so in tokens of any
// byte-level encoding, where each token is at least one byte. When
// nothing bounds some part of it, Unbounded says what, and Bytes is 0.
type WorstCase struct {
	Bytes int64
	// Variables is what each variable can add at most, for those that
	// add anything.
	Variables map[string]int64
	// Unbounded lists, as "file:line:col: what", each place nothing
	// bounds; UnboundedVariables the variables among them, sorted.
	Unbounded          []string
	UnboundedVariables []string
}

// Bounded reports whether the worst case has a bound.
func (w WorstCase) Bounded() bool { return len(w.Unbounded) == 0 }

// WithWorstCase has a load bound every template's renders (WorstCase),
// as it always does for an entry that declares a budget: promptkit check
// --tokens prints the bounds. It costs a walk of each checked template.
func WithWorstCase() Option {
	return func(c *config) error {
		c.worstCase = true
		return nil
	}
}

// WorstCase returns the bound of the template's renders computed at load
// (WithWorstCase, or an entry that declares a budget); ok is false for a
// template it was not computed for, or that does not exist.
func (m *Manager) WorstCase(name string) (w WorstCase, ok bool) {
	c, found := m.cur.Load().templates[name]
	if !found || c.worst == nil {
		return WorstCase{}, false
	}
	w = *c.worst
	w.Variables = maps.Clone(w.Variables)
	w.Unbounded = slices.Clone(w.Unbounded)
	w.UnboundedVariables = slices.Clone(w.UnboundedVariables)
	return w, true
}

// worstCaseOf bounds c's renders.
func worstCaseOf(c *compiled, prog *jinja.Program) *WorstCase {
	schemas := map[string]*jsonschema.Schema{}
	for _, v := range c.schemas {
		schemas[v.name] = v.schema.Compiled()
	}
	wc := worstCase(prog, schemas)
	if !wc.inf {
		w := &WorstCase{Bytes: wc.n, Variables: map[string]int64{}}
		for v, n := range wc.vars {
			if n > 0 {
				w.Variables[v] = n
			}
		}
		return w
	}
	w := &WorstCase{}
	for _, why := range wc.why {
		if why.variable != "" && !slices.Contains(w.UnboundedVariables, why.variable) {
			w.UnboundedVariables = append(w.UnboundedVariables, why.variable)
		}
		msg := why.msg
		if why.file != "" {
			line, col := prog.Tree.Source.Position(why.pos)
			if t := sourceOf(prog, why.file); t != nil {
				line, col = t.Position(why.pos)
			}
			msg = fmt.Sprintf("%s:%d:%d: %s", why.file, line, col, why.msg)
		}
		if !slices.Contains(w.Unbounded, msg) {
			w.Unbounded = append(w.Unbounded, msg)
		}
	}
	slices.Sort(w.UnboundedVariables)
	return w
}

// checkBudget proves that c's worst case fits the budget its entry
// declares, or reports the problem: the worst case over the budget, with
// the variables that can overflow it, or what leaves it unbounded. It
// reports whether it found a problem.
func (l *loader) checkBudget(c *compiled, prog *jinja.Program) bool {
	b := c.info.Budget
	if b.Tokens == 0 {
		return false
	}
	problem := func(e *Error) bool {
		e.Kind, e.Template = ErrOverBudget, c.info.Name
		if e.Path == "" {
			e.Path = IndexFile
		}
		l.problem(e)
		return true
	}
	enc := b.Encoding
	if enc == "" {
		e, ok := tokens.EncodingForModel(c.info.Contract.Model.Name)
		if !ok {
			return problem(&Error{Msg: fmt.Sprintf("budget: name its encoding (\"encoding\": \"o200k_base\"): the call contract names no model whose encoding is known (model %q)", c.info.Contract.Model.Name)})
		}
		enc = e
	}
	if c.worst == nil {
		c.worst = worstCaseOf(c, prog)
	}
	wc := c.worst
	if !wc.Bounded() {
		e := &Error{Path: c.info.Path, Variables: slices.Clone(wc.UnboundedVariables),
			Msg: fmt.Sprintf("budget: cannot prove that every render fits %d tokens (%s) after every allowed cut: nothing bounds %s",
				b.Tokens, enc, strings.Join(wc.Unbounded, "; "))}
		if len(wc.UnboundedVariables) > 0 {
			e.Msg += fmt.Sprintf(" (bound %s with maxLength, maxItems or an enum in the schema, or mark what may be cut)", strings.Join(wc.UnboundedVariables, ", "))
		}
		return problem(e)
	}
	if wc.Bytes <= int64(b.Tokens) {
		return false
	}
	vars := slices.Collect(maps.Keys(wc.Variables))
	slices.SortFunc(vars, func(a, b string) int {
		if wc.Variables[a] != wc.Variables[b] {
			return cmp.Compare(wc.Variables[b], wc.Variables[a])
		}
		return strings.Compare(a, b)
	})
	var parts []string
	rest := wc.Bytes
	for _, v := range vars {
		parts = append(parts, fmt.Sprintf("%s up to %d", v, wc.Variables[v]))
		rest -= wc.Variables[v]
	}
	parts = append(parts, fmt.Sprintf("the rest (fixed text) %d", rest))
	msg := fmt.Sprintf("budget: a render may need %d tokens (%s) after every allowed cut, over the budget of %d by %d: %s "+
		"(a bound in bytes: each token is at least one byte)", wc.Bytes, enc, b.Tokens, wc.Bytes-int64(b.Tokens), strings.Join(parts, ", "))
	slices.Sort(vars)
	return problem(&Error{Path: c.info.Path, Variables: vars, Msg: msg})
}

// sourceOf is the source of the program's file named name.
func sourceOf(p *jinja.Program, name string) *jinja.Source {
	if p.Tree.Source.Name == name {
		return p.Tree.Source
	}
	for _, t := range p.Trees {
		if t.Source.Name == name {
			return t.Source
		}
	}
	return nil
}
