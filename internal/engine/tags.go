package engine

import (
	"fmt"
	"io"
	"strconv"

	"github.com/flosch/pongo2/v6"
)

// pongo2 executes every template: the compiler (compile.go) writes a
// pongo2 template made of promptkit's own tags around the template's text,
// and pongo2 parses it into its node tree and runs it, text nodes and all.
// Each tag names, by its number, the compiled construct it runs (a
// condition, a loop, a print…); after pongo2 has parsed the template, one
// linking pass hands each tag its construct, so a render looks nothing up.
// The tags are registered with pongo2 once, at init, under a "pk_" prefix
// that no host's own use of pongo2 shares; pongo2's process-wide settings
// (autoescape) are never changed.

// errBreak and errContinue unwind a loop body to its loop: pongo2's node
// lists stop at the first error a node returns.
var (
	errBreak    = &pongo2.Error{Sender: "promptkit:break"}
	errContinue = &pongo2.Error{Sender: "promptkit:continue"}
)

// linker is the writer of the linking pass: tags that see it take their
// construct from its table and link their bodies.
type linker struct {
	nodes []any
	root  *rootTag
}

func (*linker) Write(p []byte) (int, error)       { return len(p), nil }
func (*linker) WriteString(s string) (int, error) { return len(s), nil }

// link runs a body in linking mode.
func link(w *pongo2.NodeWrapper, ctx *pongo2.ExecutionContext, lk *linker) *pongo2.Error {
	if w == nil {
		return nil
	}
	return w.Execute(ctx, lk)
}

// tagIndex reads the construct number a tag carries.
func tagIndex(args *pongo2.Parser) (int, *pongo2.Error) {
	t := args.MatchType(pongo2.TokenNumber)
	if t == nil || args.Remaining() > 0 {
		return 0, args.Error("promptkit: malformed tag", nil)
	}
	n, err := strconv.Atoi(t.Val)
	if err != nil {
		return 0, args.Error("promptkit: malformed tag", t)
	}
	return n, nil
}

// The tags. Each holds what pongo2 parsed (its bodies) and, after
// linking, its compiled construct.

type rootTag struct{ body *pongo2.NodeWrapper }

func (n *rootTag) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	if c, ok := ctx.Public[captureKey].(*linker); ok {
		c.root = n
		return nil
	}
	return n.body.Execute(ctx, w)
}

const captureKey = "_pkcapture"

// printTag prints a run of text and {{ … }} outputs that stand side by
// side in a body: one tag for the run, not one node per piece.
type printTag struct {
	idx   int
	parts []printPart
}

// printPart is text (x nil) or an output.
type printPart struct {
	text string
	x    expr
	at   site
	// slot >= 0: x reads that slot of the current activation (a slotX),
	// or an attribute of it (an attrX over that slotX). Most outputs are
	// {{ name }} or {{ doc.title }} of a string: printPart.direct writes
	// those without building their Value; any other value takes x.
	slot int32
}

func (n *printTag) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	st, ok := w.(*state)
	if !ok {
		n.parts = w.(*linker).nodes[n.idx].([]printPart)
		return nil
	}
	for i := range n.parts {
		p := &n.parts[i]
		switch {
		case p.x == nil:
			st.WriteString(p.text)
		case p.slot >= 0 && p.direct(st):
		default:
			st.print(&p.at, p.x.eval(st))
		}
		if st.over {
			return st.outputFull(&p.at)
		}
	}
	return nil
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

// outputFull reports the output limit, once the output refused a write.
func (st *state) outputFull(at *site) *pongo2.Error {
	if len(st.caps) > 0 {
		st.fail(at, st.tooBig(st.lim.MaxMemory))
	}
	st.fail(at, &limitError{fmt.Sprintf("the output would exceed %d bytes (WithMaxOutputBytes)", st.max)})
	return nil
}

type textTag struct {
	idx int
	s   string
}

func (n *textTag) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	if lk, ok := w.(*linker); ok {
		n.s = lk.nodes[n.idx].(string)
		return nil
	}
	w.WriteString(n.s)
	return nil
}

type ifTag struct {
	idx    int
	conds  []expr
	bodies []*pongo2.NodeWrapper
	els    *pongo2.NodeWrapper
}

func (n *ifTag) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	st, ok := w.(*state)
	if !ok {
		return n.link(ctx, w.(*linker))
	}
	for i, c := range n.conds {
		if truthy(c.eval(st)) {
			return n.bodies[i].Execute(ctx, w)
		}
	}
	if n.els != nil {
		return n.els.Execute(ctx, w)
	}
	return nil
}

func (n *ifTag) link(ctx *pongo2.ExecutionContext, lk *linker) *pongo2.Error {
	n.conds = lk.nodes[n.idx].([]expr)
	for _, b := range n.bodies {
		if err := link(b, ctx, lk); err != nil {
			return err
		}
	}
	return link(n.els, ctx, lk)
}

// bodyTag is every tag with one body and a construct: its Execute is the
// construct's run.
type bodyTag struct {
	idx  int
	body *pongo2.NodeWrapper
	els  *pongo2.NodeWrapper // for loops: the else body
	d    construct
}

// construct is a compiled statement with a body.
type construct interface {
	run(st *state, n *bodyTag) *pongo2.Error
}

func (n *bodyTag) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	st, ok := w.(*state)
	if !ok {
		lk := w.(*linker)
		n.d = lk.nodes[n.idx].(construct)
		if err := link(n.body, ctx, lk); err != nil {
			return err
		}
		return link(n.els, ctx, lk)
	}
	return n.d.run(st, n)
}

// leafTag is every tag without a body (set, break, continue, image).
type leafTag struct {
	idx int
	d   leaf
}

type leaf interface{ run(st *state) *pongo2.Error }

func (n *leafTag) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	st, ok := w.(*state)
	if !ok {
		n.d = w.(*linker).nodes[n.idx].(leaf)
		return nil
	}
	return n.d.run(st)
}

type breakDef struct{}

func (breakDef) run(*state) *pongo2.Error { return errBreak }

type continueDef struct{}

func (continueDef) run(*state) *pongo2.Error { return errContinue }

// The tag names pongo2 sees. Bodies end at the matching end tag; the
// middle tags (elif, else) carry no number.
const (
	tagRoot     = "pk_root"
	tagPrint    = "pk_print"
	tagText     = "pk_text"
	tagIf       = "pk_if"
	tagElif     = "pk_elif"
	tagElse     = "pk_else"
	tagEndIf    = "pk_endif"
	tagBody     = "pk_body"
	tagBodyElse = "pk_bodyelse"
	tagEndBody  = "pk_endbody"
	tagLeaf     = "pk_leaf"
	tagBlocks   = "pk_blocks"
	tagNext     = "pk_next"
	tagEndBlock = "pk_endblocks"
)

// multiTag is a tag with several bodies: a block site and its
// definitions, most derived first.
type multiTag struct {
	idx    int
	bodies []*pongo2.NodeWrapper
	d      multi
}

type multi interface {
	run(st *state, n *multiTag) *pongo2.Error
}

func (n *multiTag) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	st, ok := w.(*state)
	if !ok {
		lk := w.(*linker)
		n.d = lk.nodes[n.idx].(multi)
		for _, b := range n.bodies {
			if err := link(b, ctx, lk); err != nil {
				return err
			}
		}
		return nil
	}
	return n.d.run(st, n)
}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(pongo2.RegisterTag(tagRoot, func(doc *pongo2.Parser, _ *pongo2.Token, _ *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		body, _, err := doc.WrapUntilTag("end" + tagRoot)
		if err != nil {
			return nil, err
		}
		return &rootTag{body: body}, nil
	}))
	must(pongo2.RegisterTag(tagPrint, func(_ *pongo2.Parser, _ *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		i, err := tagIndex(args)
		return &printTag{idx: i}, err
	}))
	must(pongo2.RegisterTag(tagText, func(_ *pongo2.Parser, _ *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		i, err := tagIndex(args)
		return &textTag{idx: i}, err
	}))
	must(pongo2.RegisterTag(tagLeaf, func(_ *pongo2.Parser, _ *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		i, err := tagIndex(args)
		return &leafTag{idx: i}, err
	}))
	must(pongo2.RegisterTag(tagIf, func(doc *pongo2.Parser, _ *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		i, err := tagIndex(args)
		if err != nil {
			return nil, err
		}
		n := &ifTag{idx: i}
		for {
			body, _, err := doc.WrapUntilTag(tagElif, tagElse, tagEndIf)
			if err != nil {
				return nil, err
			}
			n.bodies = append(n.bodies, body)
			switch body.Endtag {
			case tagElif:
				continue
			case tagElse:
				if n.els, _, err = doc.WrapUntilTag(tagEndIf); err != nil {
					return nil, err
				}
			}
			return n, nil
		}
	}))
	must(pongo2.RegisterTag(tagBlocks, func(doc *pongo2.Parser, _ *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		i, err := tagIndex(args)
		if err != nil {
			return nil, err
		}
		n := &multiTag{idx: i}
		for {
			body, _, err := doc.WrapUntilTag(tagNext, tagEndBlock)
			if err != nil {
				return nil, err
			}
			n.bodies = append(n.bodies, body)
			if body.Endtag == tagEndBlock {
				return n, nil
			}
		}
	}))
	must(pongo2.RegisterTag(tagBody, func(doc *pongo2.Parser, _ *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		i, err := tagIndex(args)
		if err != nil {
			return nil, err
		}
		n := &bodyTag{idx: i}
		if n.body, _, err = doc.WrapUntilTag(tagBodyElse, tagEndBody); err != nil {
			return nil, err
		}
		if n.body.Endtag == tagBodyElse {
			if n.els, _, err = doc.WrapUntilTag(tagEndBody); err != nil {
				return nil, err
			}
		}
		return n, nil
	}))
}

// newPongoSet makes a fresh pongo2 set for one load: compiling into a set
// while it renders races in pongo2 (upstream #322). Every tag of pongo2's
// own is banned in it: translated templates use none, and text is never
// passed to pongo2 as anything but text, so none could be reached anyway.
func newPongoSet() *pongo2.TemplateSet {
	set := pongo2.NewSet("promptkit", denyLoader{})
	for _, t := range []string{"autoescape", "block", "comment", "cycle", "extends", "filter", "firstof", "for",
		"if", "ifchanged", "ifequal", "ifnotequal", "import", "include", "lorem", "macro", "now", "set",
		"spaceless", "ssi", "templatetag", "widthratio", "with"} {
		_ = set.BanTag(t)
	}
	return set
}

// denyLoader refuses every file: the front end reads files itself, through
// the set's fs.FS, so pongo2 never needs to.
type denyLoader struct{}

func (denyLoader) Abs(base, name string) string { return name }
func (denyLoader) Get(path string) (io.Reader, error) {
	return nil, fmt.Errorf("promptkit: pongo2 may not read files (%q)", path)
}
