package manager

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/flosch/pongo2/v6"
)

// Render renders the named template with vars under the strict rules:
// an unknown name is ErrUnknownTemplate; a required variable not passed is
// ErrMissingVariables (checked first); a passed variable the template does
// not declare is ErrExtraVariables. Optional variables not passed take
// their declared default, or are undefined. vars is only read.
func (m *Manager) Render(name string, vars map[string]any) (string, error) {
	s := m.cur.Load()
	c := s.templates[name]
	if o := m.cfg.observer; o != nil {
		start := time.Now()
		out, err := renderIn(s, name, c, vars, m.cfg)
		observeRender(o, s, name, c, false, start, len(out), err)
		return out, err
	}
	return renderIn(s, name, c, vars, m.cfg)
}

// renderIn renders c, the template of set s called name (nil if unknown).
func renderIn(s *snapshot, name string, c *compiled, vars map[string]any, cfg *config) (string, error) {
	if c == nil {
		return "", unknownTemplate(s, name)
	}
	return c.render(vars, cfg)
}

func unknownTemplate(s *snapshot, name string) error {
	return &Error{Kind: ErrUnknownTemplate, Template: name,
		Msg: fmt.Sprintf("unknown template (known: %s)", strings.Join(s.names, ", "))}
}

func (c *compiled) errorf(kind error, vars []string, format string, args ...any) *Error {
	return &Error{Kind: kind, Template: c.info.Name, Path: c.info.Path, Variables: vars, Msg: fmt.Sprintf(format, args...)}
}

// bind checks vars against the declaration and returns the map the
// template sees: vars itself when nothing needs adding, else a copy with
// defaults filled in and nil turned into Python's None. It walks the
// declared variables (a slice) rather than vars (a map): a passed
// variable the template does not declare shows as a count that does not
// match, and only then are the extras collected.
func (c *compiled) bind(vars map[string]any) (map[string]any, error) {
	var missing []string
	found, needCopy := 0, false
	for i := range c.info.Variables {
		d := &c.info.Variables[i]
		v, ok := vars[d.Name]
		switch {
		case ok:
			found++
			needCopy = needCopy || v == nil
		case d.Required:
			missing = append(missing, d.Name)
		case d.HasDefault:
			needCopy = true
		}
	}
	if missing != nil {
		sort.Strings(missing)
		return nil, c.errorf(ErrMissingVariables, missing, "missing variables: %s", strings.Join(missing, ", "))
	}
	if found != len(vars) {
		var extra []string
		for k := range vars {
			if _, ok := c.declared[k]; !ok {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		return nil, c.errorf(ErrExtraVariables, extra, "extra variables not declared in index.json: %s", strings.Join(extra, ", "))
	}
	if !needCopy {
		return vars, nil
	}
	out := make(map[string]any, len(vars)+len(c.defaults))
	for k, v := range c.defaults {
		out[k] = v
	}
	for k, v := range vars {
		if v == nil {
			v = none
		}
		out[k] = v
	}
	return out, nil
}

func (c *compiled) render(vars map[string]any, cfg *config) (string, error) {
	if c.chat {
		return "", c.chatTemplateError()
	}
	return c.exec(vars, cfg, nil)
}

// captureRoot returns a compiled template's root node and execution
// context, captured with one pongo2 execution at load, so that renders
// run the body directly (see rootCapture).
func captureRoot(pt *pongo2.Template) (*rootCapture, error) {
	rc := &rootCapture{}
	if err := pt.ExecuteWriterUnbuffered(pongo2.Context{stateKey: rc}, io.Discard); err != nil {
		return nil, err
	}
	if rc.root == nil {
		return nil, errors.New("the translated template has no root tag")
	}
	return rc, nil
}

// exec runs the template and returns its output. With a sink
// (RenderMessages of a chat template), chat blocks add their messages to
// it as they run.
//
// It runs the template's body directly, not through pongo2's Execute
// (which copies the context, checks every key with a regexp and allocates
// an execution context, a private map, a writer and a buffer per call):
// the execution context, private map and output buffer come from a pool,
// and the caller's map is the public context as it is.
func (c *compiled) exec(vars map[string]any, cfg *config, sink *chatSink) (out string, err error) {
	bound, err := c.bind(vars)
	if err != nil {
		return "", err
	}
	st := statePool.Get().(*renderState)
	st.iters, st.maxIt, st.chat = 0, cfg.maxIterations, sink
	st.out = outBuf{b: st.out.b[:0], max: cfg.maxOutput}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", c.errorf(ErrTemplate, nil, "render panicked: %v", r)
		}
		st.ec, st.chat = pongo2.ExecutionContext{}, nil
		clear(st.priv)
		if cap(st.out.b) <= 64<<10 {
			statePool.Put(st)
		}
	}()
	if perr := c.run.root.execute(&c.run.proto, bound, st); perr != nil {
		return "", c.execError(perr, st)
	}
	if st.out.over {
		return "", c.errorf(ErrOutputLimit, nil, "output exceeds %d bytes (WithMaxOutputBytes)", cfg.maxOutput)
	}
	return string(st.out.b), nil
}

// execError wraps an error pongo2 returned while executing.
func (c *compiled) execError(err error, st *renderState) error {
	var pe *pongo2.Error
	if errors.As(err, &pe) && pe.OrigError != nil {
		err = pe.OrigError // pongo2's *Error does not Unwrap
	}
	switch {
	case errors.Is(err, errIterations):
		return c.errorf(ErrOutputLimit, nil, "more than %d loop iterations (WithMaxIterations)", st.maxIt)
	case errors.Is(err, errValueSize) || strings.Contains(err.Error(), errValueSize.Error()):
		// pongo2 keeps only the text of an error a function returns.
		msg := err.Error()
		return c.errorf(ErrOutputLimit, nil, "%s", msg[strings.Index(msg, errValueSize.Error()):])
	case errors.Is(err, ErrOutputLimit) || st.out.over:
		return c.errorf(ErrOutputLimit, nil, "output exceeds %d bytes (WithMaxOutputBytes)", st.out.max)
	}
	e := c.errorf(ErrTemplate, nil, "render failed")
	e.Err = err
	var se *siteError // a chat or image tag says where it stands
	if errors.As(err, &se) {
		e.Path, e.Line, e.Col = se.file, se.p.line, se.p.col
	}
	if pe != nil && pe.OrigError != nil {
		e.Msg = "render failed: " + pe.OrigError.Error()
		e.Err, e.causeInMsg = pe, true
	}
	return e
}
