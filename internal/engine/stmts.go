//promptkit:allow-inline the engine's statements: error messages quote template syntax
package engine

import (
	"fmt"
)

// The statements: the nodes of a compiled body (see exec.go) that bind,
// loop, capture, call and mark chat messages.

// target is an assignment target: a slot, a namespace attribute, or a
// tuple of targets to unpack into.
type target struct {
	at    site
	hops  int
	slot  int
	ns    expr // namespace attribute: ns.attr
	attr  string
	items []target
}

func (t *target) assign(st *state, v Value) {
	switch {
	case t.items != nil:
		items, err := values(v)
		if err != nil {
			st.fail(&t.at, fmt.Errorf("cannot unpack %s: %w", typeName(v), err))
		}
		if len(items) != len(t.items) {
			st.fail(&t.at, fmt.Errorf("cannot unpack %d values into %d names", len(items), len(t.items)))
		}
		for i := range t.items {
			t.items[i].assign(st, items[i])
		}
	case t.ns != nil:
		o := t.ns.eval(st)
		ns, ok := o.ref.(*namespace)
		if !ok {
			st.fail(&t.at, fmt.Errorf("cannot set attribute %q of %s: only a namespace() can be changed", t.attr, typeName(o)))
		}
		ns.attrs.SetString(t.attr, v)
	default:
		a := st.act
		for i := 0; i < t.hops; i++ {
			a = a.parent
		}
		a.slots[t.slot] = v
	}
}

// frameInit starts one symbol of a frame: as the value of its outer
// binding, or undefined.
type frameInit struct {
	slot  int
	from  expr  // nil: undefined
	undef Value // the undefined value it starts as, when from is nil
}

func initFrame(st *state, inits []frameInit) {
	for _, in := range inits {
		if in.from == nil {
			st.act.slots[in.slot] = in.undef
		} else {
			st.act.slots[in.slot] = in.from.eval(st)
		}
	}
}

type setDef struct {
	t target
	x expr
}

func (d *setDef) exec(st *state) flow {
	d.t.assign(st, d.x.eval(st))
	return flowNext
}

// captureDef is a set block or a filter block: the body's output becomes
// a value, filtered, then assigned (set) or printed (filter).
type captureDef struct {
	at      site
	filters []*builtinCall
	t       *target // nil: a filter block, printed
	body    body
}

func (d *captureDef) exec(st *state) flow {
	st.push()
	if f := d.body.exec(st); f != flowNext {
		st.pop()
		return f
	}
	v := strValue(st.pop())
	for _, f := range d.filters {
		v = f.call(st, v)
	}
	if d.t != nil {
		d.t.assign(st, v)
		return flowNext
	}
	st.print(&d.at, v)
	if st.over {
		st.outputFull(&d.at)
	}
	return flowNext
}

// scopeDef is a with block or an included template: a frame whose names
// start from their outer bindings and never leak out.
type scopeDef struct {
	inits   []frameInit
	targets []target
	values  []expr
	body    body
}

func (d *scopeDef) exec(st *state) flow {
	var vals []Value
	if len(d.values) > 0 {
		vals = make([]Value, len(d.values))
		for i, x := range d.values {
			vals[i] = x.eval(st)
		}
	}
	initFrame(st, d.inits)
	for i := range d.targets {
		d.targets[i].assign(st, vals[i])
	}
	return d.body.exec(st)
}

// isolatedDef is an included template without context: an activation of
// its own, which sees no name of the includer's.
type isolatedDef struct {
	slots int
	body  body
}

func (d *isolatedDef) exec(st *state) flow {
	saved := st.act
	st.act = &activation{slots: make([]Value, d.slots)}
	f := d.body.exec(st)
	st.act = saved
	return f
}

// importDef is {% import %} or {% from … import %}: the imported
// template's top level runs in an activation of its own (its output is
// dropped), and its names become a module, or the names imported.
type importDef struct {
	at      site
	file    string
	slots   int
	context bool       // with context: the module's free names are the importer's top level
	exports []exported // the module's public names
	target  *target    // import … as target
	names   []importedName
	body    body // the imported template's top level
}

type exported struct {
	name string
	slot int
}

type importedName struct {
	name string
	t    target
}

func (d *importDef) exec(st *state) flow {
	saved := st.act
	act := &activation{slots: make([]Value, d.slots)}
	if d.context {
		act.parent = &st.root
	}
	st.act = act
	st.push()
	d.body.exec(st)
	st.pop()
	st.act = saved
	names := NewOrderedDict()
	for _, e := range d.exports {
		names.SetString(e.name, act.slots[e.slot])
	}
	if d.target != nil {
		d.target.assign(st, objectValue(&module{file: d.file, names: names}))
	}
	for _, in := range d.names {
		v, ok := names.getString(in.name)
		if !ok {
			st.fail(&d.at, fmt.Errorf("the imported template %s defines no %q", d.file, in.name))
		}
		in.t.assign(st, v)
	}
	return flowNext
}

// forDef is a for loop.
type forDef struct {
	at        site
	iter      expr
	t         target
	cond      expr // the loop filter, or nil
	loopSlot  int  // -1: the body never reads loop
	reuse     bool // loop cannot escape an iteration: the state's loop objects serve
	inits     []frameInit
	recursive bool
	slots     int // a recursive loop's body is a closure: its activation's size
	body, els body
	mark      int      // the loop's budget mark (budget.go), or -1
	markInfo  markInfo // the mark's, when mark >= 0
}

func (d *forDef) exec(st *state) flow {
	d.loop(st, d.iter.eval(st), 0, st.act)
	return flowNext
}

// loop runs the loop over iterable. A recursive loop's body runs in an
// activation of its own, made from outer (the activation the loop stands
// in).
func (d *forDef) loop(st *state, iterable Value, depth0 int, outer *activation) {
	st.at = &d.at
	items, err := iterate(iterable)
	st.check(&d.at, err)
	saved := st.act
	if d.recursive {
		st.act = &activation{slots: make([]Value, d.slots), parent: outer}
	}
	defer func() { st.act = saved }()
	if d.cond != nil {
		// The filter runs first: loop.index, length and last count the
		// items it keeps.
		var kept []Value
		for i := 0; i < items.n; i++ {
			v := items.at(i)
			d.t.assign(st, v)
			if st.truth(&d.at, d.cond.eval(st)) {
				kept = append(kept, v)
			}
		}
		items = iterator{vals: orEmptyValues(kept), n: len(kept)}
	}
	record := false
	if d.mark >= 0 && st.budget != nil {
		items, record = st.budget.items(d, items)
	}
	var lp *loopObj
	if d.loopSlot >= 0 {
		if d.reuse {
			lp = st.takeLoop()
			defer st.putLoop()
		} else {
			lp = new(loopObj)
		}
		*lp = loopObj{def: d, items: items, n: items.n, depth0: depth0, outer: outer}
	}
	// As in Jinja, the else block runs unless an iteration reached the
	// end of the body: after no iteration, or when every one ended in
	// break or continue.
	completed := false
loop:
	for i := 0; i < items.n; i++ {
		if st.iters--; st.iters < 0 {
			st.fail(&d.at, &limitError{fmt.Sprintf("more than %d loop iterations (WithMaxIterations)", st.lim.MaxIterations)})
		}
		if err := st.spend(1); err != nil {
			st.fail(&d.at, err)
		}
		initFrame(st, d.inits)
		d.t.assign(st, items.at(i))
		if lp != nil {
			lp.index = i
			st.act.slots[d.loopSlot] = objectValue(lp)
		}
		var f flow
		if record {
			f = st.budget.item(st, d, i, items.n)
		} else {
			f = d.body.exec(st)
		}
		switch f {
		case flowBreak:
			break loop
		case flowContinue:
			continue
		}
		completed = true
		if st.over {
			st.outputFull(&d.at)
		}
	}
	if !completed && d.els != nil {
		if d.recursive {
			st.act = saved
		}
		d.els.exec(st)
	}
}

// recurse is loop(items) inside a recursive loop: the loop again, one
// level deeper, its output a value.
func (l *loopObj) recurse(st *state, at *site, iterable Value) Value {
	if st.depth++; st.depth > st.lim.MaxCallDepth {
		st.fail(at, &limitError{fmt.Sprintf("recursive loop nested deeper than %d levels (WithMaxCallDepth)", st.lim.MaxCallDepth)})
	}
	defer func() { st.depth-- }()
	st.push()
	l.def.loop(st, iterable, l.depth0+1, l.outer)
	return strValue(st.pop())
}

// macroDef is a macro's definition: running it binds the macro value,
// a closure over the activation it runs in.
type macroDef struct {
	at       site
	name     string
	params   []macroParam
	slots    int
	inits    []frameInit // the body's other names, from their outer bindings
	caller   int         // the slot of caller, varargs and kwargs; -1 when unused
	varargs  int
	kwargs   int
	body     body
	t        target // where the macro is bound
	isCaller bool   // the body of a call block
}

type macroParam struct {
	name  string
	slot  int
	def   expr  // nil: required
	undef Value // its value when not passed and without a default
}

func (d *macroDef) exec(st *state) flow {
	d.t.assign(st, objectValue(&macro{def: d, act: st.act}))
	return flowNext
}

// callBlockDef is {% call %}: its body is the caller() of the macro call.
type callBlockDef struct {
	at     site
	caller *macroDef
	call   *callX
}

func (d *callBlockDef) exec(st *state) flow {
	c := &macro{def: d.caller, act: st.act}
	v := d.call.evalWithCaller(st, objectValue(c))
	st.print(&d.at, v)
	if st.over {
		st.outputFull(&d.at)
	}
	return flowNext
}

// chatDef is a {% chat %} block.
type chatDef struct {
	at    site
	role  expr
	lit   int      // the role's index in ChatRoles, when it is a literal (checked at load); else -1
	allow []string // the roles allow= lists, which a role that is not a literal must be one of
	body  body
	mark  int // the message's budget mark (budget.go), or -1
}

func (d *chatDef) exec(st *state) flow {
	if d.mark >= 0 && st.budget != nil {
		return d.budgeted(st)
	}
	return d.message(st)
}

// message runs the block: one message.
func (d *chatDef) message(st *state) flow {
	s := st.sink
	if s == nil {
		// Rendered as text (the manager refuses Render of a chat template
		// before it starts; an imported macro may hold a block): the body.
		return d.body.exec(st)
	}
	if s.open || len(st.caps) > 0 {
		st.fail(&d.at, fmt.Errorf("chat blocks cannot nest, and a chat block cannot be inside a macro's or block's captured output"))
	}
	role := d.lit
	if d.role != nil {
		v := d.role.eval(st)
		if v.k != String {
			st.fail(&d.at, fmt.Errorf("chat role must be a string, not %s; allowed roles: %s", typeName(v), joinNames(ChatRoles)))
		}
		if role = roleIndex(v.s); role < 0 {
			st.fail(&d.at, fmt.Errorf("unknown chat role %q; allowed roles: %s", v.s, joinNames(ChatRoles)))
		}
		if !allowedRole(d.allow, v.s) {
			st.fail(&d.at, fmt.Errorf("chat role %q is not one this block allows (allow=%s)", v.s, joinNames(d.allow)))
		}
	}
	s.begin(st)
	f := d.body.exec(st)
	s.end(st, role)
	if st.over {
		st.outputFull(&d.at)
	}
	return f
}

// imageDef is {{ x | image }} inside a chat block.
type imageDef struct {
	at site
	x  expr
}

func (d *imageDef) exec(st *state) flow {
	s := st.sink
	if s == nil || !s.open {
		st.fail(&d.at, fmt.Errorf("the image filter works only inside a {%% chat %%} block rendered to messages"))
	}
	u, err := imageURL(d.x.eval(st))
	if err == nil {
		err = s.addImage(st, u)
	}
	st.check(&d.at, err)
	return flowNext
}

// discardDef runs its body for what it binds and drops what it prints:
// the top level of a template that extends another, after its extends.
type discardDef struct{ body body }

func (d *discardDef) exec(st *state) flow {
	st.push()
	f := d.body.exec(st)
	st.pop()
	return f
}

// blockSite is a {% block %} where it renders: its definitions, most
// derived first; the first renders, and super() in one renders the next.
type blockSite struct {
	at     site
	name   string
	scoped bool
	defs   []blockImpl
}

type blockImpl struct {
	slots int
	inits []frameInit
	super int // the slot of super, or -1
	body  body
}

func (d *blockSite) exec(st *state) flow {
	return d.render(st, 0, st.act)
}

// render runs definition i in an activation of its own, whose parent is
// the top level (or, for a scoped block, where the block stands).
func (d *blockSite) render(st *state, i int, site *activation) flow {
	impl := &d.defs[i]
	parent := &st.root
	if d.scoped {
		parent = site
	}
	saved := st.act
	st.act = &activation{slots: make([]Value, impl.slots), parent: parent}
	initFrame(st, impl.inits)
	if impl.super >= 0 {
		st.act.slots[impl.super] = objectValue(&superCall{site: d, next: i + 1, act: site})
	}
	f := impl.body.exec(st)
	st.act = saved
	return f
}

// superCall is super() inside a block: the next definition's output.
type superCall struct {
	site *blockSite
	next int
	act  *activation
}

func (s *superCall) call(st *state, at *site) Value {
	if st.depth++; st.depth > st.lim.MaxCallDepth {
		st.fail(at, &limitError{fmt.Sprintf("calls nested deeper than %d (WithMaxCallDepth)", st.lim.MaxCallDepth)})
	}
	defer func() { st.depth-- }()
	st.push()
	s.site.render(st, s.next, s.act)
	return strValue(st.pop())
}
