package manager

import (
	"fmt"
	"io"
	"sync"

	"github.com/flosch/pongo2/v6"
)

// promptkit executes templates with pongo2. Three things are registered
// with pongo2 (process-wide, hence in init, and prefixed so they cannot
// clash with a host's own use of pongo2): the pk_* filters, the root tag
// that every translated template is wrapped in, and the loop guard.
// pongo2's process-wide autoescape switch is never touched: the root tag
// turns escaping off for promptkit's templates only.

const (
	guardTag = "promptkit_guard"
	printTag = "promptkit_print"
)

// renderState is one render's private state, reached by the loop guard
// through the private context. Renders take one from a pool, so a render
// allocates no execution context, private map or output buffer of its own.
type renderState struct {
	ec    pongo2.ExecutionContext
	priv  pongo2.Context
	out   outBuf
	iters int
	maxIt int
	chat  *chatSink // set by RenderMessages for a chat template (chat.go)
}

var statePool = sync.Pool{New: func() any { return &renderState{priv: pongo2.Context{}} }}

// outBuf is the output buffer: it stops growing at its limit.
type outBuf struct {
	b    []byte
	max  int
	over bool
}

func (w *outBuf) Write(p []byte) (int, error) {
	if len(w.b)+len(p) > w.max {
		w.over = true
		return 0, ErrOutputLimit
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

func (w *outBuf) WriteString(s string) (int, error) {
	if len(w.b)+len(s) > w.max {
		w.over = true
		return 0, ErrOutputLimit
	}
	w.b = append(w.b, s...)
	return len(s), nil
}

type rootNode struct{ body *pongo2.NodeWrapper }

const statePrivateKey = "_pks"

// rootCapture is what a render needs to run a template's body itself,
// without pongo2's Execute: the root node and an execution context that
// carries pongo2's (unexported) template pointer, used in error positions.
// Execute fills one in, instead of rendering, when the public context
// holds one under stateKey.
type rootCapture struct {
	root  *rootNode
	proto pongo2.ExecutionContext
}

// Execute runs the template body with Jinja's settings: no autoescape and
// the helpers in reach. promptkit's renders do not come here (they run the
// body directly, see compiled.exec); executed by plain pongo2, the root
// tag renders the same text into pongo2's writer.
func (n *rootNode) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	if c, ok := ctx.Public[stateKey].(*rootCapture); ok {
		c.root, c.proto = n, *ctx
		c.proto.Public, c.proto.Private = nil, nil
		return nil
	}
	sub := pongo2.NewChildExecutionContext(ctx)
	sub.Autoescape = false
	sub.Private[funcsKey] = helpers
	return n.body.Execute(sub, w)
}

// execute renders the body for one promptkit render: vars are the public
// context (not copied), st supplies the execution context, the private
// map and the output buffer.
func (n *rootNode) execute(proto *pongo2.ExecutionContext, vars map[string]any, st *renderState) *pongo2.Error {
	st.ec = *proto
	st.ec.Autoescape = false
	st.ec.Public = vars
	st.ec.Private = st.priv
	st.priv[funcsKey] = helpers
	st.priv[statePrivateKey] = st
	return n.body.Execute(&st.ec, &st.out)
}

// printNode is {{ x }} with Python's str(): a string is written as it is,
// anything else as pyStr writes it. It replaces pongo2's {{ x|filter }},
// which allocates a parameter value per filter call. A path of plain
// names (x, x.y.z) over the caller's JSON-like data (strings and
// map[string]any) is looked up directly, with pongo2's rules for such a
// path and no reflection or allocation; anything else goes through
// pongo2's own evaluation of the expression.
type printNode struct {
	x    pongo2.IEvaluator
	path []string // the names of a plain path, else nil
}

func (n *printNode) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	if n.path != nil {
		if s, ok := lookupPath(ctx, n.path); ok {
			w.WriteString(s)
			return nil
		}
	}
	v, err := n.x.Evaluate(ctx)
	if err != nil {
		return err
	}
	if v.IsString() {
		w.WriteString(v.String())
	} else {
		w.WriteString(pyStr(v.Interface()))
	}
	return nil
}

// lookupPath resolves a plain path as pongo2's variable resolver does
// (private context first, then public; a *pongo2.Value found there
// unpacked; a map key looked up; a missing value printing as "") and
// returns the text to print, when every step is a value whose handling
// is known here. It reports false for anything else (functions, structs,
// pointers, typed maps, other number types…): the caller then lets
// pongo2 evaluate the expression.
func lookupPath(ctx *pongo2.ExecutionContext, path []string) (string, bool) {
	x, ok := ctx.Private[path[0]]
	if !ok {
		x = ctx.Public[path[0]]
	}
	if v, ok := x.(*pongo2.Value); ok { // a loop variable or a set local
		x = v.Interface()
	}
	for i := 0; ; i++ {
		if i == len(path)-1 {
			return printable(x)
		}
		switch m := x.(type) {
		case map[string]any:
			x = m[path[i+1]]
		case nil:
			return "", true
		default:
			return "", false
		}
	}
}

// printable is pyStr for the types a JSON-like value holds, and false for
// any other type.
func printable(x any) (string, bool) {
	switch x := x.(type) {
	case string:
		return x, true
	case nil:
		return "", true
	case int64, int, float64, bool, noneType:
		return pyStr(x), true
	}
	return "", false
}

type guardNode struct{ tok *pongo2.Token }

// errIterations is returned by the loop guard; render maps it to an
// ErrOutputLimit error naming the template.
var errIterations = fmt.Errorf("too many loop iterations")

// Execute counts one loop iteration and stops the render when it is over
// its iteration or output budget.
func (n *guardNode) Execute(ctx *pongo2.ExecutionContext, _ pongo2.TemplateWriter) *pongo2.Error {
	st, ok := ctx.Private[statePrivateKey].(*renderState)
	if !ok {
		return nil
	}
	st.iters++
	if st.iters > st.maxIt {
		return ctx.OrigError(errIterations, n.tok)
	}
	if st.out.over {
		return ctx.OrigError(ErrOutputLimit, n.tok)
	}
	return nil
}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(pongo2.RegisterTag(rootTag, func(doc *pongo2.Parser, start *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		body, _, err := doc.WrapUntilTag("end" + rootTag)
		if err != nil {
			return nil, err
		}
		return &rootNode{body: body}, nil
	}))
	must(pongo2.RegisterTag(printTag, func(doc *pongo2.Parser, start *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		n := &printNode{path: plainPath(args)}
		x, err := args.ParseExpression()
		if err != nil {
			return nil, err
		}
		if args.Remaining() > 0 {
			return nil, args.Error("unexpected token after the expression", nil)
		}
		n.x = x
		return n, nil
	}))
	must(pongo2.RegisterTag(guardTag, func(doc *pongo2.Parser, start *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		return &guardNode{tok: start}, nil
	}))
}

// pongo2 tags a translated template never uses. Banning them per set is
// defence in depth: text is escaped by the translator, so no template
// source can reach them anyway.
var bannedTags = []string{
	"autoescape", "block", "comment", "cycle", "extends", "filter", "firstof",
	"ifchanged", "ifequal", "ifnotequal", "import", "include", "lorem", "macro",
	"now", "spaceless", "ssi", "templatetag", "widthratio",
}

// plainPath returns the names of an argument list that is exactly a
// plain path (name, or name.name…), else nil. It reads without consuming.
func plainPath(args *pongo2.Parser) []string {
	if args.Count()%2 == 0 {
		return nil
	}
	var path []string
	for i := 0; i < args.Count(); i++ {
		t := args.Get(i)
		if i%2 == 1 {
			if t.Typ != pongo2.TokenSymbol || t.Val != "." {
				return nil
			}
			continue
		}
		if t.Typ != pongo2.TokenIdentifier {
			return nil
		}
		path = append(path, t.Val)
	}
	return path
}

// denyLoader refuses every file: promptkit reads files itself (through
// the set's fs.FS) and inlines includes, so pongo2 never needs to.
type denyLoader struct{}

func (denyLoader) Abs(base, name string) string { return name }
func (denyLoader) Get(path string) (io.Reader, error) {
	return nil, fmt.Errorf("promptkit: pongo2 may not read files (%q)", path)
}

// newPongoSet makes a fresh pongo2 set. Each load uses its own: compiling
// into a set while it renders races in pongo2 (upstream #322).
func newPongoSet() *pongo2.TemplateSet {
	set := pongo2.NewSet("promptkit", denyLoader{})
	for _, t := range bannedTags {
		_ = set.BanTag(t)
	}
	return set
}
