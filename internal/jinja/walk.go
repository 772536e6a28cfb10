package jinja

import "fmt"

// One walker for every pass: Children lists a node's children in source
// order, and Inspect visits a tree through it. A pass handles the kinds it
// cares about and recurses through Children for the rest, so a node kind
// added to the tree is visited by every pass, and one that Children does
// not know is a panic (in tests, at once), never a silent skip.

// Children returns the child nodes of n in source order (statements of
// bodies, expressions, parameters), skipping absent optional parts.
func Children(n Node) []Node {
	var out []Node
	add := func(xs ...Node) {
		for _, x := range xs {
			if x != nil {
				out = append(out, x)
			}
		}
	}
	addBody := func(b []Node) { out = append(out, b...) }
	addExprs := func(xs []Expr) {
		for _, x := range xs {
			add(x)
		}
	}
	addKw := func(ks []*Keyword) {
		for _, k := range ks {
			out = append(out, k)
		}
	}
	addParams := func(ps []*Param) {
		for _, p := range ps {
			out = append(out, p)
		}
	}
	switch n := n.(type) {
	case *TextNode, *BreakNode, *ContinueNode, *NameExpr, *ConstExpr:
	case *OutputNode:
		add(n.X)
	case *IfNode:
		for _, b := range n.Branches {
			out = append(out, b)
		}
		addBody(n.Else)
	case *Branch:
		add(n.Cond)
		addBody(n.Body)
	case *ForNode:
		add(n.Target, n.Iter, n.Cond)
		addBody(n.Body)
		addBody(n.Else)
	case *SetNode:
		add(n.Target, n.Value)
	case *SetBlockNode:
		add(n.Target)
		for _, f := range n.Filters {
			out = append(out, f)
		}
		addBody(n.Body)
	case *WithNode:
		for i := range n.Targets {
			add(n.Targets[i], n.Values[i])
		}
		addBody(n.Body)
	case *IncludeNode:
		add(n.Template)
	case *ImportNode:
		add(n.Template)
	case *FromImportNode:
		add(n.Template)
	case *ExtendsNode:
		add(n.Template)
	case *BlockNode:
		addBody(n.Body)
	case *MacroNode:
		addParams(n.Params)
		addBody(n.Body)
	case *Param:
		add(n.Default)
	case *CallBlockNode:
		addParams(n.Params)
		add(n.Call)
		addBody(n.Body)
	case *FilterBlockNode:
		for _, f := range n.Filters {
			out = append(out, f)
		}
		addBody(n.Body)
	case *AutoescapeNode:
		add(n.X)
		addBody(n.Body)
	case *ChatNode:
		add(n.Role)
		addBody(n.Body)
	case *GenerationNode:
		addBody(n.Body)
	case *ShrinkNode:
		addBody(n.Body)
	case *ListExpr:
		addExprs(n.Items)
	case *TupleExpr:
		addExprs(n.Items)
	case *DictExpr:
		for i := range n.Keys {
			add(n.Keys[i], n.Values[i])
		}
	case *AttrExpr:
		add(n.X)
	case *IndexExpr:
		add(n.X, n.Index)
	case *SliceExpr:
		add(n.Start, n.Stop, n.Step)
	case *CallExpr:
		add(n.Fn)
		addExprs(n.Args)
		addKw(n.Kwargs)
		add(n.DynArgs, n.DynKwargs)
	case *FilterExpr:
		add(n.X)
		addExprs(n.Args)
		addKw(n.Kwargs)
		add(n.DynArgs, n.DynKwargs)
	case *TestExpr:
		add(n.X)
		addExprs(n.Args)
		addKw(n.Kwargs)
		add(n.DynArgs, n.DynKwargs)
	case *UnaryExpr:
		add(n.X)
	case *BinaryExpr:
		add(n.L, n.R)
	case *ConcatExpr:
		addExprs(n.Items)
	case *CompareExpr:
		add(n.X)
		for _, op := range n.Ops {
			out = append(out, op)
		}
	case *CompareOp:
		add(n.Y)
	case *CondExpr:
		add(n.Then, n.Test, n.Else)
	case *Keyword:
		add(n.Value)
	default:
		panic(fmt.Sprintf("jinja: Children: unknown node %T", n))
	}
	return out
}

// Inspect visits n and, while f returns true, its descendants, depth
// first in source order.
func Inspect(n Node, f func(Node) bool) {
	if !f(n) {
		return
	}
	for _, c := range Children(n) {
		Inspect(c, f)
	}
}

// InspectAll visits every node of a body.
func InspectAll(nodes []Node, f func(Node) bool) {
	for _, n := range nodes {
		Inspect(n, f)
	}
}
