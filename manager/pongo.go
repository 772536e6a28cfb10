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

// renderState is one render's private state, reached by the root tag
// through the context. Renders take one from a pool.
type renderState struct {
	vars  map[string]any
	out   outBuf
	iters int
	maxIt int
	chat  *chatSink // set by RenderMessages for a chat template (chat.go)
}

var statePool = sync.Pool{New: func() any { return &renderState{} }}

var ctxPool = sync.Pool{New: func() any { return pongo2.Context{} }}

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

// Execute runs the template body with Jinja's settings: no autoescape, the
// helpers in reach, the caller's variables as the public context (no
// copy), and output into promptkit's own buffer. Executed by plain pongo2
// (no render state), it renders the same text into pongo2's writer.
func (n *rootNode) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	sub := pongo2.NewChildExecutionContext(ctx)
	sub.Autoescape = false
	sub.Private[funcsKey] = helpers
	if st, ok := ctx.Public[stateKey].(*renderState); ok {
		sub.Public = st.vars
		sub.Private[statePrivateKey] = st
		w = &st.out
	}
	return n.body.Execute(sub, w)
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
