package jinja

// Template inheritance. A template whose top level holds
// {% extends "base.md" %} renders its parent (and its parent's parent…)
// with the blocks it defines in place of the parent's: the root-most
// template of the chain is the layout; every {% block %} it renders is a
// site, which renders the most derived definition of that block, and
// super() inside a definition renders the next one. Each template's top
// level runs first, child before parent (its sets and imports bind names
// every block sees); what a template that extends prints outside its
// blocks after the extends tag is dropped, as Jinja drops it.

// Inheritance describes a checked chain of templates.
type Inheritance struct {
	// Chain is the template and its ancestors, child first; the last is
	// the layout.
	Chain []*Tree
	// Blocks are the definitions of each block, most derived first.
	Blocks map[string][]*BlockNode
	// Source is the file each block definition is in.
	Source map[*BlockNode]*Source
}

// extendsNode returns a tree's first top-level extends tag, if any.
func extendsNode(t *Tree) *ExtendsNode {
	for _, n := range t.Root {
		if e, ok := n.(*ExtendsNode); ok {
			return e
		}
	}
	return nil
}

// extendsAgain reports each top-level extends tag of t after its first:
// Jinja refuses to render a template extended multiple times.
func (c *checker) extendsAgain(t *Tree, first *ExtendsNode) {
	for _, n := range t.Root {
		if e, ok := n.(*ExtendsNode); ok && e != first {
			line, _ := t.Source.Position(first.Pos)
			c.reportIn(t.Source, errExtendsAgain(e.Pos, line))
		}
	}
}

// inherit resolves the chain of a template that extends another, and
// collects its blocks. It reports what stops the chain.
func (c *checker) inherit(t *Tree) *Inheritance {
	in := &Inheritance{Chain: []*Tree{t}, Blocks: map[string][]*BlockNode{}, Source: map[*BlockNode]*Source{}}
	saved := c.stack
	defer func() { c.stack = saved }() // checkInherited walks each file within its own chain
	for cur := t; ; {
		e := extendsNode(cur)
		if e == nil {
			break
		}
		c.extendsAgain(cur, e)
		savedSrc := c.src
		c.src = cur.Source
		file, ok := c.literalPath(e.Template, "extends")
		var parent *Tree
		if ok {
			parent = c.load(e.Pos, "extends", file, false)
		}
		c.src = savedSrc
		if parent == nil {
			return nil
		}
		c.stack = append(c.stack, parent.Source.Name)
		c.prog.Trees[e] = parent
		in.Chain = append(in.Chain, parent)
		cur = parent
	}
	for _, tr := range in.Chain {
		seen := map[string]bool{}
		InspectAll(tr.Root, func(n Node) bool {
			switch b := n.(type) {
			case *BlockNode:
				if seen[b.Name] {
					c.reportIn(tr.Source, errBlockTwice(b.Pos, b.Name))
					return true
				}
				seen[b.Name] = true
				in.Blocks[b.Name] = append(in.Blocks[b.Name], b)
				in.Source[b] = tr.Source
			case *MacroNode, *CallBlockNode:
				return false // a block inside a macro is not one of the template's
			}
			return true
		})
	}
	return in
}

func (c *checker) reportIn(s *Source, e *Error) {
	saved := c.src
	c.src = s
	c.report(e)
	c.src = saved
}

// checkInherited checks a chain: each template's top level in turn,
// child first, in one top-level frame; the layout's body; every block
// definition where a site renders it.
func (c *checker) checkInherited(in *Inheritance) {
	c.prog.Inherit = in
	for i, tr := range in.Chain[:len(in.Chain)-1] {
		c.stack = chainNames(in.Chain[:i])
		c.within(tr, func() {
			for _, n := range tr.Root {
				switch n.(type) {
				case *BlockNode, *ExtendsNode:
					continue // definitions, checked where they render
				}
				c.node(n)
			}
		})
	}
	layout := in.Chain[len(in.Chain)-1]
	c.stack = chainNames(in.Chain[:len(in.Chain)-1])
	c.within(layout, func() { c.body(layout.Root) })
}

// chainNames are the file names of trees, for the include chain.
func chainNames(ts []*Tree) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Source.Name
	}
	return out
}

// blockSite checks a block where it renders: every definition of its
// name, each in a frame of its own (a closure: the activation of a
// block's run), whose names resolve at the top level, or, for a scoped
// block, where the block stands.
func (c *checker) blockSite(n *BlockNode) {
	defs := []*BlockNode{n}
	srcs := map[*BlockNode]*Source{n: c.src}
	if in := c.prog.Inherit; in != nil {
		if d := in.Blocks[n.Name]; len(d) > 0 {
			defs, srcs = d, in.Source
		}
	}
	if defs[0].Required {
		// No template of the chain defines the block it requires (Jinja
		// raises when it renders the block).
		c.report(errRequiredBlock(n.Pos, n.Name))
	}
	parent := c.rootOf(c.cur)
	if n.Scoped {
		parent = c.cur
	}
	for i, d := range defs {
		if _, done := c.prog.Frame[d]; done {
			continue
		}
		fr := newFrame(FrameBlock, d, parent)
		c.prog.Frame[d] = fr
		src := srcs[d]
		if src == nil {
			src = c.src
		}
		hasSuper := i+1 < len(defs)
		c.later(func() {
			savedSrc, savedLoops := c.src, c.loops
			c.src, c.loops = src, nil
			c.inFrame(fr, func() {
				if hasSuper {
					fr.bind("super", SymSuper)
				}
				c.body(d.Body)
			})
			c.src, c.loops = savedSrc, savedLoops
		})
	}
}

func errBlockTwice(p Pos, name string) *Error {
	return syntaxf(p, "block %q is defined twice in this template", name)
}
