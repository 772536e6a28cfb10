package manager

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Composition: a Prompt is a template with some of its inputs settled in
// advance — values bound now and the rest given later (partial
// formatting), variables computed by Go functions at render time
// (function mappings), and the caller's own names for the template's
// variables (variable mappings).

// VarFunc computes a variable's value at render time. It receives the
// values of the render — those bound by Partial and those passed to the
// call, under the template's names, before defaults and before any
// function ran — in a map of its own that it may read but should not
// keep. It must be safe for concurrent use if the Prompt is.
type VarFunc func(vars map[string]any) (any, error)

// PromptOption configures a Prompt (see Manager.Partial). Options apply
// in order; a contradiction is an error from Partial.
type PromptOption func(*promptConfig) error

type promptConfig struct {
	funcs map[string]VarFunc
	names map[string]string // caller name → template variable
}

// WithFunc binds variable to fn: at every render fn computes the
// variable's value from the other values, and its result wins over a
// value of the same name that is bound or passed. A variable with a
// function counts as passed, so a required one need not be given. An
// error or a panic in fn fails the render with an *Error wrapping
// ErrVariableFunc that names the template and the variable. Use it for
// values that depend on the others or on the moment: few-shot examples
// chosen for the question, today's date.
//
// Within one Partial call a variable takes one function; a later Partial
// may replace it.
func WithFunc(variable string, fn VarFunc) PromptOption {
	return func(c *promptConfig) error {
		if !identRE.MatchString(variable) {
			return fmt.Errorf("WithFunc: invalid variable name %q", variable)
		}
		if fn == nil {
			return fmt.Errorf("WithFunc(%q): nil function", variable)
		}
		if _, dup := c.funcs[variable]; dup {
			return fmt.Errorf("WithFunc: variable %q is given two functions", variable)
		}
		c.funcs[variable] = fn
		return nil
	}
}

// WithVarMapping lets a caller pass values under its own names: mapping
// takes a caller's name to the template variable it fills, so data using
// "my_context" can feed a template's "context_str" without renaming. It
// applies to the values of Partial and of every later call; names not in
// the mapping pass unchanged. Two values that land on one variable in the
// same call (say "my_context" and "context_str" together) are an
// ErrExtraVariables error rather than a silent choice.
//
// A later Partial may map a caller's name elsewhere; within one Partial
// call it may not.
func WithVarMapping(mapping map[string]string) PromptOption {
	return func(c *promptConfig) error {
		for from, to := range mapping {
			if from == "" {
				return fmt.Errorf("WithVarMapping: empty caller name")
			}
			if !identRE.MatchString(to) {
				return fmt.Errorf("WithVarMapping: %q maps to invalid variable name %q", from, to)
			}
			if prev, dup := c.names[from]; dup && prev != to {
				return fmt.Errorf("WithVarMapping: %q maps to both %q and %q", from, prev, to)
			}
			c.names[from] = to
		}
		return nil
	}
}

// Prompt is a template with values, functions and name mappings bound to
// it. It is immutable and safe for concurrent use (if its functions are);
// Partial returns a new Prompt and leaves the original as it was. A Prompt
// refers to its template by name, so it renders whatever set the manager
// serves at the time: a reload or an override applies to it too.
type Prompt struct {
	m     *Manager
	name  string
	vars  map[string]any     // bound values, under the template's names
	funcs map[string]VarFunc // variable → function
	names map[string]string  // caller name → template variable
}

// Partial binds some of template name's variables now, to be rendered
// later with the rest: p.Render(vars) renders name with the union of the
// bound values and vars, and a value given at the call wins over a bound
// one. The strict rules apply to the union when rendering (a required
// variable missing from both is ErrMissingVariables), and a bound value
// the template does not declare is ErrExtraVariables now. Options add
// function and name mappings (WithFunc, WithVarMapping); vars is read
// through the mapping. vars is copied (its values are not: do not modify
// them afterwards), so the caller may reuse it.
//
// Partial with nil vars simply attaches options:
//
//	p, err := m.Partial("qa", nil, manager.WithVarMapping(map[string]string{"my_context": "context_str"}))
func (m *Manager) Partial(name string, vars map[string]any, opts ...PromptOption) (*Prompt, error) {
	p := &Prompt{m: m, name: name}
	return p.Partial(vars, opts...)
}

// Partial returns a new Prompt with more values bound (winning over
// values bound before), and more functions and mappings (replacing those
// of the same name). p itself is unchanged.
func (p *Prompt) Partial(vars map[string]any, opts ...PromptOption) (*Prompt, error) {
	cfg := promptConfig{funcs: map[string]VarFunc{}, names: map[string]string{}}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, &Error{Kind: ErrTemplate, Template: p.name, Msg: err.Error()}
		}
	}
	q := &Prompt{m: p.m, name: p.name,
		vars:  maps.Clone(p.vars),
		funcs: maps.Clone(p.funcs),
		names: maps.Clone(p.names),
	}
	if len(cfg.names) > 0 {
		if q.names == nil {
			q.names = map[string]string{}
		}
		maps.Copy(q.names, cfg.names)
	}
	if len(cfg.funcs) > 0 {
		if q.funcs == nil {
			q.funcs = map[string]VarFunc{}
		}
		maps.Copy(q.funcs, cfg.funcs)
	}
	s := p.m.cur.Load()
	c, ok := s.templates[p.name]
	if !ok {
		return nil, unknownTemplate(s, p.name)
	}
	bound, err := q.mapNames(c, vars)
	if err != nil {
		return nil, err
	}
	if len(bound) > 0 {
		if q.vars == nil {
			q.vars = make(map[string]any, len(bound))
		}
		maps.Copy(q.vars, bound)
	}
	var extra []string
	for k := range q.vars {
		if c.declared(k) == nil {
			extra = append(extra, k)
		}
	}
	if extra != nil {
		slices.Sort(extra)
		return nil, c.errorf(ErrExtraVariables, extra, "extra variables not declared in index.json: %s", strings.Join(extra, ", "))
	}
	var nofn []string
	for k := range q.funcs {
		if c.declared(k) == nil {
			nofn = append(nofn, k)
		}
	}
	if nofn != nil {
		slices.Sort(nofn)
		return nil, c.errorf(ErrExtraVariables, nofn, "functions for variables not declared in index.json: %s", strings.Join(nofn, ", "))
	}
	return q, nil
}

// Name returns the name of the prompt's template.
func (p *Prompt) Name() string { return p.name }

// Render renders the template with the bound values and vars (vars wins),
// functions applied last. See Manager.Render for the strict rules.
func (p *Prompt) Render(vars map[string]any) (string, error) {
	var start time.Time
	o := p.m.cfg.observer
	if o != nil {
		start = time.Now()
	}
	s, c, final, err := p.prepare(vars)
	var out string
	if err == nil {
		out, err = c.render(context.Background(), final, p.m.cfg)
	}
	if o != nil {
		observeRender(o, s, p.name, c, false, start, len(out), err)
	}
	return out, err
}

// RenderMessages renders the template into chat messages with the bound
// values and vars (vars wins), functions applied last. See
// Manager.RenderMessages.
func (p *Prompt) RenderMessages(vars map[string]any) ([]Message, error) {
	var start time.Time
	o := p.m.cfg.observer
	if o != nil {
		start = time.Now()
	}
	s, c, final, err := p.prepare(vars)
	var msgs []Message
	if err == nil {
		msgs, err = c.renderMessages(context.Background(), final, p.m.cfg)
	}
	if o != nil {
		observeRender(o, s, p.name, c, true, start, messagesBytes(msgs), err)
	}
	return msgs, err
}

// prepare looks the template up once (so one render uses one set) and
// computes the values it renders with.
func (p *Prompt) prepare(vars map[string]any) (*snapshot, *compiled, map[string]any, error) {
	s := p.m.cur.Load()
	c, ok := s.templates[p.name]
	if !ok {
		return s, nil, nil, unknownTemplate(s, p.name)
	}
	given, err := p.mapNames(c, vars)
	if err != nil {
		return s, c, nil, err
	}
	final := make(map[string]any, len(p.vars)+len(given)+len(p.funcs))
	maps.Copy(final, p.vars)
	maps.Copy(final, given)
	if len(p.funcs) == 0 {
		return s, c, final, nil
	}
	names := slices.Sorted(maps.Keys(p.funcs))
	results := make([]any, len(names))
	for i, name := range names {
		v, err := callVarFunc(p.funcs[name], maps.Clone(final))
		if err != nil {
			e := c.errorf(ErrVariableFunc, []string{name}, "function for variable %q failed", name)
			e.Err = err
			return s, c, nil, e
		}
		results[i] = v
	}
	for i, name := range names {
		final[name] = results[i]
	}
	return s, c, final, nil
}

// callVarFunc calls fn, turning a panic into an error.
func callVarFunc(fn VarFunc, vars map[string]any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return fn(vars)
}

// mapNames returns vars under the template's names. Two values that land
// on one variable are an error.
func (p *Prompt) mapNames(c *compiled, vars map[string]any) (map[string]any, error) {
	if len(p.names) == 0 || len(vars) == 0 {
		return vars, nil
	}
	out := make(map[string]any, len(vars))
	from := make(map[string]string, len(vars)) // template name → the caller's name that gave it
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		to, ok := p.names[k]
		if !ok {
			to = k
		}
		if prev, dup := from[to]; dup {
			return nil, c.errorf(ErrExtraVariables, []string{prev, k}, "%q and %q both give variable %q (WithVarMapping)", prev, k, to)
		}
		from[to] = k
		out[to] = vars[k]
	}
	return out, nil
}
