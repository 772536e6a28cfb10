package jinja

import (
	"cmp"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Tree is one parsed template file.
type Tree struct {
	Source *Source
	Root   []Node
}

// The parser follows Jinja's own (jinja2/parser.py) rule by rule, so the
// same source makes the same tree: precedence, chained comparisons,
// implicit tuples, where filters and tests bind. It stops a statement at
// its first syntax error, records it, skips to the tag's end and goes on,
// so one load reports the problems of every tag, not just the first.

// Limits of nesting: the parser, the checks and the runtime recurse once
// per level, so an unbounded depth could exhaust the goroutine stack.
const (
	MaxBlockDepth = 64 // statements inside statements
	MaxExprDepth  = 64 // parentheses, operators, filters, calls inside one expression
)

// Parse parses one template file. The source is normalized first
// (Normalize). A file with problems returns the tree parsed so far and an
// *ErrorList holding every problem, each with its line and column.
func Parse(name, src string, opt Options) (*Tree, error) {
	s := NewSource(name, Normalize(src, opt.KeepTrailingNewline))
	t := &Tree{Source: s}
	items, errs := lex(s.Text, opt)
	if items == nil {
		return t, errs.located(s)
	}
	p := &parser{items: items}
	t.Root = p.parseTemplate()
	if errs = append(errs, p.errs...); len(errs) > 0 {
		// In source order: an unclosed block is found at the end but
		// reported where it opened.
		slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Pos, b.Pos) })
		return t, errs.located(s)
	}
	return t, nil
}

type parser struct {
	items []item
	i     int
	tag   string // the statement tag being parsed
	errs  ErrorList
	depth int // statements being parsed, the template itself included
	expr  int // expression nesting in the current tag
	// colonOK is set while parsing a dict key or a slice bound, where a
	// ":" after a filter ends the expression instead of being Django's
	// filter argument.
	colonOK bool
	open    []string        // the block tags around the current tag, outermost first
	crossed map[int]bool    // end tags (their "{%" item) of crossed blocks, already reported
	unknown map[string]bool // unknown tags reported, whose end tags are not reported again
	gaveUp  bool            // the rest of the source was skipped (too deep): blocks are not closed
}

// failure unwinds one statement's parse to the statement loop. A nil err
// is a tag the lexer could not read, which the lexer has reported.
type failure struct{ err *Error }

func (p *parser) fail(e *Error) { panic(failure{e}) }

// record records the problem of a failure.
// A problem the parser finds in a tag the lexer could not read is not
// recorded: it is the lexer's problem, which it has reported.
func (p *parser) record(fl failure) {
	if fl.err != nil && !p.lexErrorAhead() {
		p.errs = append(p.errs, fl.err)
	}
}

// lexErrorAhead reports whether the rest of the current tag holds an
// itemError.
func (p *parser) lexErrorAhead() bool {
	for _, it := range p.items[p.i:] {
		switch it.typ {
		case itemError:
			return true
		case itemBlockEnd, itemVarEnd, itemEOF:
			return false
		}
	}
	return false
}

func (p *parser) peek() item { return p.items[p.i] }

func (p *parser) peekAt(k int) item {
	if p.i+k < len(p.items) {
		return p.items[p.i+k]
	}
	return p.items[len(p.items)-1]
}

// next consumes an item; a tag the lexer could not read ends the parse
// of the statement.
func (p *parser) next() item {
	it := p.advance()
	if it.typ == itemError {
		panic(failure{})
	}
	return it
}

// advance consumes an item, whatever it is.
func (p *parser) advance() item {
	it := p.items[p.i]
	if it.typ != itemEOF {
		p.i++
	}
	return it
}

func (p *parser) isOp(op string) bool {
	it := p.peek()
	return it.typ == itemOp && it.val == op
}

func (p *parser) isName(name string) bool {
	it := p.peek()
	return it.typ == itemName && it.val == name
}

func (p *parser) skipOp(op string) bool {
	if p.isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *parser) skipName(name string) bool {
	if p.isName(name) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectOp(op string) item {
	it := p.next()
	if it.typ != itemOp || it.val != op {
		p.fail(errExpected(it.pos, quote(op), it))
	}
	return it
}

func (p *parser) expectName(what string) item {
	it := p.next()
	if it.typ != itemName {
		p.fail(errExpected(it.pos, what, it))
	}
	return it
}

// expectBlockEnd ends a statement tag.
func (p *parser) expectBlockEnd() {
	it := p.next()
	if it.typ != itemBlockEnd {
		p.fail(errExpected(it.pos, `"%}"`, it))
	}
}

// skipTag skips to just after the end of the current tag (after an error).
// The error may have been found at the tag's end, already consumed.
func (p *parser) skipTag() {
	if p.i > 0 {
		if t := p.items[p.i-1].typ; t == itemBlockEnd || t == itemVarEnd {
			return
		}
	}
	for {
		it := p.peek()
		switch it.typ {
		case itemEOF:
			return
		case itemBlockEnd, itemVarEnd:
			p.advance()
			return
		}
		p.advance()
	}
}

func (p *parser) parseTemplate() []Node {
	nodes, end := p.parseBody()
	for end != nil {
		// An end tag nothing opened: report it and go on after it.
		if !p.skipReported(end) {
			p.errs = append(p.errs, errUnexpectedEndTag(end.pos, end.val, ""))
			p.skipTag()
		}
		var more []Node
		more, end = p.parseBody()
		nodes = append(nodes, more...)
	}
	return nodes
}

// endTag is the end or middle tag that stopped a body: its name and
// position, with the tag's "{%" consumed and its name not.
type endTag struct {
	pos Pos
	val string
}

// parseBody parses nodes until an end or middle tag (endfor, else, …: the
// caller decides whether it is the one it wants), returned unconsumed but
// for its "{%". At the end of the source the tag is nil.
func (p *parser) parseBody() ([]Node, *endTag) {
	p.depth++
	defer func() { p.depth-- }()
	var nodes []Node
	for {
		it := p.peek()
		switch it.typ {
		case itemEOF:
			return nodes, nil
		case itemText:
			p.next()
			nodes = append(nodes, &TextNode{Pos: it.pos, Text: it.val})
		case itemVarBegin:
			if n := p.statement(p.parseOutput); n != nil {
				nodes = append(nodes, n)
			}
		case itemBlockBegin:
			name := p.peekAt(1)
			if name.typ == itemName && isEndLike(name.val) {
				p.next()
				return nodes, &endTag{pos: it.pos, val: name.val}
			}
			if p.depth > MaxBlockDepth {
				p.errs = append(p.errs, errBlockDepth(it.pos))
				p.skipToEnd()
				p.gaveUp = true
				return nodes, nil
			}
			if n := p.statement(p.parseStatement); n != nil {
				nodes = append(nodes, n)
			}
		default:
			p.advance()
		}
	}
}

// skipToEnd gives up on the rest of the source.
func (p *parser) skipToEnd() {
	for p.peek().typ != itemEOF {
		p.advance()
	}
}

// isMiddle reports whether word divides the body of the block that end
// closes.
func isMiddle(word, end string) bool {
	return (word == "else" && (end == "endif" || end == "endfor")) || (word == "elif" && end == "endif")
}

// isEndLike reports tags that end or divide a body.
func isEndLike(name string) bool {
	switch name {
	case "elif", "else":
		return true
	}
	return strings.HasPrefix(name, "end")
}

// statement parses one tag with f, turning a syntax error into a recorded
// problem: the rest of the tag is skipped, and f's block (if the error
// came after its body began) has consumed what it could.
func (p *parser) statement(f func() Node) (n Node) {
	defer func() {
		if r := recover(); r != nil {
			fl, ok := r.(failure)
			if !ok {
				panic(r)
			}
			p.record(fl)
			p.skipTag()
			n = nil
			// A block tag whose header failed still owns its body: parse
			// it, so its end tag is not reported as well.
			if end, ok := blockEnds[p.tag]; ok && p.tag != "" {
				p.tag = ""
				p.skipBlock(end)
			}
		}
	}()
	p.expr, p.tag, p.colonOK = 0, "", false
	return f()
}

// blockEnds maps each block tag to its end tag.
var blockEnds = map[string]string{
	"if": "endif", "for": "endfor", "with": "endwith", "block": "endblock", "macro": "endmacro",
	"call": "endcall", "filter": "endfilter", "autoescape": "endautoescape", "chat": "endchat",
	"generation": "endgeneration", "set": "endset", "shrink": "endshrink",
}

// skipBlock parses and drops a body up to end, middle tags included.
func (p *parser) skipBlock(end string) {
	for {
		_, e := p.parseBody()
		if e == nil {
			return
		}
		if e.val != end && !isMiddle(e.val, end) && p.closesOuter(e.val, p.open) {
			p.i-- // the end of a block around this one: leave it to that block
			return
		}
		p.next()
		p.skipTag()
		if e.val == end {
			return
		}
	}
}

func (p *parser) parseOutput() Node {
	open := p.next()
	x := p.parseTuple(true, false, nil)
	it := p.next()
	if it.typ != itemVarEnd {
		p.fail(errExpected(it.pos, `"}}"`, it))
	}
	return &OutputNode{Pos: open.pos, X: x}
}

// parsePrint parses the expressions of {% print a, b %}, which Jinja
// prints one after the other (not as a tuple): a ~ b.
func (p *parser) parsePrint() Expr {
	x := p.parseExpression(true)
	if !p.isOp(",") {
		return x
	}
	c := &ConcatExpr{Pos: x.Position(), Items: []Expr{x}}
	for p.skipOp(",") {
		c.Items = append(c.Items, p.parseExpression(true))
	}
	return c
}

func (p *parser) parseStatement() Node {
	open := p.next()
	name := p.next()
	if name.typ != itemName {
		p.fail(errExpectedTagName(name.pos, name))
	}
	p.tag = name.val
	if name.val == "set" && !p.setIsBlock() {
		p.tag = ""
	}
	if _, ok := blockEnds[p.tag]; ok {
		p.open = append(p.open, p.tag)
		defer func() { p.open = p.open[:len(p.open)-1] }()
	}
	switch name.val {
	case "if":
		return p.parseIf(open.pos)
	case "for":
		return p.parseFor(open.pos)
	case "set":
		return p.parseSet(open.pos)
	case "with":
		return p.parseWith(open.pos)
	case "include":
		return p.parseInclude(open.pos)
	case "import":
		return p.parseImport(open.pos)
	case "from":
		return p.parseFrom(open.pos)
	case "extends":
		n := &ExtendsNode{Pos: open.pos, Template: p.parseExpression(true)}
		p.expectBlockEnd()
		return n
	case "block":
		return p.parseBlock(open.pos)
	case "macro":
		return p.parseMacro(open.pos)
	case "call":
		return p.parseCallBlock(open.pos)
	case "filter":
		return p.parseFilterBlock(open.pos)
	case "autoescape":
		n := &AutoescapeNode{Pos: open.pos, X: p.parseExpression(true)}
		p.expectBlockEnd()
		n.Body = p.parseBlockBody(open.pos, "autoescape", "endautoescape")
		return n
	case "print":
		n := &OutputNode{Pos: open.pos, X: p.parsePrint()}
		p.expectBlockEnd()
		return n
	case "break":
		p.expectBlockEnd()
		return &BreakNode{Pos: open.pos}
	case "continue":
		p.expectBlockEnd()
		return &ContinueNode{Pos: open.pos}
	case "chat":
		return p.parseChat(open.pos)
	case "shrink":
		return p.parseShrink(open.pos)
	case "generation":
		p.expectBlockEnd()
		return &GenerationNode{Pos: open.pos, Body: p.parseBlockBody(open.pos, "generation", "endgeneration")}
	}
	if p.unknown == nil {
		p.unknown = map[string]bool{}
	}
	p.unknown[name.val] = true // {% endtrans %} is not a second problem
	p.fail(errUnknownTag(name.pos, name.val))
	return nil
}

// parseBlockBody parses the body of a block tag up to its end tag, which
// it consumes. A body that is never closed, or closed by another tag, is
// reported at the opening tag.
func (p *parser) parseBlockBody(open Pos, tag, end string) []Node {
	nodes, e := p.blockBody(tag, end)
	switch {
	case e == nil:
		p.neverClosed(open, tag, end)
		return nodes
	case e.val != end:
		p.mismatch(open, tag, end, e)
		return nodes
	}
	p.next() // the end tag's name
	p.endTagArgs(e, end)
	return orEmpty(nodes)
}

// endTagArgs checks the rest of an end tag ("endblock name" may repeat
// the block's name; nothing else may follow).
func (p *parser) endTagArgs(e *endTag, end string) {
	defer func() {
		if r := recover(); r != nil {
			fl, ok := r.(failure)
			if !ok {
				panic(r)
			}
			p.record(fl)
			p.skipTag()
		}
	}()
	p.expectBlockEnd()
}

func orEmpty(nodes []Node) []Node {
	if nodes == nil {
		return []Node{}
	}
	return nodes
}

func (p *parser) parseIf(open Pos) Node {
	n := &IfNode{Pos: open}
	cond := p.parseTuple(false, false, nil)
	p.expectBlockEnd()
	brPos := open
	for {
		body, e := p.blockBody("if", "elif", "else", "endif")
		n.Branches = append(n.Branches, &Branch{Pos: brPos, Cond: cond, Body: orEmpty(body)})
		if e == nil {
			p.neverClosed(open, "if", "endif")
			return n
		}
		switch e.val {
		case "elif":
			p.next()
			brPos = e.pos
			cond = p.recoverExpr(func() Expr { c := p.parseTuple(false, false, nil); p.expectBlockEnd(); return c })
			continue
		case "else":
			p.next()
			p.endTagArgs(e, "else")
			els, e2 := p.blockBody("if", "endif")
			n.Else = orEmpty(els)
			p.closeWith(open, "if", "endif", e2)
			return n
		case "endif":
			p.next()
			p.endTagArgs(e, "endif")
			return n
		}
		p.mismatch(open, "if", "endif", e)
		return n
	}
}

// recoverExpr parses a middle tag's expression (elif); an error in it is
// recorded and the body still parsed.
func (p *parser) recoverExpr(f func() Expr) (x Expr) {
	defer func() {
		if r := recover(); r != nil {
			fl, ok := r.(failure)
			if !ok {
				panic(r)
			}
			p.record(fl)
			p.skipTag()
			x = &ConstExpr{Pos: p.peek().pos, Value: false} // a placeholder: the branch is not run
			if fl.err != nil {
				x.(*ConstExpr).Pos = fl.err.Pos
			}
		}
	}()
	p.expr = 0
	return f()
}

// blockBody parses the body of block tag up to one of the end or middle
// tags it accepts, or one that belongs to a block around it, which it
// returns unconsumed (nil at the end of the source). A tag that belongs
// to no open block is reported and skipped, and the body goes on.
func (p *parser) blockBody(tag string, accept ...string) ([]Node, *endTag) {
	nodes, e := p.parseBody()
	for e != nil && !slices.Contains(accept, e.val) && !p.closesOuter(e.val, p.open[:len(p.open)-1]) {
		if !p.skipReported(e) {
			p.errs = append(p.errs, errUnexpectedEndTag(e.pos, e.val, tag))
			p.skipTag()
		}
		var more []Node
		more, e = p.parseBody()
		nodes = append(nodes, more...)
	}
	return nodes, e
}

// mismatch reports the end or middle tag e that stopped the body of a
// block tag but is not its end. When e belongs to a block around it (the
// block in between was never closed, as in {% if %}{% for %}{% endif %}),
// the unclosed block is reported where it opened and e is left to the
// block it belongs to; otherwise e is reported and skipped.
//
// Crossed tags, as in {% if %}{% chat %}{% endif %}{% endchat %}, are one
// mistake: e is reported, both blocks end there, and the end tag after e
// is skipped without a second report.
func (p *parser) mismatch(open Pos, tag, end string, e *endTag) {
	if p.closesOuter(e.val, p.open[:len(p.open)-1]) {
		if j, ok := p.nextTagIs(end); ok {
			p.errs = append(p.errs, errUnexpectedEndTag(e.pos, e.val, tag))
			if p.crossed == nil {
				p.crossed = map[int]bool{}
			}
			p.crossed[j] = true
		} else {
			p.neverClosed(open, tag, end)
		}
		p.i-- // back to the tag's "{%"
		return
	}
	p.errs = append(p.errs, errUnexpectedEndTag(e.pos, e.val, tag))
	p.skipTag()
}

// nextTagIs reports whether the tag after the current one (past
// whitespace) is {% name %}, and the index of its "{%".
func (p *parser) nextTagIs(name string) (int, bool) {
	j := p.i
	for j < len(p.items) && p.items[j].typ != itemBlockEnd && p.items[j].typ != itemEOF {
		j++
	}
	j++
	for j < len(p.items) && p.items[j].typ == itemText && strings.TrimSpace(p.items[j].val) == "" {
		j++
	}
	ok := j+1 < len(p.items) && p.items[j].typ == itemBlockBegin && p.items[j+1].typ == itemName && p.items[j+1].val == name
	return j, ok
}

// skipReported skips the end tag e, whose "{%" was just consumed, if it
// ends a crossed block or an unknown tag, both already reported.
func (p *parser) skipReported(e *endTag) bool {
	if p.crossed[p.i-1] || (strings.HasPrefix(e.val, "end") && p.unknown[e.val[3:]]) {
		p.skipTag()
		return true
	}
	return false
}

// neverClosed reports a block tag that is never closed, unless the parser
// gave up on the rest of the source.
func (p *parser) neverClosed(open Pos, tag, end string) {
	if !p.gaveUp {
		p.errs = append(p.errs, errNeverClosed(open, tag, end))
	}
}

// closesOuter reports whether word ends or divides one of the blocks.
func (p *parser) closesOuter(word string, blocks []string) bool {
	for _, tag := range blocks {
		if blockEnds[tag] == word || (word == "else" && (tag == "if" || tag == "for")) || (word == "elif" && tag == "if") {
			return true
		}
	}
	return false
}

// closeWith consumes the end tag e that must be end, or reports it.
func (p *parser) closeWith(open Pos, tag, end string, e *endTag) {
	switch {
	case e == nil:
		p.neverClosed(open, tag, end)
	case e.val != end:
		p.mismatch(open, tag, end, e)
	default:
		p.next()
		p.endTagArgs(e, end)
	}
}

func (p *parser) parseFor(open Pos) Node {
	n := &ForNode{Pos: open}
	n.Target = p.parseAssignTarget(false, "in")
	it := p.next()
	if it.typ != itemName || it.val != "in" {
		p.fail(errExpected(it.pos, `"in"`, it))
	}
	n.Iter = p.parseTuple(false, false, []string{"recursive", "shrink"})
	if p.skipName("if") {
		n.Cond = p.parseExpression(true)
	}
	if at := p.peek(); p.skipName("shrink") {
		n.Mark = p.parseMark(at.pos, "for", true)
	}
	n.Recursive = p.skipName("recursive")
	p.expectBlockEnd()
	body, e := p.blockBody("for", "else", "endfor")
	n.Body = orEmpty(body)
	if e != nil && e.val == "else" {
		p.next()
		p.endTagArgs(e, "else")
		els, e2 := p.blockBody("for", "endfor")
		n.Else = orEmpty(els)
		p.closeWith(open, "for", "endfor", e2)
		return n
	}
	p.closeWith(open, "for", "endfor", e)
	return n
}

// parseAssignTarget parses the target of for, set or with: a name, a
// tuple of targets (with or without parentheses) or, for set, a
// namespace attribute ns.attr. A reserved word is refused by name.
func (p *parser) parseAssignTarget(withNamespace bool, stop string) Expr {
	first := p.peek()
	items := []Expr{p.parseTargetItem(withNamespace)}
	comma := false
	for p.skipOp(",") {
		comma = true
		// A trailing comma, as Jinja 3.1's parser allows it: before a
		// ")" or the end of the tag; not before "in" or "=" ({% for a,
		// in x %} and {% set a, = x %} are errors in Jinja).
		if p.isOp(")") || p.peek().typ == itemBlockEnd {
			break
		}
		// Outside parentheses, as in Jinja, a comma needs a target after
		// it: "for x, in" and "set x, =" are refused.
		items = append(items, p.parseTargetItem(withNamespace))
	}
	if !comma {
		return items[0]
	}
	return &TupleExpr{Pos: first.pos, Items: items}
}

func (p *parser) parseTargetItem(withNamespace bool) Expr {
	it := p.peek()
	if it.typ == itemOp && it.val == "(" {
		p.next()
		t := p.parseAssignTarget(false, "")
		p.expectOp(")")
		return t
	}
	if it.typ != itemName || isKeyword(it.val) {
		p.fail(errBadTarget(it.pos, it))
	}
	p.next()
	if withNamespace && p.isOp(".") {
		p.next()
		attr := p.expectName("an attribute name")
		return &AttrExpr{Pos: it.pos, X: &NameExpr{Pos: it.pos, Name: it.val}, Name: attr.val, NamePos: attr.pos}
	}
	return &NameExpr{Pos: it.pos, Name: it.val}
}

// setIsBlock looks ahead: a set tag without "=" at its top level is a
// block {% set x %}…{% endset %}.
func (p *parser) setIsBlock() bool {
	depth := 0
	for k := p.i; k < len(p.items); k++ {
		it := p.items[k]
		switch {
		case it.typ == itemBlockEnd || it.typ == itemEOF:
			return true
		case it.typ == itemOp && (it.val == "(" || it.val == "[" || it.val == "{"):
			depth++
		case it.typ == itemOp && (it.val == ")" || it.val == "]" || it.val == "}"):
			depth--
		case it.typ == itemOp && it.val == "=" && depth == 0:
			return false
		}
	}
	return true
}

func (p *parser) parseSet(open Pos) Node {
	target := p.parseAssignTarget(true, "")
	if p.skipOp("=") {
		n := &SetNode{Pos: open, Target: target, Value: p.parseTuple(true, false, nil)}
		p.expectBlockEnd()
		return n
	}
	n := &SetBlockNode{Pos: open, Target: target}
	for p.skipOp("|") {
		n.Filters = append(n.Filters, p.parseFilter(nil))
	}
	p.expectBlockEnd()
	n.Body = p.parseBlockBody(open, "set", "endset")
	return n
}

func (p *parser) parseWith(open Pos) Node {
	n := &WithNode{Pos: open}
	for p.peek().typ != itemBlockEnd {
		if len(n.Targets) > 0 {
			p.expectOp(",")
		}
		n.Targets = append(n.Targets, p.parseAssignTarget(false, ""))
		p.expectOp("=")
		n.Values = append(n.Values, p.parseExpression(true))
	}
	p.expectBlockEnd()
	n.Body = p.parseBlockBody(open, "with", "endwith")
	return n
}

// parseContext parses an optional "with context" / "without context".
func (p *parser) parseContext(def bool) bool {
	if p.isName("with") || p.isName("without") {
		if nx := p.peekAt(1); nx.typ == itemName && nx.val == "context" {
			with := p.next().val == "with"
			p.next()
			return with
		}
	}
	return def
}

func (p *parser) parseInclude(open Pos) Node {
	n := &IncludeNode{Pos: open, Template: p.parseExpression(true)}
	if p.isName("ignore") && p.peekAt(1).typ == itemName && p.peekAt(1).val == "missing" {
		p.next()
		p.next()
		n.IgnoreMissing = true
	}
	n.WithContext = p.parseContext(true)
	p.expectBlockEnd()
	return n
}

func (p *parser) parseImport(open Pos) Node {
	n := &ImportNode{Pos: open, Template: p.parseExpression(true)}
	it := p.next()
	if it.typ != itemName || it.val != "as" {
		p.fail(errExpected(it.pos, `"as"`, it))
	}
	n.Target = p.importName().val
	n.WithContext = p.parseContext(false)
	p.expectBlockEnd()
	return n
}

func (p *parser) importName() item {
	it := p.next()
	if it.typ != itemName || isKeyword(it.val) {
		p.fail(errBadTarget(it.pos, it))
	}
	return it
}

func (p *parser) parseFrom(open Pos) Node {
	n := &FromImportNode{Pos: open, Template: p.parseExpression(true)}
	it := p.next()
	if it.typ != itemName || it.val != "import" {
		p.fail(errExpected(it.pos, `"import"`, it))
	}
	for {
		if len(n.Names) > 0 {
			if !p.skipOp(",") {
				break
			}
		}
		if (p.isName("with") || p.isName("without")) && p.peekAt(1).typ == itemName && p.peekAt(1).val == "context" {
			break
		}
		name := p.importName()
		if strings.HasPrefix(name.val, "_") {
			p.fail(errImportUnderscore(name.pos, name.val))
		}
		in := ImportName{Pos: name.pos, Name: name.val}
		if p.skipName("as") {
			in.Alias = p.importName().val
		}
		n.Names = append(n.Names, in)
	}
	n.WithContext = p.parseContext(false)
	p.expectBlockEnd()
	return n
}

func (p *parser) parseBlock(open Pos) Node {
	name := p.expectName("a block name")
	n := &BlockNode{Pos: open, Name: name.val}
	n.Scoped = p.skipName("scoped")
	n.Required = p.skipName("required")
	p.expectBlockEnd()
	body, e := p.blockBody("block", "endblock")
	n.Body = orEmpty(body)
	switch {
	case e == nil:
		p.neverClosed(open, "block", "endblock")
	case e.val != "endblock":
		p.mismatch(open, "block", "endblock", e)
	default:
		p.next()
		func() {
			defer func() {
				if r := recover(); r != nil {
					fl, ok := r.(failure)
					if !ok {
						panic(r)
					}
					p.record(fl)
					p.skipTag()
				}
			}()
			if it := p.peek(); it.typ == itemName {
				p.next()
				if it.val != n.Name {
					p.fail(errEndblockName(it.pos, it.val, n.Name))
				}
			}
			p.expectBlockEnd()
		}()
	}
	if n.Required {
		for _, c := range n.Body {
			if t, ok := c.(*TextNode); !ok || strings.TrimSpace(t.Text) != "" {
				p.errs = append(p.errs, errRequiredBlockBody(open, n.Name))
				break
			}
		}
	}
	return n
}

func (p *parser) parseSignature() []*Param {
	p.expectOp("(")
	var params []*Param
	for !p.isOp(")") {
		if len(params) > 0 {
			p.expectOp(",") // Jinja allows no trailing comma here
		}
		if it := p.peek(); it.typ != itemName {
			p.next()
			p.fail(errExpected(it.pos, "a parameter name", it))
		}
		name := p.importName()
		prm := &Param{Pos: name.pos, Name: name.val}
		if p.skipOp("=") {
			prm.Default = p.parseExpression(true)
		} else if len(params) > 0 && params[len(params)-1].Default != nil {
			p.fail(errNonDefaultAfterDefault(name.pos, name.val))
		}
		params = append(params, prm)
	}
	p.expectOp(")")
	return params
}

func (p *parser) parseMacro(open Pos) Node {
	name := p.importName()
	n := &MacroNode{Pos: open, Name: name.val}
	n.Params = p.parseSignature()
	p.expectBlockEnd()
	n.Body = p.parseBlockBody(open, "macro", "endmacro")
	return n
}

func (p *parser) parseCallBlock(open Pos) Node {
	n := &CallBlockNode{Pos: open}
	if p.isOp("(") {
		n.Params = p.parseSignature()
	}
	x := p.parseExpression(true)
	call, ok := x.(*CallExpr)
	if !ok {
		p.fail(errCallBlockNeedsCall(x.Position()))
	}
	n.Call = call
	p.expectBlockEnd()
	n.Body = p.parseBlockBody(open, "call", "endcall")
	return n
}

func (p *parser) parseFilterBlock(open Pos) Node {
	n := &FilterBlockNode{Pos: open}
	n.Filters = append(n.Filters, p.parseFilter(nil))
	for p.skipOp("|") {
		n.Filters = append(n.Filters, p.parseFilter(nil))
	}
	p.expectBlockEnd()
	n.Body = p.parseBlockBody(open, "filter", "endfilter")
	return n
}

func (p *parser) parseChat(open Pos) Node {
	it := p.next()
	if it.typ != itemName || it.val != "role" || !p.isOp("=") {
		p.fail(errChatRole(it.pos, it))
	}
	p.next()
	n := &ChatNode{Pos: open, Role: p.parseExpression(true)}
	if at := p.peek(); p.isName("priority") {
		n.Mark = p.parseMark(at.pos, "chat", false)
	}
	if at := p.peek(); p.isName("allow") {
		p.next()
		p.expectOp("=")
		n.AllowPos = at.pos
		list, ok := p.parseExpression(false).(*ListExpr)
		if !ok || len(list.Items) == 0 {
			p.fail(errChatAllowList(at.pos))
		}
		for _, it := range list.Items {
			c, ok := it.(*ConstExpr)
			if !ok {
				p.fail(errChatAllowList(it.Position()))
			}
			s, ok := c.Value.(string)
			if !ok {
				p.fail(errChatAllowList(it.Position()))
			}
			n.Allow = append(n.Allow, s)
		}
	}
	if at := p.peek(); n.Mark == nil && p.isName("priority") {
		n.Mark = p.parseMark(at.pos, "chat", false)
	}
	p.expectBlockEnd()
	n.Body = p.parseBlockBody(open, "chat", "endchat")
	return n
}

// parseShrink parses {% shrink priority=N %}…{% endshrink %}.
func (p *parser) parseShrink(open Pos) Node {
	n := &ShrinkNode{Pos: open, Mark: p.parseMark(p.peek().pos, "shrink", false)}
	p.expectBlockEnd()
	n.Body = p.parseBlockBody(open, "shrink", "endshrink")
	return n
}

// parseMark parses a budget mark's keywords, in any order: priority=N,
// and for a loop's items drop="end"|"start" and keep=N. Each takes a
// literal, so the order of cuts is known at load.
func (p *parser) parseMark(at Pos, tag string, items bool) *Mark {
	m := &Mark{Pos: at}
	seen := map[string]bool{}
	for {
		it := p.peek()
		if it.typ != itemName || (it.val != "priority" && (!items || it.val != "drop" && it.val != "keep")) {
			break
		}
		p.next()
		if seen[it.val] {
			p.fail(errMarkTwice(it.pos, it.val))
		}
		seen[it.val] = true
		p.expectOp("=")
		x := p.parseUnary(false)
		switch it.val {
		case "priority", "keep":
			v, ok := markInt(x)
			if !ok || it.val == "keep" && v < 0 {
				p.fail(errMarkInt(x.Position(), tag, it.val))
			}
			if it.val == "priority" {
				m.Priority = v
			} else {
				m.Keep = v
			}
		case "drop":
			s := ""
			if c, ok := x.(*ConstExpr); ok {
				s, _ = c.Value.(string)
			}
			if s != "end" && s != "start" {
				p.fail(errMarkDrop(x.Position()))
			}
			m.Drop = s
		}
	}
	if !seen["priority"] {
		p.fail(errMarkPriority(p.peek().pos, tag, p.peek()))
	}
	if items && m.Drop == "" {
		m.Drop = "end"
	}
	return m
}

// markInt reads an integer literal, negative ones too.
func markInt(x Expr) (int64, bool) {
	neg := false
	if u, ok := x.(*UnaryExpr); ok && (u.Op == "-" || u.Op == "+") {
		neg, x = u.Op == "-", u.X
	}
	c, ok := x.(*ConstExpr)
	if !ok {
		return 0, false
	}
	v, ok := c.Value.(int64)
	if neg {
		v = -v
	}
	return v, ok
}

// Expressions, by Jinja's precedence (lowest first): conditional, or, and,
// not, comparison, + -, ~, * / // %, **, unary - +, then postfixes
// (attribute, subscript, call), filters and tests.

// deeper enters one level of expression nesting.
func (p *parser) deeper() {
	p.expr++
	if p.expr > MaxExprDepth {
		p.fail(errExprDepth(p.peek().pos))
	}
}

// parseTuple parses an expression or a tuple without parentheses (a, b),
// as Jinja's parse_tuple: simplified allows only primaries (for the
// iterable of for); extraEnd names words that end it.
func (p *parser) parseTuple(withCondExpr, simplified bool, extraEnd []string) Expr {
	start := p.peek().pos
	var items []Expr
	trailing := false
	for {
		if len(items) > 0 {
			if !p.skipOp(",") {
				break
			}
			trailing = true
		}
		if p.tupleEnds(extraEnd) {
			break
		}
		trailing = false
		if simplified {
			items = append(items, p.parsePrimaryPostfix())
		} else {
			items = append(items, p.parseExpression(withCondExpr))
		}
	}
	switch {
	case len(items) == 0:
		it := p.peek()
		p.fail(errExpected(it.pos, "an expression", it))
	case len(items) == 1 && !trailing:
		return items[0]
	}
	return &TupleExpr{Pos: start, Items: items}
}

// tupleEnds reports whether the token ends an implicit tuple.
func (p *parser) tupleEnds(extra []string) bool {
	it := p.peek()
	switch it.typ {
	case itemVarEnd, itemBlockEnd, itemEOF:
		return true
	case itemOp:
		return it.val == ")" || it.val == "]" || it.val == "}" || it.val == "=" || it.val == ":"
	case itemName:
		if it.val == "in" {
			return true
		}
		for _, e := range extra {
			if it.val == e {
				return true
			}
		}
	}
	return false
}

func (p *parser) parseExpression(withCondExpr bool) Expr {
	defer p.restore(p.expr)
	p.deeper()
	if !withCondExpr {
		return p.parseOr()
	}
	x := p.parseOr()
	for p.isName("if") {
		p.deeper()
		p.next()
		test := p.parseOr()
		c := &CondExpr{Pos: x.Position(), Test: test, Then: x}
		if p.skipName("else") {
			c.Else = p.parseExpression(true)
		}
		x = c
	}
	return x
}

func (p *parser) restore(depth int) { p.expr = depth }

func (p *parser) parseOr() Expr {
	defer p.restore(p.expr)
	l := p.parseAnd()
	for p.skipName("or") {
		p.deeper()
		l = &BinaryExpr{Pos: l.Position(), Op: "or", L: l, R: p.parseAnd()}
	}
	return l
}

func (p *parser) parseAnd() Expr {
	defer p.restore(p.expr)
	l := p.parseNot()
	for p.skipName("and") {
		p.deeper()
		l = &BinaryExpr{Pos: l.Position(), Op: "and", L: l, R: p.parseNot()}
	}
	return l
}

func (p *parser) parseNot() Expr {
	defer p.restore(p.expr)
	if p.isName("not") {
		t := p.next()
		p.deeper()
		return &UnaryExpr{Pos: t.pos, Op: "not", X: p.parseNot()}
	}
	return p.parseCompare()
}

func (p *parser) parseCompare() Expr {
	defer p.restore(p.expr)
	x := p.parseMath1()
	var ops []*CompareOp
	for {
		it := p.peek()
		op := ""
		switch {
		case it.typ == itemOp && (it.val == "==" || it.val == "!=" || it.val == "<" || it.val == "<=" || it.val == ">" || it.val == ">="):
			op = it.val
			p.next()
		case it.typ == itemName && it.val == "in":
			op = "in"
			p.next()
		case it.typ == itemName && it.val == "not" && p.peekAt(1).typ == itemName && p.peekAt(1).val == "in":
			op = "notin"
			p.next()
			p.next()
		}
		if op == "" {
			break
		}
		p.deeper()
		ops = append(ops, &CompareOp{Pos: it.pos, Op: op, Y: p.parseMath1()})
	}
	if ops == nil {
		return x
	}
	return &CompareExpr{Pos: x.Position(), X: x, Ops: ops}
}

func (p *parser) parseMath1() Expr {
	defer p.restore(p.expr)
	l := p.parseConcat()
	for p.isOp("+") || p.isOp("-") {
		op := p.next().val
		p.deeper()
		l = &BinaryExpr{Pos: l.Position(), Op: op, L: l, R: p.parseConcat()}
	}
	return l
}

func (p *parser) parseConcat() Expr {
	defer p.restore(p.expr)
	x := p.parseMath2()
	if !p.isOp("~") {
		return x
	}
	c := &ConcatExpr{Pos: x.Position(), Items: []Expr{x}}
	for p.skipOp("~") {
		p.deeper()
		c.Items = append(c.Items, p.parseMath2())
	}
	return c
}

func (p *parser) parseMath2() Expr {
	defer p.restore(p.expr)
	l := p.parsePow()
	for p.isOp("*") || p.isOp("/") || p.isOp("//") || p.isOp("%") {
		op := p.next().val
		p.deeper()
		l = &BinaryExpr{Pos: l.Position(), Op: op, L: l, R: p.parsePow()}
	}
	return l
}

func (p *parser) parsePow() Expr {
	defer p.restore(p.expr)
	l := p.parseUnary(true)
	for p.skipOp("**") {
		p.deeper()
		l = &BinaryExpr{Pos: l.Position(), Op: "**", L: l, R: p.parseUnary(true)}
	}
	return l
}

func (p *parser) parseUnary(withFilter bool) Expr {
	defer p.restore(p.expr)
	var x Expr
	if p.isOp("-") || p.isOp("+") {
		t := p.next()
		p.deeper()
		x = &UnaryExpr{Pos: t.pos, Op: t.val, X: p.parseUnary(false)}
	} else {
		x = p.parsePrimary()
	}
	x = p.parsePostfix(x)
	if withFilter {
		x = p.parseFilterExpr(x)
	}
	return x
}

// parsePrimaryPostfix is a primary with its postfixes (simplified tuples).
func (p *parser) parsePrimaryPostfix() Expr {
	defer p.restore(p.expr)
	p.deeper()
	return p.parsePostfix(p.parsePrimary())
}

func (p *parser) parsePrimary() Expr {
	it := p.next()
	switch it.typ {
	case itemName:
		switch it.val {
		case "true", "True":
			return &ConstExpr{Pos: it.pos, Value: true}
		case "false", "False":
			return &ConstExpr{Pos: it.pos, Value: false}
		case "none", "None":
			return &ConstExpr{Pos: it.pos, Value: nil}
		}
		if isKeyword(it.val) {
			p.fail(errUnexpected(it.pos, it))
		}
		return &NameExpr{Pos: it.pos, Name: it.val}
	case itemString:
		if p.peek().typ != itemString {
			return &ConstExpr{Pos: it.pos, Value: it.val}
		}
		var b strings.Builder // adjacent literals concatenate
		b.WriteString(it.val)
		for p.peek().typ == itemString {
			b.WriteString(p.next().val)
		}
		return &ConstExpr{Pos: it.pos, Value: b.String()}
	case itemInt:
		return &ConstExpr{Pos: it.pos, Value: p.intValue(it)}
	case itemFloat:
		f, err := strconv.ParseFloat(it.val, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			p.fail(errBadNumber(it.pos, it.val))
		}
		return &ConstExpr{Pos: it.pos, Value: f}
	case itemOp:
		switch it.val {
		case "(":
			// One level per bracket: the expression inside counts it.
			if p.skipOp(")") {
				return &TupleExpr{Pos: it.pos, Items: []Expr{}}
			}
			restore := p.colonEnds(false)
			x := p.parseTuple(true, false, nil)
			restore()
			p.expectOp(")")
			if t, ok := x.(*TupleExpr); ok {
				t.Pos = it.pos
			}
			return x
		case "[":
			l := &ListExpr{Pos: it.pos, Items: []Expr{}}
			for !p.isOp("]") {
				if len(l.Items) > 0 {
					p.expectOp(",")
					if p.isOp("]") {
						break
					}
				}
				l.Items = append(l.Items, p.parseExpression(true))
			}
			p.expectOp("]")
			return l
		case "{":
			d := &DictExpr{Pos: it.pos, Keys: []Expr{}, Values: []Expr{}}
			for !p.isOp("}") {
				if len(d.Keys) > 0 {
					p.expectOp(",")
					if p.isOp("}") {
						break
					}
				}
				d.Keys = append(d.Keys, p.parseBeforeColon())
				p.expectOp(":")
				d.Values = append(d.Values, p.parseExpression(true))
			}
			p.expectOp("}")
			return d
		}
	}
	p.fail(errUnexpected(it.pos, it))
	return nil
}

// intValue converts an integer literal, in any base; beyond 64 bits it is
// exact as a *big.Int.
func (p *parser) intValue(it item) any {
	s, base := it.val, 10
	if len(s) > 1 && s[0] == '0' {
		switch s[1] | 0x20 {
		case 'b':
			s, base = s[2:], 2
		case 'o':
			s, base = s[2:], 8
		case 'x':
			s, base = s[2:], 16
		}
	}
	if n, err := strconv.ParseInt(s, base, 64); err == nil {
		return n
	}
	b, ok := new(big.Int).SetString(s, base)
	if !ok {
		p.fail(errBadNumber(it.pos, it.val))
	}
	return b
}

func (p *parser) parsePostfix(x Expr) Expr {
	defer p.restore(p.expr)
	for {
		switch {
		case p.isOp(".") || p.isOp("["):
			p.deeper()
			x = p.parseSubscript(x)
		case p.isOp("("):
			p.deeper()
			x = p.parseCall(x)
		default:
			return x
		}
	}
}

func (p *parser) parseSubscript(x Expr) Expr {
	t := p.next()
	if t.val == "." {
		it := p.next()
		switch it.typ {
		case itemName:
			return &AttrExpr{Pos: x.Position(), X: x, Name: it.val, NamePos: it.pos}
		case itemInt:
			return &IndexExpr{Pos: x.Position(), X: x, Index: &ConstExpr{Pos: it.pos, Value: p.intValue(it)}}
		}
		p.fail(errExpected(it.pos, "an attribute name", it))
	}
	var args []Expr
	for !p.isOp("]") {
		if len(args) > 0 {
			p.expectOp(",") // Jinja allows no trailing comma here
		}
		args = append(args, p.parseSubscribed())
	}
	end := p.expectOp("]")
	var idx Expr
	switch len(args) {
	case 0:
		p.fail(errEmptySubscript(end.pos))
	case 1:
		idx = args[0]
	default:
		idx = &TupleExpr{Pos: args[0].Position(), Items: args}
	}
	return &IndexExpr{Pos: x.Position(), X: x, Index: idx}
}

// parseSubscribed parses one subscript: an expression or a slice.
func (p *parser) parseSubscribed() Expr {
	start := p.peek().pos
	var parts [3]Expr
	if !p.isOp(":") {
		parts[0] = p.parseBeforeColon()
		if !p.isOp(":") {
			return parts[0]
		}
	}
	p.next()
	if !p.isOp("]") && !p.isOp(",") && !p.isOp(":") {
		parts[1] = p.parseBeforeColon()
	}
	if p.skipOp(":") {
		if !p.isOp("]") && !p.isOp(",") {
			parts[2] = p.parseExpression(true)
		}
	}
	return &SliceExpr{Pos: start, Start: parts[0], Stop: parts[1], Step: parts[2]}
}

// parseBeforeColon parses an expression that a ":" may follow: a dict
// key or a slice bound ({x | upper: 1}, xs[a | int:]).
func (p *parser) parseBeforeColon() Expr {
	defer p.colonEnds(true)()
	return p.parseExpression(true)
}

// colonEnds sets colonOK until the returned function restores it.
func (p *parser) colonEnds(ok bool) func() {
	saved := p.colonOK
	p.colonOK = ok
	return func() { p.colonOK = saved }
}

type callArgs struct {
	args       []Expr
	kwargs     []*Keyword
	dyn, dynkw Expr
}

// after names what a misplaced argument follows: the last of **kwargs,
// *args and (for a positional one) keyword arguments.
func (a *callArgs) after(kw bool) string {
	switch {
	case a.dynkw != nil:
		return "**kwargs"
	case a.dyn != nil:
		return "*args"
	case kw && a.kwargs != nil:
		return "keyword argument"
	}
	return ""
}

func (p *parser) parseCallArgs() callArgs {
	defer p.colonEnds(false)()
	p.expectOp("(")
	var a callArgs
	first := true
	for !p.isOp(")") {
		if !first {
			p.expectOp(",")
			if p.isOp(")") {
				break
			}
		}
		first = false
		// Jinja's order: positional arguments, then keyword arguments
		// and at most one *args, then at most one **kwargs.
		it := p.peek()
		switch {
		case it.typ == itemOp && it.val == "*":
			if a.dyn != nil || a.dynkw != nil {
				p.fail(errArgOrder(it.pos, "*args", a.after(false)))
			}
			p.next()
			a.dyn = p.parseExpression(true)
		case it.typ == itemOp && it.val == "**":
			if a.dynkw != nil {
				p.fail(errArgOrder(it.pos, "**kwargs", "**kwargs"))
			}
			p.next()
			a.dynkw = p.parseExpression(true)
		case it.typ == itemName && p.peekAt(1).typ == itemOp && p.peekAt(1).val == "=":
			if a.dynkw != nil {
				p.fail(errArgOrder(it.pos, "keyword argument", "**kwargs"))
			}
			p.next()
			p.next()
			a.kwargs = append(a.kwargs, &Keyword{Pos: it.pos, Name: it.val, Value: p.parseExpression(true)})
		default:
			if a.kwargs != nil || a.dyn != nil || a.dynkw != nil {
				p.fail(errArgOrder(it.pos, "positional argument", a.after(true)))
			}
			a.args = append(a.args, p.parseExpression(true))
		}
	}
	p.expectOp(")")
	return a
}

func (p *parser) parseCall(fn Expr) Expr {
	a := p.parseCallArgs()
	// A call compiles to a Python call in Jinja, which refuses a keyword
	// given twice (filters and tests take theirs as a dict: the last wins).
	for i, k := range a.kwargs {
		for _, prev := range a.kwargs[:i] {
			if prev.Name == k.Name {
				p.fail(syntaxf(k.Pos, "keyword argument %s is given twice", k.Name))
			}
		}
	}
	return &CallExpr{Pos: fn.Position(), Fn: fn, Args: a.args, Kwargs: a.kwargs, DynArgs: a.dyn, DynKwargs: a.dynkw}
}

func (p *parser) parseFilterExpr(x Expr) Expr {
	defer p.restore(p.expr)
	for {
		switch {
		case p.isOp("|"):
			p.deeper()
			p.next()
			x = p.parseFilter(x)
		case p.isName("is"):
			p.deeper()
			x = p.parseTest(x)
		case p.isOp("("):
			p.deeper()
			x = p.parseCall(x)
		default:
			return x
		}
	}
}

// dottedName reads a filter or test name, which may contain dots.
func (p *parser) dottedName(what string) item {
	it := p.expectName(what)
	for p.isOp(".") && p.peekAt(1).typ == itemName {
		p.next()
		it.val += "." + p.next().val
	}
	return it
}

// parseFilter parses "name(args)" after a "|"; x is the filter's input
// (nil in filter and set blocks).
func (p *parser) parseFilter(x Expr) *FilterExpr {
	name := p.dottedName("a filter name")
	f := &FilterExpr{Pos: name.pos, X: x, Name: name.val, NamePos: name.pos}
	if x != nil {
		f.Pos = x.Position()
	}
	switch {
	case p.isOp("("):
		a := p.parseCallArgs()
		f.Args, f.Kwargs, f.DynArgs, f.DynKwargs = orEmptyExprs(a.args), a.kwargs, a.dyn, a.dynkw
	case p.isOp(":") && !p.colonOK:
		p.fail(errDjangoFilterArg(p.peek().pos, name.val))
	}
	return f
}

func orEmptyExprs(xs []Expr) []Expr {
	if xs == nil {
		return []Expr{}
	}
	return xs
}

func (p *parser) parseTest(x Expr) Expr {
	p.next() // is
	t := &TestExpr{Pos: x.Position(), X: x}
	t.Negated = p.skipName("not")
	name := p.dottedName("a test name")
	t.Name, t.NamePos = name.val, name.pos
	it := p.peek()
	switch {
	case it.typ == itemOp && it.val == "(":
		a := p.parseCallArgs()
		t.Args, t.Kwargs, t.DynArgs, t.DynKwargs = orEmptyExprs(a.args), a.kwargs, a.dyn, a.dynkw
	case (it.typ == itemName || it.typ == itemString || it.typ == itemInt || it.typ == itemFloat ||
		(it.typ == itemOp && (it.val == "[" || it.val == "{"))) &&
		!(it.typ == itemName && (it.val == "else" || it.val == "or" || it.val == "and")):
		if it.typ == itemName && it.val == "is" {
			p.fail(errChainedTests(it.pos))
		}
		p.deeper()
		t.Args = []Expr{p.parsePostfix(p.parsePrimary())}
	}
	return t
}

// isKeyword reports the words that cannot be names.
func isKeyword(s string) bool {
	switch s {
	case "and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False", "None":
		return true
	}
	return false
}
