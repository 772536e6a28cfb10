//promptkit:allow-inline the front end's diagnostics: messages quote template syntax
package jinja

import (
	"fmt"
	"slices"
)

// Guards: where a template reads an optional variable that may be
// undefined (optional, no default) without asking first. In a strict
// template such a read fails any render that does not pass the variable,
// so the checks report every one at load, with its position. A read is
// guarded when it is
//
//   - the operand of a test or the input of a filter that takes an
//     undefined value (is defined, is undefined, is none, default, d…:
//     Spec.TakesUndefined);
//   - inside the body of {% if x is defined %} or {% if x | default %}
//     (or an elif, or the else of {% if x is undefined %}), after "x is
//     defined and" or "x is undefined or", or in the branch of an inline
//     if that asks.

// UnguardedReads reports every read of one of the names (root variables of p)
// that no guard covers, in source order, each as an Error of kind
// Unguarded whose Name is the variable.
func UnguardedReads(p *Program, names []string, catalog *Catalog) ErrorList {
	if len(names) == 0 {
		return nil
	}
	g := &guards{p: p, names: names, catalog: catalog, seen: map[*NameExpr]bool{}}
	trees := []*Tree{p.Tree}
	if p.Inherit != nil {
		trees = p.Inherit.Chain
	}
	for _, t := range trees {
		g.src = t.Source
		g.body(t.Root, nil)
	}
	return g.out
}

type guards struct {
	p       *Program
	names   []string
	catalog *Catalog
	src     *Source
	seen    map[*NameExpr]bool
	out     ErrorList
}

// defined is the set of names known to be defined where a node stands.
type defined []string

func (d defined) with(names []string) defined {
	if len(names) == 0 {
		return d
	}
	return append(slices.Clip(d), names...)
}

func (g *guards) body(nodes []Node, d defined) {
	for _, n := range nodes {
		g.node(n, d)
	}
}

func (g *guards) node(n Node, d defined) {
	switch n := n.(type) {
	case *IfNode:
		var negs []string // what the earlier conditions, false, prove
		for _, b := range n.Branches {
			g.node(b.Cond, d.with(negs))
			g.body(b.Body, d.with(negs).with(provenBy(b.Cond, true)))
			negs = append(negs, provenBy(b.Cond, false)...)
		}
		g.body(n.Else, d.with(negs))
		return
	case *IncludeNode, *ImportNode, *FromImportNode:
		if t := g.p.Trees[n]; t != nil {
			saved := g.src
			g.src = t.Source
			g.body(t.Root, d)
			g.src = saved
		}
		return
	case *NameExpr:
		g.read(n, d)
		return
	case *TestExpr:
		if g.takesUndefined(g.catalog.Tests, n.Name) {
			g.operand(n.X, d)
		} else {
			g.node(n.X, d)
		}
		g.rest(Children(n)[1:], d)
		return
	case *FilterExpr:
		if n.X != nil {
			if g.takesUndefined(g.catalog.Filters, n.Name) {
				g.operand(n.X, d)
			} else {
				g.node(n.X, d)
			}
			g.rest(Children(n)[1:], d)
			return
		}
	case *BinaryExpr:
		switch n.Op {
		case "and":
			g.node(n.L, d)
			g.node(n.R, d.with(provenBy(n.L, true)))
			return
		case "or":
			g.node(n.L, d)
			g.node(n.R, d.with(provenBy(n.L, false)))
			return
		}
	case *CondExpr:
		g.node(n.Test, d)
		g.node(n.Then, d.with(provenBy(n.Test, true)))
		if n.Else != nil {
			g.node(n.Else, d.with(provenBy(n.Test, false)))
		}
		return
	}
	g.rest(Children(n), d)
}

func (g *guards) rest(nodes []Node, d defined) {
	for _, c := range nodes {
		g.node(c, d)
	}
}

// operand is a name asked about: no read to report, if it is a name.
func (g *guards) operand(x Expr, d defined) {
	if _, ok := x.(*NameExpr); ok {
		return
	}
	g.node(x, d)
}

func (g *guards) takesUndefined(specs map[string]Spec, name string) bool {
	s, ok := specs[name]
	return ok && s.TakesUndefined
}

// read reports a read of a watched variable that d does not cover.
func (g *guards) read(n *NameExpr, d defined) {
	s := g.p.Refs[n]
	if s == nil || s.Kind != SymVariable || s.Frame != g.p.Root || !slices.Contains(g.names, n.Name) ||
		slices.Contains(d, n.Name) || g.seen[n] {
		return
	}
	g.seen[n] = true
	e := errUnguarded(n.Pos, n.Name)
	e.File = g.src.Name
	e.Line, e.Col = g.src.Position(n.Pos)
	g.out = append(g.out, e)
}

// provenBy lists the names a condition proves defined when it is true
// (or, with truth false, when it is false).
func provenBy(x Expr, truth bool) []string {
	switch x := x.(type) {
	case *TestExpr:
		n, ok := x.X.(*NameExpr)
		if !ok || (x.Name != "defined" && x.Name != "undefined") {
			return nil
		}
		if (x.Name == "defined") != x.Negated == truth {
			return []string{n.Name}
		}
	case *FilterExpr:
		// x | default (its default '' is false): true only when x is
		// defined, and true.
		n, ok := x.X.(*NameExpr)
		if ok && truth && (x.Name == "default" || x.Name == "d") && len(x.Args) == 0 && len(x.Kwargs) == 0 && x.DynArgs == nil && x.DynKwargs == nil {
			return []string{n.Name}
		}
	case *UnaryExpr:
		if x.Op == "not" {
			return provenBy(x.X, !truth)
		}
	case *BinaryExpr:
		switch {
		case x.Op == "and" && truth, x.Op == "or" && !truth:
			return append(provenBy(x.L, truth), provenBy(x.R, truth)...)
		}
	}
	return nil
}

func errUnguarded(p Pos, name string) *Error {
	return &Error{Pos: p, Kind: Unguarded, Name: name, Msg: fmt.Sprintf(
		"optional variable %q is read without a guard: a render that does not pass it fails (it has no default); "+
			"write {%% if %s is defined %%}…{%% endif %%} or %s | default(…), or give it a default in index.json", name, name, name)}
}
