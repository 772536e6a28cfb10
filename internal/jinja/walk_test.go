package jinja

import (
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyKind is one template with a node of every kind.
const everyKind = `text{{ x }}{% if a %}{% elif b %}{% else %}{% endif %}` +
	`{% for k, v in d if k recursive %}{% break %}{% continue %}{% else %}{% endfor %}` +
	`{% set s = 1 %}{% set ns.a = 2 %}{% set blk | upper %}b{% endset %}{% with w = 1 %}{% endwith %}` +
	`{% include "i.md" %}{% import "m.md" as m %}{% from "m.md" import f as g %}{% extends "base.md" %}` +
	`{% block body %}{% endblock %}{% macro mac(p, q=1) %}{% endmacro %}{% call(c) mac(1) %}{% endcall %}` +
	`{% filter upper %}{% endfilter %}{% autoescape false %}{% endautoescape %}` +
	`{% chat role="user" %}{% generation %}{% endgeneration %}{% endchat %}{% shrink priority=1 %}{% endshrink %}` +
	`{{ [1, (2, 3), {"k": v}] }}{{ o.attr[0][1:2:3] }}{{ f(1, k=2, *a, **kw) }}{{ x | f(1, k=2, *a, **kw) }}` +
	`{{ x is t(1, k=2, *a, **kw) }}{{ -x + y ~ z }}{{ a < b in c }}{{ a if b else c }}`

// nodeKinds lists the node types ast.go declares: every type with a
// node() method. A kind added there is checked here without editing this
// test.
func nodeKinds(t *testing.T) []string {
	t.Helper()
	f, err := goparser.ParseFile(token.NewFileSet(), "ast.go", nil, 0)
	require.NoError(t, err)
	var kinds []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "node" || fn.Recv == nil {
			continue
		}
		star := fn.Recv.List[0].Type.(*ast.StarExpr)
		kinds = append(kinds, "*jinja."+star.X.(*ast.Ident).Name)
	}
	sort.Strings(kinds)
	require.NotEmpty(t, kinds)
	return kinds
}

func parseEveryKind(t *testing.T) *Tree {
	t.Helper()
	tr, err := Parse("every.md", everyKind, Options{})
	require.NoError(t, err)
	return tr
}

// TestInspectReachesEveryKind walks one tree holding every kind of node.
func TestInspectReachesEveryKind(t *testing.T) {
	tr := parseEveryKind(t)
	seen := map[string]bool{}
	InspectAll(tr.Root, func(n Node) bool {
		seen[fmt.Sprintf("%T", n)] = true
		return true
	})
	var got []string
	for k := range seen {
		got = append(got, k)
	}
	sort.Strings(got)
	assert.Equal(t, nodeKinds(t), got)
}

// TestChildrenAreEveryChild checks, for every node of the tree, that
// Children returns exactly the node's fields that hold nodes (found by
// reflection), none left out and none made up, in source order.
func TestChildrenAreEveryChild(t *testing.T) {
	tr := parseEveryKind(t)
	InspectAll(tr.Root, func(n Node) bool {
		got := Children(n)
		want := fieldNodes(reflect.ValueOf(n).Elem())
		assert.ElementsMatch(t, want, got, "%T %s", n, n)
		assert.True(t, slices.IsSortedFunc(got, func(a, b Node) int { return int(a.Position() - b.Position()) }),
			"children of %T %s out of source order", n, n)
		for _, c := range got {
			assert.GreaterOrEqual(t, c.Position(), n.Position(), "%T %s starts before its parent %T", c, c, n)
		}
		return true
	})
}

var nodeType = reflect.TypeFor[Node]()

// fieldNodes collects the non-nil nodes in the fields of a node struct.
func fieldNodes(v reflect.Value) []Node {
	var out []Node
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Interface || f.Kind() == reflect.Pointer:
			if !f.IsNil() && f.Type().Implements(nodeType) {
				out = append(out, f.Interface().(Node))
			}
		case f.Kind() == reflect.Slice && f.Type().Elem().Implements(nodeType):
			for j := range f.Len() {
				if e := f.Index(j); !e.IsNil() {
					out = append(out, e.Interface().(Node))
				}
			}
		}
	}
	return out
}

func TestInspectPrunes(t *testing.T) {
	tr, err := Parse("t.md", "{% if a %}{{ b }}{% endif %}{{ c }}", Options{})
	require.NoError(t, err)
	var names []string
	InspectAll(tr.Root, func(n Node) bool {
		if x, ok := n.(*NameExpr); ok {
			names = append(names, x.Name)
		}
		_, isIf := n.(*IfNode)
		return !isIf // do not enter the if
	})
	assert.Equal(t, []string{"c"}, names)
}

// bogus is a node kind Children does not know.
type bogus struct{}

func (bogus) Position() Pos  { return 0 }
func (bogus) String() string { return "bogus" }
func (bogus) node()          {}

func TestChildrenPanicsOnUnknownKind(t *testing.T) {
	assert.PanicsWithValue(t, "jinja: Children: unknown node jinja.bogus", func() { Children(bogus{}) })
	// Inspect reaches it through a known parent, and fails as loudly.
	out := &OutputNode{X: &UnaryExpr{Op: "-", X: &NameExpr{Name: "x"}}}
	assert.NotPanics(t, func() { Inspect(out, func(Node) bool { return true }) })
	assert.Panics(t, func() {
		Inspect(&IfNode{Branches: []*Branch{{Cond: &NameExpr{Name: "a"}, Body: []Node{bogus{}}}}}, func(Node) bool { return true })
	})
}
