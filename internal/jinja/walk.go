package jinja

import (
	"fmt"
	"sync"
)

// One walker for every pass: Children lists a node's children in source
// order, and Inspect visits a tree through it. A pass handles the kinds it
// cares about and recurses through Children for the rest, so a node kind
// added to the tree is visited by every pass, and one that Children does
// not know is a panic (in tests, at once), never a silent skip.

// Children returns the child nodes of n in source order (statements of
// bodies, expressions, parameters), skipping absent optional parts.
func Children(n Node) []Node { return appendChildren(nil, n) }

// appendChildren appends the children of n to out: Inspect walks a whole
// tree through one buffer.
func appendChildren(out []Node, n Node) []Node {
	switch n := n.(type) {
	case *TextNode, *BreakNode, *ContinueNode, *NameExpr, *ConstExpr:
	case *OutputNode:
		out = addNodes(out, n.X)
	case *IfNode:
		for _, b := range n.Branches {
			out = append(out, b)
		}
		out = append(out, n.Else...)
	case *Branch:
		out = addNodes(out, n.Cond)
		out = append(out, n.Body...)
	case *ForNode:
		out = addNodes(out, n.Target, n.Iter, n.Cond)
		out = append(out, n.Body...)
		out = append(out, n.Else...)
	case *SetNode:
		out = addNodes(out, n.Target, n.Value)
	case *SetBlockNode:
		out = addNodes(out, n.Target)
		for _, f := range n.Filters {
			out = append(out, f)
		}
		out = append(out, n.Body...)
	case *WithNode:
		for i := range n.Targets {
			out = addNodes(out, n.Targets[i], n.Values[i])
		}
		out = append(out, n.Body...)
	case *IncludeNode:
		out = addNodes(out, n.Template)
	case *ImportNode:
		out = addNodes(out, n.Template)
	case *FromImportNode:
		out = addNodes(out, n.Template)
	case *ExtendsNode:
		out = addNodes(out, n.Template)
	case *BlockNode:
		out = append(out, n.Body...)
	case *MacroNode:
		out = addParams(out, n.Params)
		out = append(out, n.Body...)
	case *Param:
		out = addNodes(out, n.Default)
	case *CallBlockNode:
		out = addParams(out, n.Params)
		out = addNodes(out, n.Call)
		out = append(out, n.Body...)
	case *FilterBlockNode:
		for _, f := range n.Filters {
			out = append(out, f)
		}
		out = append(out, n.Body...)
	case *AutoescapeNode:
		out = addNodes(out, n.X)
		out = append(out, n.Body...)
	case *ChatNode:
		out = addNodes(out, n.Role)
		out = append(out, n.Body...)
	case *GenerationNode:
		out = append(out, n.Body...)
	case *ShrinkNode:
		out = append(out, n.Body...)
	case *ListExpr:
		out = addExprs(out, n.Items)
	case *TupleExpr:
		out = addExprs(out, n.Items)
	case *DictExpr:
		for i := range n.Keys {
			out = addNodes(out, n.Keys[i], n.Values[i])
		}
	case *AttrExpr:
		out = addNodes(out, n.X)
	case *IndexExpr:
		out = addNodes(out, n.X, n.Index)
	case *SliceExpr:
		out = addNodes(out, n.Start, n.Stop, n.Step)
	case *CallExpr:
		out = addNodes(out, n.Fn)
		out = addExprs(out, n.Args)
		out = addKw(out, n.Kwargs)
		out = addNodes(out, n.DynArgs, n.DynKwargs)
	case *FilterExpr:
		out = addNodes(out, n.X)
		out = addExprs(out, n.Args)
		out = addKw(out, n.Kwargs)
		out = addNodes(out, n.DynArgs, n.DynKwargs)
	case *TestExpr:
		out = addNodes(out, n.X)
		out = addExprs(out, n.Args)
		out = addKw(out, n.Kwargs)
		out = addNodes(out, n.DynArgs, n.DynKwargs)
	case *UnaryExpr:
		out = addNodes(out, n.X)
	case *BinaryExpr:
		out = addNodes(out, n.L, n.R)
	case *ConcatExpr:
		out = addExprs(out, n.Items)
	case *CompareExpr:
		out = addNodes(out, n.X)
		for _, op := range n.Ops {
			out = append(out, op)
		}
	case *CompareOp:
		out = addNodes(out, n.Y)
	case *CondExpr:
		out = addNodes(out, n.Then, n.Test, n.Else)
	case *Keyword:
		out = addNodes(out, n.Value)
	default:
		panic(fmt.Sprintf("jinja: Children: unknown node %T", n))
	}
	return out
}

// addNodes appends the nodes of xs that are there.
func addNodes(out []Node, xs ...Node) []Node {
	for _, x := range xs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

func addExprs(out []Node, xs []Expr) []Node {
	for _, x := range xs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

func addKw(out []Node, ks []*Keyword) []Node {
	for _, k := range ks {
		out = append(out, k)
	}
	return out
}

func addParams(out []Node, ps []*Param) []Node {
	for _, p := range ps {
		out = append(out, p)
	}
	return out
}

// Inspect visits n and, while f returns true, its descendants, depth
// first in source order.
func Inspect(n Node, f func(Node) bool) {
	buf := inspectBufs.Get().(*[]Node)
	inspect(n, f, buf)
	putInspectBuf(buf)
}

// inspectBufs are Inspect's buffers: the passes of a load inspect many
// small trees.
var inspectBufs = sync.Pool{New: func() any { return new([]Node) }}

// inspect visits n and its descendants, their children listed on the top
// of buf and taken off again.
func inspect(n Node, f func(Node) bool, buf *[]Node) {
	if !f(n) {
		return
	}
	start := len(*buf)
	*buf = appendChildren(*buf, n)
	for i, end := start, len(*buf); i < end; i++ {
		inspect((*buf)[i], f, buf)
	}
	*buf = (*buf)[:start]
}

// InspectAll visits every node of a body.
func InspectAll(nodes []Node, f func(Node) bool) {
	buf := inspectBufs.Get().(*[]Node)
	for _, n := range nodes {
		inspect(n, f, buf)
	}
	putInspectBuf(buf)
}

// putInspectBuf returns a buffer to the pool without the nodes it held.
func putInspectBuf(buf *[]Node) {
	clear((*buf)[:cap(*buf)])
	inspectBufs.Put(buf)
}
