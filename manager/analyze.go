package manager

// The static checks: every name a template reads must be a declared
// variable or a local (loop variable, set, with), in every branch, whether
// or not a given render would take it.

type ref struct {
	name string
	file string // path of the file the reference is in
	p    pos
}

type analyzer struct {
	declared map[string]bool
	used     map[string]bool
	frames   []map[string]bool
	loops    int
	file     string
	undecl   []ref
	seen     map[ref]bool
}

// analyze returns the declared variables the template reads and every
// reference to a name that is neither declared nor local.
func analyze(nodes []node, file string, declared map[string]bool) (used map[string]bool, undeclared []ref) {
	a := &analyzer{declared: declared, used: map[string]bool{}, frames: []map[string]bool{{}}, file: file, seen: map[ref]bool{}}
	a.nodes(nodes)
	return a.used, a.undecl
}

func (a *analyzer) push(names ...string) {
	f := map[string]bool{}
	for _, n := range names {
		f[n] = true
	}
	a.frames = append(a.frames, f)
}

func (a *analyzer) pop() { a.frames = a.frames[:len(a.frames)-1] }

func (a *analyzer) isLocal(name string) bool {
	for i := len(a.frames) - 1; i >= 0; i-- {
		if a.frames[i][name] {
			return true
		}
	}
	return false
}

func (a *analyzer) nodes(nodes []node) {
	for _, n := range nodes {
		a.node(n)
	}
}

func (a *analyzer) node(n node) {
	switch n := n.(type) {
	case *outputNode:
		a.expr(n.x)
	case *ifNode:
		for i, c := range n.conds {
			a.expr(c)
			a.nodes(n.bodies[i])
		}
		a.nodes(n.elseBody)
	case *forNode:
		a.expr(n.iter)
		a.push(n.targets...)
		a.loops++
		a.nodes(n.body)
		a.loops--
		a.pop()
		a.nodes(n.elseBody)
	case *setNode:
		if n.x != nil {
			a.expr(n.x)
		} else {
			a.nodes(n.body)
		}
		a.frames[len(a.frames)-1][n.name] = true
	case *withNode:
		for _, x := range n.xs {
			a.expr(x)
		}
		a.push(n.names...)
		a.nodes(n.body)
		a.pop()
	case *includeNode:
		prev := a.file
		a.file = n.path
		a.nodes(n.body)
		a.file = prev
	case *chatNode:
		a.expr(n.role)
		a.nodes(n.body)
	case *imageNode:
		a.expr(n.x)
	}
}

func (a *analyzer) name(name string, p pos) {
	switch {
	case a.isLocal(name):
	case name == "loop" && a.loops > 0:
	case a.declared[name]:
		a.used[name] = true
	default:
		r := ref{name: name, file: a.file, p: p}
		if !a.seen[r] {
			a.seen[r] = true
			a.undecl = append(a.undecl, r)
		}
	}
}

func (a *analyzer) exprs(xs []expr) {
	for _, x := range xs {
		if x != nil {
			a.expr(x)
		}
	}
}

func (a *analyzer) expr(x expr) {
	switch e := x.(type) {
	case *nameExpr:
		a.name(e.name, e.p)
	case *listExpr:
		a.exprs(e.items)
	case *dictExpr:
		a.exprs(e.keys)
		a.exprs(e.values)
	case *attrExpr:
		a.expr(e.x)
	case *indexExpr:
		a.expr(e.x)
		a.expr(e.index)
	case *sliceExpr:
		a.exprs([]expr{e.x, e.start, e.stop, e.step})
	case *callExpr:
		if n, ok := e.fn.(*nameExpr); ok && n.name == "range" {
			// range is the one global function, not a variable.
		} else {
			a.expr(e.fn)
		}
		a.exprs(e.args)
		for _, kw := range e.kwargs {
			a.expr(kw.x)
		}
	case *filterExpr:
		a.expr(e.x)
		a.exprs(e.args)
		for _, kw := range e.kwargs {
			a.expr(kw.x)
		}
	case *testExpr:
		a.expr(e.x)
		a.exprs(e.args)
	case *unaryExpr:
		a.expr(e.x)
	case *binaryExpr:
		a.expr(e.l)
		a.expr(e.r)
	case *condExpr:
		a.exprs([]expr{e.cond, e.then, e.els_})
	}
}
