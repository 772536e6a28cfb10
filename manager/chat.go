//promptkit:allow-inline the template engine: its subject is template syntax (tag names, error messages)
package manager

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/flosch/pongo2/v6"
)

// Chat templates. A {% chat role=… %}…{% endchat %} block makes one chat
// message. Messages are collected structurally while the template runs:
// each block renders its body into a writer of its own (chatWriter), and
// {{ x | image }} is a tag that hands its URL to that writer. Nothing is
// ever recovered by parsing rendered text, so no value — whatever it
// contains — can end a message, start one or change its role.

// The roles a chat block may take. "tool" is left out on purpose: a tool
// message answers one tool call of the assistant and must carry that
// call's id, which a template block cannot express; a host appends tool
// results itself.
const allowedRoles = "system, user, assistant"

func validRole(r string) bool {
	return r == RoleSystem || r == RoleUser || r == RoleAssistant
}

const (
	chatTag  = "promptkit_chat"
	imageTag = "promptkit_image"
)

// parseChat parses {% chat role=EXPR %}…{% endchat %}.
func (p *parser) parseChat(seg *segment, ts *tokens) (node, error) {
	n := &chatNode{p: seg.p}
	t := ts.next()
	if t.kind != tokName || t.s != "role" || !ts.peekOp("=") {
		return nil, errAt(t.p, "expected role=… after chat, as in {%% chat role=\"user\" %%}, found %s", t)
	}
	ts.next()
	x, err := ts.parseExpr()
	if err != nil {
		return nil, err
	}
	n.role = x
	if err := ts.expectEnd("%}"); err != nil {
		return nil, err
	}
	body, end, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	if end == nil {
		return nil, errAt(seg.p, "{%% chat %%} is never closed: missing {%% endchat %%}")
	}
	if end.toks[0].s != "endchat" {
		return nil, errAt(end.p, "unexpected {%% %s %%} inside {%% chat %%} opened at line %d", end.toks[0].s, seg.p.line)
	}
	p.i++
	if body == nil {
		body = []node{}
	}
	n.body = body
	return n, (&tokens{toks: end.toks, i: 1}).expectEnd("%}")
}

// chatChecker enforces the structure of chat templates on a template
// whose includes are resolved, and turns every {{ x | image }} into an
// imageNode.
type chatChecker struct {
	hasChat  bool
	problems []*Error
	outside  []*Error // text and outputs outside chat blocks: problems only in a chat template
}

// checkChat reports whether the template has chat blocks and every
// problem with them:
//   - a chat template has no text other than whitespace, and no output,
//     outside its chat blocks (a block may sit inside for, if and with);
//   - chat blocks do not nest (an include counts as where it stands);
//   - a literal role is one of the allowed roles;
//   - the image filter stands alone in an output inside a chat block.
func checkChat(nodes []node, file string) (bool, []*Error) {
	k := &chatChecker{}
	k.walk(nodes, file, nil)
	if k.hasChat {
		k.problems = append(k.problems, k.outside...)
	}
	return k.hasChat, k.problems
}

func (k *chatChecker) problem(file string, p pos, format string, args ...any) {
	k.problems = append(k.problems, &Error{Kind: ErrTemplate, Path: file, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)})
}

func (k *chatChecker) walk(nodes []node, file string, chat *chatNode) {
	for i, n := range nodes {
		switch n := n.(type) {
		case *textNode:
			if chat == nil {
				if off := strings.IndexFunc(n.text, func(r rune) bool { return !unicode.IsSpace(r) }); off >= 0 {
					p := advance(n.p, n.text[:off])
					k.outside = append(k.outside, &Error{Kind: ErrTemplate, Path: file, Line: p.line, Col: p.col,
						Msg: "text outside a {% chat %} block: in a chat template every message is a chat block"})
				}
			}
		case *outputNode:
			if f, ok := n.x.(*filterExpr); ok && f.name == "image" {
				if len(f.args)+len(f.kwargs) > 0 {
					k.problem(file, f.p, "the image filter takes no arguments: {{ x | image }}")
				}
				k.images(f.x, file)
				if chat == nil {
					k.problem(file, n.p, "the image filter is allowed only inside a {%% chat %%} block")
					continue
				}
				nodes[i] = &imageNode{p: n.p, x: f.x, file: file}
				continue
			}
			k.images(n.x, file)
			if chat == nil {
				k.outside = append(k.outside, &Error{Kind: ErrTemplate, Path: file, Line: n.p.line, Col: n.p.col,
					Msg: "output outside a {% chat %} block: in a chat template every message is a chat block"})
			}
		case *chatNode:
			k.hasChat = true
			n.file = file
			if chat != nil {
				k.problem(file, n.p, "chat blocks cannot nest: this {%% chat %%} is inside the one opened at %s:%d", chat.file, chat.p.line)
			}
			if c, ok := n.role.(*constExpr); ok {
				if s, isStr := c.v.(string); !isStr {
					k.problem(file, c.p, "chat role must be a string, not %s; allowed roles: %s", kindName(normalizeConst(c.v)), allowedRoles)
				} else if !validRole(s) {
					k.problem(file, c.p, "unknown chat role %q; allowed roles: %s", s, allowedRoles)
				}
			}
			k.images(n.role, file)
			k.walk(n.body, file, n)
		case *ifNode:
			for j, c := range n.conds {
				k.images(c, file)
				k.walk(n.bodies[j], file, chat)
			}
			k.walk(n.elseBody, file, chat)
		case *forNode:
			k.images(n.iter, file)
			k.walk(n.body, file, chat)
			k.walk(n.elseBody, file, chat)
		case *setNode:
			if n.x != nil {
				k.images(n.x, file)
			}
			k.walk(n.body, file, chat)
		case *withNode:
			for _, x := range n.xs {
				k.images(x, file)
			}
			k.walk(n.body, file, chat)
		case *includeNode:
			k.walk(n.body, n.path, chat)
		}
	}
}

// images reports every image filter inside x: there it would have to
// produce a value, and an image is not a value but a part of a message.
func (k *chatChecker) images(x expr, file string) {
	walkExpr(x, func(e expr) {
		if f, ok := e.(*filterExpr); ok && f.name == "image" {
			k.problem(file, f.p, "the image filter must stand alone in an output inside a {%% chat %%} block: {{ x | image }}")
		}
	})
}

// walkExpr calls fn for x and every expression inside it.
func walkExpr(x expr, fn func(expr)) {
	if x == nil {
		return
	}
	fn(x)
	switch e := x.(type) {
	case *listExpr:
		for _, i := range e.items {
			walkExpr(i, fn)
		}
	case *dictExpr:
		for i := range e.keys {
			walkExpr(e.keys[i], fn)
			walkExpr(e.values[i], fn)
		}
	case *attrExpr:
		walkExpr(e.x, fn)
	case *indexExpr:
		walkExpr(e.x, fn)
		walkExpr(e.index, fn)
	case *sliceExpr:
		for _, s := range []expr{e.x, e.start, e.stop, e.step} {
			walkExpr(s, fn)
		}
	case *callExpr:
		walkExpr(e.fn, fn)
		for _, a := range e.args {
			walkExpr(a, fn)
		}
		for _, kw := range e.kwargs {
			walkExpr(kw.x, fn)
		}
	case *filterExpr:
		walkExpr(e.x, fn)
		for _, a := range e.args {
			walkExpr(a, fn)
		}
		for _, kw := range e.kwargs {
			walkExpr(kw.x, fn)
		}
	case *testExpr:
		walkExpr(e.x, fn)
		for _, a := range e.args {
			walkExpr(a, fn)
		}
	case *unaryExpr:
		walkExpr(e.x, fn)
	case *binaryExpr:
		walkExpr(e.l, fn)
		walkExpr(e.r, fn)
	case *condExpr:
		walkExpr(e.cond, fn)
		walkExpr(e.then, fn)
		walkExpr(e.els_, fn)
	}
}

// advance returns the position after text that starts at p.
func advance(p pos, text string) pos {
	for _, r := range text {
		if r == '\n' {
			p.line++
			p.col = 1
		} else {
			p.col++
		}
	}
	return p
}

// chat translates a chat block into the chat tag. The tag carries the
// block's file, line and column, so a render error can say where.
func (t *translator) chat(n *chatNode) error {
	role, err := t.expr(n.role)
	if err != nil {
		return err
	}
	t.b.WriteString("{% " + chatTag + " " + siteArgs(n.file, n.p) + " " + role + " %}")
	if err := t.nodes(n.body); err != nil {
		return err
	}
	t.b.WriteString("{% end" + chatTag + " %}")
	return nil
}

// image translates {{ x | image }} into the image tag.
func (t *translator) image(n *imageNode) error {
	x, err := t.expr(n.x)
	if err != nil {
		return err
	}
	t.b.WriteString("{% " + imageTag + " " + siteArgs(n.file, n.p) + " " + x + " %}")
	return nil
}

func siteArgs(file string, p pos) string {
	return pongoString(file) + " " + strconv.Itoa(p.line) + " " + strconv.Itoa(p.col)
}

// site is where a chat or image tag stands in the Jinja source.
type site struct {
	file string
	p    pos
}

// siteError is a render error of a chat or image tag; the render's *Error
// takes its file, line and column.
type siteError struct {
	site
	err error
}

func (e *siteError) Error() string { return e.err.Error() }
func (e *siteError) Unwrap() error { return e.err }

func parseSite(args *pongo2.Parser) (site, *pongo2.Error) {
	f := args.MatchType(pongo2.TokenString)
	l := args.MatchType(pongo2.TokenNumber)
	c := args.MatchType(pongo2.TokenNumber)
	if f == nil || l == nil || c == nil {
		return site{}, args.Error("promptkit: malformed chat tag", nil)
	}
	line, _ := strconv.Atoi(l.Val)
	col, _ := strconv.Atoi(c.Val)
	return site{file: f.Val, p: pos{line: line, col: col}}, nil
}

// chatSink collects the messages of one RenderMessages call. Text parts
// are recorded as spans of the render's output and get their text once
// the render is done, as substrings of one string (finish); so a chat
// render copies its text once, as Render does. Sinks are pooled: finish
// copies the messages out into slices of exactly their size.
type chatSink struct {
	msgs   []Message
	ranges [][2]int // each message's parts: parts[first:end]
	parts  []Part
	spans  []span     // the text parts' text: spans of the output
	urls   int        // bytes of image URLs, counted against the output limit
	w      chatWriter // the writer of the block running (blocks do not nest)

	msgBuf   [4]Message
	rangeBuf [4][2]int
	partBuf  [4]Part
	spanBuf  [4]span
}

// span is the text of parts[part]: out[a:b].
type span struct{ part, a, b int }

var sinkPool = sync.Pool{New: func() any {
	s := &chatSink{}
	s.msgs, s.ranges, s.parts, s.spans = s.msgBuf[:0], s.rangeBuf[:0], s.partBuf[:0], s.spanBuf[:0]
	return s
}}

// newChatSink takes an empty sink from the pool; release returns it.
func newChatSink() *chatSink { return sinkPool.Get().(*chatSink) }

// release empties the sink (dropping its references to strings) and puts
// it back in the pool.
func (s *chatSink) release() {
	clear(s.msgs)
	clear(s.parts)
	s.msgs, s.ranges, s.parts, s.spans = s.msgs[:0], s.ranges[:0], s.parts[:0], s.spans[:0]
	s.urls, s.w = 0, chatWriter{}
	sinkPool.Put(s)
}

// finish returns the messages, out being the render's whole output, in
// new slices the caller owns: one for the messages, one for all parts.
func (s *chatSink) finish(out string) []Message {
	parts := make([]Part, len(s.parts))
	copy(parts, s.parts)
	for _, sp := range s.spans {
		parts[sp.part].Text = out[sp.a:sp.b]
	}
	msgs := make([]Message, len(s.msgs))
	copy(msgs, s.msgs)
	for i, r := range s.ranges {
		if r[1] > r[0] {
			msgs[i].Parts = parts[r[0]:r[1]:r[1]]
		}
	}
	return msgs
}

// chatWriter is the writer a chat block renders its body into. Text goes
// into the render's output buffer (so the output limit holds); the block
// remembers where its current text part starts, and an image ends that
// part.
type chatWriter struct {
	out   *outBuf
	sink  *chatSink
	start int // offset in out.b where the current text part starts
	first int // index in sink.parts of the message's first part
}

func (w *chatWriter) Write(p []byte) (int, error)       { return w.out.Write(p) }
func (w *chatWriter) WriteString(s string) (int, error) { return w.out.WriteString(s) }

// begin starts a message whose text goes into out.
func (s *chatSink) begin(w *chatWriter, out *outBuf) {
	*w = chatWriter{out: out, sink: s, start: len(out.b), first: len(s.parts)}
}

// flush ends the current text part of w's message.
func (s *chatSink) flush(w *chatWriter) {
	text := w.out.b[w.start:]
	a := w.start + len(text) - len(bytes.TrimLeftFunc(text, unicode.IsSpace))
	b := w.start + len(bytes.TrimRightFunc(text, unicode.IsSpace))
	if b > a {
		s.spans = append(s.spans, span{part: len(s.parts), a: a, b: b})
		s.parts = append(s.parts, Part{Type: PartText})
	}
	w.start = len(w.out.b)
}

// addImage ends the current text part and adds an image part.
func (s *chatSink) addImage(w *chatWriter, url string) error {
	if len(w.out.b)+s.urls+len(url) > w.out.max {
		w.out.over = true
		return ErrOutputLimit
	}
	s.urls += len(url)
	s.flush(w)
	s.parts = append(s.parts, Part{Type: PartImage, URL: url})
	return nil
}

// end ends w's message.
func (s *chatSink) end(w *chatWriter, role string) {
	s.flush(w)
	s.msgs = append(s.msgs, Message{Role: role})
	s.ranges = append(s.ranges, [2]int{w.first, len(s.parts)})
}

type chatTagNode struct {
	site
	tok  *pongo2.Token
	lit  string            // the role, when it is a literal (checked at load)
	role pongo2.IEvaluator // the role's expression otherwise
	body *pongo2.NodeWrapper
}

func (n *chatTagNode) fail(err error, ctx *pongo2.ExecutionContext) *pongo2.Error {
	return ctx.OrigError(&siteError{site: n.site, err: err}, n.tok)
}

// Execute renders one chat block. Rendered as text (by plain pongo2), a
// block is its body; the manager's Render refuses chat templates first.
func (n *chatTagNode) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	st, _ := ctx.Private[statePrivateKey].(*renderState)
	if st == nil || st.chat == nil {
		return n.body.Execute(ctx, w)
	}
	if _, nested := w.(*chatWriter); nested {
		return n.fail(errors.New("chat blocks cannot nest"), ctx)
	}
	role := n.lit
	if n.role != nil {
		rv, perr := n.role.Evaluate(ctx)
		if perr != nil {
			return perr
		}
		var ok bool
		if role, ok = unwrap(rv).(string); !ok {
			return n.fail(fmt.Errorf("chat role must be a string, not %s; allowed roles: %s", kindName(unwrap(rv)), allowedRoles), ctx)
		}
		if !validRole(role) {
			return n.fail(fmt.Errorf("unknown chat role %q; allowed roles: %s", role, allowedRoles), ctx)
		}
	}
	cw := &st.chat.w
	st.chat.begin(cw, &st.out)
	if perr := n.body.Execute(ctx, cw); perr != nil {
		return perr
	}
	st.chat.end(cw, role)
	return nil
}

type imageTagNode struct {
	site
	tok *pongo2.Token
	x   pongo2.IEvaluator
}

// Execute adds an image part to the message of the enclosing chat block.
func (n *imageTagNode) Execute(ctx *pongo2.ExecutionContext, w pongo2.TemplateWriter) *pongo2.Error {
	cw, ok := w.(*chatWriter)
	if !ok {
		return ctx.OrigError(&siteError{site: n.site, err: errors.New("the image filter works only inside a {% chat %} block rendered with RenderMessages")}, n.tok)
	}
	v, perr := n.x.Evaluate(ctx)
	if perr != nil {
		return perr
	}
	url, err := imageURL(unwrap(v))
	if err == nil {
		err = cw.sink.addImage(cw, url)
	}
	if err != nil {
		return ctx.OrigError(&siteError{site: n.site, err: err}, n.tok)
	}
	return nil
}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(pongo2.RegisterTag(chatTag, func(doc *pongo2.Parser, start *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		s, err := parseSite(args)
		if err != nil {
			return nil, err
		}
		n := &chatTagNode{site: s, tok: start}
		if t := args.PeekType(pongo2.TokenString); t != nil && args.Remaining() == 1 && validRole(t.Val) {
			n.lit = t.Val // a literal role needs no evaluation
			args.Consume()
		} else if n.role, err = args.ParseExpression(); err != nil {
			return nil, err
		}
		if args.Remaining() > 0 {
			return nil, args.Error("promptkit: malformed chat tag", nil)
		}
		if n.body, _, err = doc.WrapUntilTag("end" + chatTag); err != nil {
			return nil, err
		}
		return n, nil
	}))
	must(pongo2.RegisterTag(imageTag, func(doc *pongo2.Parser, start *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		s, err := parseSite(args)
		if err != nil {
			return nil, err
		}
		x, err := args.ParseExpression()
		if err != nil {
			return nil, err
		}
		if args.Remaining() > 0 {
			return nil, args.Error("promptkit: malformed image tag", nil)
		}
		return &imageTagNode{site: s, tok: start, x: x}, nil
	}))
}

// RenderMessages renders the named template into chat messages, under the
// same strict rules as Render. Each {% chat role=… %} block makes one
// message, in the order the blocks run (a block in a loop makes one
// message per iteration); a block's text is trimmed of surrounding
// whitespace, and {{ x | image }} splits it into text and image parts. A
// template without chat blocks renders to one user message holding its
// trimmed text.
//
// A variable's value is always text inside its own message: a value
// containing "{% endchat %}", a role marker such as "system:" or
// "<|im_start|>", or JSON that looks like a message cannot end, start or
// re-role a message, because messages are collected as the template runs,
// never parsed out of rendered text.
func (m *Manager) RenderMessages(name string, vars map[string]any) ([]Message, error) {
	s := m.cur.Load()
	c := s.templates[name]
	if o := m.cfg.observer; o != nil {
		start := time.Now()
		msgs, err := renderMessagesIn(s, name, c, vars, m.cfg)
		observeRender(o, s, name, c, true, start, messagesBytes(msgs), err)
		return msgs, err
	}
	return renderMessagesIn(s, name, c, vars, m.cfg)
}

func renderMessagesIn(s *snapshot, name string, c *compiled, vars map[string]any, cfg *config) ([]Message, error) {
	if c == nil {
		return nil, unknownTemplate(s, name)
	}
	return c.renderMessages(vars, cfg)
}

func (c *compiled) renderMessages(vars map[string]any, cfg *config) ([]Message, error) {
	if !c.chat {
		out, err := c.exec(vars, cfg, nil)
		if err != nil {
			return nil, err
		}
		msg := Message{Role: RoleUser}
		if text := strings.TrimFunc(out, unicode.IsSpace); text != "" {
			msg.Parts = []Part{{Type: PartText, Text: text}}
		}
		return []Message{msg}, nil
	}
	sink := newChatSink()
	defer sink.release()
	out, err := c.exec(vars, cfg, sink)
	if err != nil {
		return nil, err
	}
	return sink.finish(out), nil
}

// chatTemplateError is Render's answer for a chat template.
func (c *compiled) chatTemplateError() error {
	return c.errorf(ErrChatTemplate, nil, "is a chat template: it renders to messages; use RenderMessages")
}
