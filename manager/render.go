package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

// Render renders the named template with vars under the strict rules:
// an unknown name is ErrUnknownTemplate; a required variable not passed is
// ErrMissingVariables (checked first); a passed variable the template does
// not declare is ErrExtraVariables. Optional variables not passed take
// their declared default, or are undefined. vars is only read.
func (m *Manager) Render(name string, vars map[string]any) (string, error) {
	return m.RenderContext(context.Background(), name, vars)
}

// RenderContext is Render that stops when ctx is cancelled or reaches its
// deadline (and at WithMaxRenderTime): the error wraps ErrCanceled and
// the context's error, and names the template and where it was.
func (m *Manager) RenderContext(ctx context.Context, name string, vars map[string]any) (string, error) {
	s := m.cur.Load()
	c := s.templates[name]
	if o := m.cfg.observer; o != nil {
		start := time.Now()
		out, err := renderIn(ctx, s, name, c, vars, m.cfg)
		observeRender(o, s, name, c, false, start, len(out), err)
		return out, err
	}
	return renderIn(ctx, s, name, c, vars, m.cfg)
}

// renderIn renders c, the template of set s called name (nil if unknown).
func renderIn(ctx context.Context, s *snapshot, name string, c *compiled, vars map[string]any, cfg *config) (string, error) {
	if c == nil {
		return "", unknownTemplate(s, name)
	}
	return c.render(ctx, vars, cfg)
}

func unknownTemplate(s *snapshot, name string) error {
	return &Error{Kind: ErrUnknownTemplate, Template: name,
		Msg: fmt.Sprintf("unknown template (known: %s)", strings.Join(s.names, ", "))}
}

func (c *compiled) errorf(kind error, vars []string, format string, args ...any) *Error {
	return &Error{Kind: kind, Template: c.info.Name, Path: c.info.Path, Variables: vars, Msg: fmt.Sprintf(format, args...)}
}

// check checks vars against the declaration and returns the values the
// engine binds, in the order of its variables (engine.RenderValues),
// appended to buf: each variable is looked up once, for the check, the
// schema and the render. It walks the declared variables (a slice)
// rather than vars (a map): a passed variable the template does not
// declare shows as a count that does not match, and only then are the
// extras collected.
func (c *compiled) check(vars map[string]any, buf []any, b *schema.Budget) ([]any, error) {
	vals := buf[:0]
	for range c.tmpl.NumVars() {
		vals = append(vals, engine.Absent{})
	}
	var missing []string
	found := 0
	for i := range c.info.Variables {
		d := &c.info.Variables[i]
		if v, ok := vars[d.Name]; ok {
			found++
			if j := c.bind[i]; j >= 0 {
				vals[j] = v
			}
		} else if d.Required {
			missing = append(missing, d.Name)
		}
	}
	var extra []string
	if found != len(vars) {
		for k := range vars {
			if c.declared(k) == nil {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
	}
	switch {
	case missing != nil && extra != nil:
		// Both at once, in one message: an extra name is most often a
		// missing one misspelled.
		sort.Strings(missing)
		msg := fmt.Sprintf("missing: %s; extra: %s", strings.Join(missing, ", "), strings.Join(extra, ", "))
		if hint := c.didYouMean(extra, missing); hint != "" {
			msg += " — " + hint
		}
		e := c.errorf(ErrMissingVariables, slices.Sorted(slices.Values(append(slices.Clone(missing), extra...))), "%s", msg)
		e.Err, e.causeInMsg = ErrExtraVariables, true
		return nil, e
	case missing != nil:
		sort.Strings(missing)
		return nil, c.errorf(ErrMissingVariables, missing, "missing variables: %s", strings.Join(missing, ", "))
	case extra != nil:
		msg := fmt.Sprintf("extra variables not declared in index.json: %s", strings.Join(extra, ", "))
		if hint := c.didYouMean(extra, nil); hint != "" {
			msg += "; " + hint
		}
		return nil, c.errorf(ErrExtraVariables, extra, "%s", msg)
	}
	if err := c.validate(vars, vals, b); err != nil {
		return nil, err
	}
	return vals, nil
}

// bindVars records, for each declared variable, its index among the
// engine's variables (-1 when the template never reads it): check fills
// the engine's values by it.
func (c *compiled) bindVars() {
	names := c.tmpl.Vars()
	c.bind = make([]int, len(c.info.Variables))
	for i, v := range c.info.Variables {
		c.bind[i] = slices.Index(names, v.Name)
	}
}

// didYouMean suggests, for passed names the template does not declare,
// the declared names they may misspell (suggest.Closest, the rule of every
// "did you mean"): first among the missing ones, else among all.
func (c *compiled) didYouMean(extra, missing []string) string {
	names := make([]string, len(c.info.Variables))
	for i, v := range c.info.Variables {
		names[i] = v.Name
	}
	var hints []string
	for _, x := range extra {
		best := suggest.Closest(x, missing)
		if best == "" {
			best = suggest.Closest(x, names)
		}
		if best != "" {
			hints = append(hints, fmt.Sprintf("%q for %q", best, x))
		}
	}
	switch {
	case hints == nil:
		return ""
	case len(extra) == 1:
		return "did you mean " + strings.TrimSuffix(hints[0], fmt.Sprintf(" for %q", extra[0])) + "?"
	}
	return "did you mean " + strings.Join(hints, ", ") + "?"
}

func (c *compiled) render(ctx context.Context, vars map[string]any, cfg *config) (string, error) {
	if c.chat {
		return "", c.chatTemplateError()
	}
	out, _, err := c.run(ctx, vars, cfg, false)
	return out, err
}

// shareAbove is the least work of a validation that the engine's budget
// is reduced by: below it (the quick path's unit a value, for a few
// thousand values; 0.01% of the default budget) the render keeps the
// whole budget rather than pay an allocation for a copy of its limits.
const shareAbove = 1 << 12

// run checks vars and renders c: to text, or with chat to its messages.
// Render and RenderMessages both come here. The values are validated
// under the render's context and work budget: the engine gets the work
// the validation left.
func (c *compiled) run(ctx context.Context, vars map[string]any, cfg *config, chat bool) (string, []Message, error) {
	ctx, cancel := cfg.renderContext(ctx)
	if cancel != nil {
		defer cancel()
	}
	var buf [16]any
	vals, lim, err := c.prepare(ctx, vars, cfg, buf[:0])
	if err != nil {
		return "", nil, err
	}
	var out string
	var msgs []Message
	if chat {
		msgs, err = c.tmpl.RenderMessagesValues(ctx, vals, lim)
	} else {
		out, err = c.tmpl.RenderValues(ctx, vals, lim)
	}
	if err != nil {
		return "", nil, c.renderError(err)
	}
	return out, msgs, nil
}

// prepare checks vars and validates the values of typed variables
// under the render's context and work budget, and returns the values in
// the engine's order (appended to buf) with the limits of the render: the
// work the validation left.
func (c *compiled) prepare(ctx context.Context, vars map[string]any, cfg *config, buf []any) ([]any, *engine.Limits, error) {
	budget := schema.Budget{Ctx: ctx, Work: cfg.limits.MaxWork}
	vals, err := c.check(vars, buf, &budget)
	if err != nil {
		return nil, nil, err
	}
	lim := &cfg.limits
	if spent := lim.MaxWork - budget.Work; spent >= shareAbove {
		left := *lim
		left.MaxWork = budget.Work
		lim = &left
	}
	return vals, lim, nil
}

// renderContext applies WithMaxRenderTime.
func (cfg *config) renderContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if cfg.maxRenderTime > 0 {
		return context.WithTimeout(ctx, cfg.maxRenderTime)
	}
	return ctx, nil
}

// renderError names the template in an engine's render error.
func (c *compiled) renderError(err error) error {
	var ee *jinja.Error
	if !errors.As(err, &ee) {
		return &Error{Kind: ErrTemplate, Template: c.info.Name, Path: c.info.Path, Msg: "render failed", Err: err}
	}
	e := &Error{Kind: kindOf(ee.Kind), Template: c.info.Name, Path: ee.File, Line: ee.Line, Col: ee.Col, Msg: ee.Msg, Err: ee.Err,
		Expr: ee.Expr, Value: ee.Value, Suggestion: ee.Suggest}
	if e.Path == "" {
		e.Path = c.info.Path
	}
	switch ee.Kind {
	case jinja.Raised:
		e.Msg = "raise_exception: " + ee.Msg
	case jinja.Render:
		e.Msg = "render failed: " + ee.Msg
	}
	return e
}
