package manager

// The Jinja syntax tree. promptkit parses template source itself, so it can
// check variables statically, report exact positions and bridge Jinja's
// syntax onto pongo2's, which executes the result.

// pos is a 1-based line and column (columns count runes, so a position in
// Chinese text points at the right character).
type pos struct{ line, col int }

type node interface{ position() pos }

type (
	textNode struct {
		p    pos
		text string
	}
	outputNode struct {
		p pos
		x expr
	}
	ifNode struct {
		p        pos
		conds    []expr
		bodies   [][]node
		elseBody []node // nil when there is no else
	}
	forNode struct {
		p        pos
		targets  []string // one name, or key and value
		targetP  pos
		iter     expr
		items    bool // iterating d.items(): iter is d
		body     []node
		elseBody []node
	}
	setNode struct {
		p    pos
		name string
		x    expr   // inline form
		body []node // block form ({% set x %}…{% endset %}) when x is nil
	}
	withNode struct {
		p     pos
		names []string
		xs    []expr
		body  []node
	}
	includeNode struct {
		p    pos
		path string // as written, relative to the template root
		body []node // the included file, parsed and inlined at load
	}
	// chatNode is {% chat role=… %}…{% endchat %}: one chat message (chat.go).
	chatNode struct {
		p    pos
		role expr
		body []node
		file string // the file the block is in, set when includes are resolved
	}
	// imageNode is {{ x | image }} inside a chat block, made from its
	// outputNode by the chat checks at load (chat.go).
	imageNode struct {
		p    pos
		x    expr
		file string
	}
)

func (n *textNode) position() pos    { return n.p }
func (n *outputNode) position() pos  { return n.p }
func (n *ifNode) position() pos      { return n.p }
func (n *forNode) position() pos     { return n.p }
func (n *setNode) position() pos     { return n.p }
func (n *withNode) position() pos    { return n.p }
func (n *includeNode) position() pos { return n.p }
func (n *chatNode) position() pos    { return n.p }
func (n *imageNode) position() pos   { return n.p }

type expr interface{ position() pos }

type (
	nameExpr struct {
		p    pos
		name string
	}
	constExpr struct {
		p pos
		v any // string, int64, float64, bool, nil (None)
	}
	listExpr struct {
		p     pos
		items []expr
	}
	dictExpr struct {
		p      pos
		keys   []expr
		values []expr
	}
	attrExpr struct {
		p    pos
		x    expr
		name string
	}
	indexExpr struct {
		p     pos
		x     expr
		index expr
	}
	sliceExpr struct {
		p                 pos
		x                 expr
		start, stop, step expr // each may be nil
	}
	callExpr struct {
		p      pos
		fn     expr
		args   []expr
		kwargs []kwarg
	}
	filterExpr struct {
		p      pos
		x      expr
		name   string
		args   []expr
		kwargs []kwarg
	}
	testExpr struct {
		p    pos
		x    expr
		name string
		not  bool
		args []expr
	}
	unaryExpr struct {
		p  pos
		op string // "not", "-", "+"
		x  expr
	}
	binaryExpr struct {
		p    pos
		op   string // and or + - * / // % ** ~ == != < <= > >= in notin
		l, r expr
	}
	condExpr struct {
		p          pos
		cond       expr
		then, els_ expr // els_ may be nil (undefined)
	}
)

type kwarg struct {
	name string
	x    expr
}

func (e *nameExpr) position() pos   { return e.p }
func (e *constExpr) position() pos  { return e.p }
func (e *listExpr) position() pos   { return e.p }
func (e *dictExpr) position() pos   { return e.p }
func (e *attrExpr) position() pos   { return e.p }
func (e *indexExpr) position() pos  { return e.p }
func (e *sliceExpr) position() pos  { return e.p }
func (e *callExpr) position() pos   { return e.p }
func (e *filterExpr) position() pos { return e.p }
func (e *testExpr) position() pos   { return e.p }
func (e *unaryExpr) position() pos  { return e.p }
func (e *binaryExpr) position() pos { return e.p }
func (e *condExpr) position() pos   { return e.p }
