package engine

import (
	"fmt"
	"strconv"
)

// Execution. A compiled template is a tree of nodes (statements) over
// evaluator trees (expressions, eval.go), built once by the compiler
// (compile.go) and never changed after: every node's exec reads its
// compiled fields and writes only to the render's state. A body runs its
// nodes in order; break and continue travel back to their loop as the
// flow a body returns, and errors unwind the render as a failure (see
// state.fail), so a node's exec has no error to return.

// node is one statement of a compiled body.
type node interface {
	exec(st *state) flow
}

// flow is how a body ended: at its end, or at a break or continue that
// its loop handles.
type flow uint8

const (
	flowNext flow = iota
	flowBreak
	flowContinue
)

// body is a list of statements.
type body []node

func (b body) exec(st *state) flow {
	for _, n := range b {
		if f := n.exec(st); f != flowNext {
			return f
		}
	}
	return flowNext
}

// textNode is template text.
type textNode string

func (n textNode) exec(st *state) flow {
	st.WriteString(string(n))
	return flowNext
}

// printNode prints a run of text and {{ … }} outputs that stand side by
// side in a body: one node for the run, not one per piece.
type printNode []printPart

// printPart is text (x nil) or an output.
type printPart struct {
	text string
	x    expr
	at   site
	// slot >= 0: x reads that slot of the current activation (a slotX),
	// or an attribute of it (an attrX over that slotX). Most outputs are
	// {{ name }} or {{ doc.title }} of a string: printPart.direct writes
	// those without building their Value; any other value takes x.
	// slot == printFilter: x is a *filterX whose builtin prints its
	// result in place (see printFn).
	slot int32
}

const printFilter = -2

func (n printNode) exec(st *state) flow {
	for i := range n {
		p := &n[i]
		switch {
		case p.x == nil:
			st.WriteString(p.text)
		case p.slot >= 0 && p.direct(st):
		case p.slot == printFilter:
			p.x.(*filterX).print(st, &p.at)
		default:
			if c, ok := p.x.(*addChainX); ok {
				c.print(st, &p.at)
			} else {
				st.print(&p.at, p.x.eval(st))
			}
		}
		if st.over {
			st.outputFull(&p.at)
		}
	}
	return flowNext
}

// direct prints the part when it is a string read from a slot, or from
// a JSON-like dict in a slot (what slotX and attrX would give: a key of a
// map[string]any is the attribute), and reports whether it did.
func (p *printPart) direct(st *state) bool {
	v := st.act.slots[p.slot]
	a, isAttr := p.x.(*attrX)
	if !isAttr {
		if v.k != String {
			return false
		}
		st.WriteString(v.s)
		return true
	}
	if v.k != Dict {
		return false
	}
	m, ok := v.ref.(map[string]any)
	if !ok {
		return false
	}
	s, ok := m[a.name].(string)
	if ok {
		st.WriteString(s)
	}
	return ok
}

// print writes str(v) to the output or the innermost capture.
func (st *state) print(at *site, v Value) {
	switch v.k {
	case String:
		st.WriteString(v.s)
		return
	case Undefined:
		st.mustUse(at, v, "printed")
		return
	case Int:
		var buf [24]byte
		st.Write(strconv.AppendInt(buf[:0], v.n, 10))
		return
	}
	st.at = at
	p := printer{limit: st.budgetLeft()}
	if err := p.str(v); err != nil {
		st.fail(at, st.printErr(err, len(p.b)))
	}
	st.Write(p.b)
}

// outputFull stops the render with the limit the output reached, once a
// write was refused.
func (st *state) outputFull(at *site) {
	if len(st.caps) > 0 {
		st.fail(at, st.tooBig(st.lim.MaxMemory))
	}
	st.fail(at, &limitError{fmt.Sprintf("the output would exceed %d bytes (WithMaxOutputBytes)", st.max)})
}

// ifNode is {% if %}…{% elif %}…{% else %}…{% endif %}.
type ifNode struct {
	branches []ifBranch
	els      body
}

// ifBranch is a condition of an {% if %} or {% elif %} and its body.
type ifBranch struct {
	cond expr
	test boolExpr // cond as a boolExpr, or nil
	at   site     // of cond
	body body
}

func (n *ifNode) exec(st *state) flow {
	for i := range n.branches {
		b := &n.branches[i]
		var ok bool
		if b.test != nil {
			ok = b.test.test(st)
		} else {
			ok = st.truth(&b.at, b.cond.eval(st))
		}
		if ok {
			return b.body.exec(st)
		}
	}
	return n.els.exec(st)
}

// breakNode and continueNode end a loop's iteration.
type (
	breakNode    struct{}
	continueNode struct{}
)

func (breakNode) exec(*state) flow    { return flowBreak }
func (continueNode) exec(*state) flow { return flowContinue }
