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

const guardTag = "promptkit_guard"

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
