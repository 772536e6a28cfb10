package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Rendering: bind the variables to their slots, run the template's body
// on a pooled state, and hand the output over as the result without
// copying it.

var statePool = sync.Pool{New: func() any { return new(state) }}

// Render renders the template as text. vars are the host's values by
// variable name (the checks that every required variable is passed, and
// no other, are the caller's); a variable not in vars takes its default
// or is undefined.
func (t *Template) Render(ctx context.Context, vars map[string]any, lim *Limits) (string, error) {
	var buf [16]any
	out, _, err := t.run(ctx, t.values(vars, buf[:0]), lim, false)
	return out, err
}

// NumVars is len(Vars()), without building the list.
func (t *Template) NumVars() int { return len(t.vars) }

// Vars returns the names of the variables the template reads, in the
// order RenderValues takes their values.
func (t *Template) Vars() []string {
	names := make([]string, len(t.vars))
	for i, v := range t.vars {
		names[i] = v.name
	}
	return names
}

// Absent is the value of a variable not passed, in RenderValues: it takes
// its default or is undefined (nil is None).
type Absent struct{}

// RenderValues is Render with the values already looked up: vals[i] is
// the value of Vars()[i], or Absent{}. A caller that checks the passed
// variables against its declarations has looked each one up already;
// this spares the render a second lookup of every variable.
func (t *Template) RenderValues(ctx context.Context, vals []any, lim *Limits) (string, error) {
	out, _, err := t.run(ctx, vals, lim, false)
	return out, err
}

// RenderMessagesValues renders a chat template's messages, with the
// values looked up as RenderValues takes them.
func (t *Template) RenderMessagesValues(ctx context.Context, vals []any, lim *Limits) ([]message.Message, error) {
	_, msgs, err := t.run(ctx, vals, lim, true)
	return msgs, err
}

// values looks the template's variables up in vars, in the order of
// Vars, appending to buf.
func (t *Template) values(vars map[string]any, buf []any) []any {
	for i := range t.vars {
		v := &t.vars[i]
		x, ok := vars[v.name]
		if !ok {
			x = Absent{}
		}
		buf = append(buf, x)
	}
	return buf
}

// run renders the template; with chat, it collects the messages in the
// state's own sink (pooled with the state, so a render of messages
// allocates only what it returns: the output, and the messages with
// their parts).
func (t *Template) run(ctx context.Context, vals []any, lim *Limits, chat bool) (out string, msgs []message.Message, err error) {
	return t.render(ctx, vals, lim, chat, nil)
}

// render is run with a budgeted render's state (budget.go), or nil.
func (t *Template) render(ctx context.Context, vals []any, lim *Limits, chat bool, b *budgetState) (out string, msgs []message.Message, err error) {
	if len(vals) != len(t.vars) {
		panic(fmt.Sprintf("engine: %d values for the %d variables of the template", len(vals), len(t.vars)))
	}
	st := statePool.Get().(*state)
	st.lim = lim
	st.max, st.mem, st.work, st.iters = lim.MaxOutput, lim.MaxMemory, lim.MaxWork, lim.MaxIterations
	st.sink, st.over, st.depth, st.at, st.strict, st.budget = nil, false, 0, nil, t.strict, b
	if chat {
		st.sink = &st.chat
	}
	// The buffer is sized from the outputs of earlier renders, a little
	// over the largest of late (see recordSize), so that it is the size
	// class the output needs and is rarely grown; Grow allocates without
	// zeroing what the render then writes.
	est := int(t.estimate.Load())
	st.out.reset(min(est+est/64+16, lim.MaxOutput))
	if cap(st.root.slots) < t.slots {
		st.root.slots = make([]Value, t.slots)
	}
	st.root.slots = st.root.slots[:t.slots]
	st.act = &st.root
	var stop func() bool
	if ctx != nil && ctx.Done() != nil {
		if err := ctx.Err(); err != nil {
			statePool.Put(st)
			return "", nil, &jinja.Error{Kind: jinja.Canceled, Msg: "render cancelled: " + err.Error(), Err: err}
		}
		flag := new(atomic.Bool)
		st.stop = flag
		stop = context.AfterFunc(ctx, func() { flag.Store(true) })
	}
	defer func() {
		if stop != nil {
			stop()
		}
		if r := recover(); r != nil {
			out, msgs, err = "", nil, st.renderError(r, ctx)
		}
		st.release()
	}()
	for i := range t.vars {
		v, x := &t.vars[i], vals[i]
		_, absent := x.(Absent)
		switch {
		case !absent:
			if s, ok := x.(string); ok { // most variables of a prompt
				st.root.slots[v.slot] = strValue(s)
			} else {
				st.root.slots[v.slot] = FromGo(x)
			}
		case v.has:
			st.root.slots[v.slot] = v.def
		default:
			st.root.slots[v.slot] = v.undef
		}
	}
	if t.inits != nil {
		initFrame(st, t.inits)
	}
	t.root.exec(st)
	if st.over {
		st.fail(nil, &limitError{fmt.Sprintf("the output would exceed %d bytes (WithMaxOutputBytes)", st.max)})
	}
	c := st.out.Cap()
	out = st.out.take()
	if c > 4096 && len(out) < c/2 {
		// After an outlier the estimate runs ahead of the output for a
		// few renders: a result must not keep a buffer twice its size.
		out = strings.Clone(out)
	}
	t.recordSize(len(out))
	if chat {
		msgs = st.chat.finish(out)
	}
	return out, msgs, nil
}

// recordSize keeps the estimate of the next output: the largest of the
// recent outputs, forgotten by an eighth a render when outputs shrink. Renders of one template from many goroutines may race here;
// any of their sizes is a good estimate.
func (t *Template) recordSize(n int) {
	e := t.estimate.Load()
	if next := max(int64(n), e-e/8); next != e {
		t.estimate.Store(next)
	}
}

// release empties the state (dropping its references to the render's
// values) and returns it to the pool.
func (st *state) release() {
	if s := st.root.slots; len(s) <= 8 {
		// A few slots: emptied field by field, cheaper than clearing
		// memory that holds pointers (each slot is undefined again).
		for i := range s {
			s[i].k, s[i].n, s[i].s, s[i].ref = Undefined, 0, "", nil
		}
	} else {
		clear(s)
	}
	clear(st.args[:cap(st.args)])
	st.args = st.args[:0]
	st.caps = st.caps[:0]
	st.sink, st.act, st.at, st.stop, st.lim, st.budget = nil, nil, nil, nil, nil, nil
	st.out = output{}
	if cap(st.json) > 64<<10 { // a large tojson: its buffer is not kept
		st.json = nil
	}
	st.chat.reset()
	for _, l := range st.loops[:st.nloop] { // a render that failed inside loops
		*l = loopObj{}
	}
	st.nloop = 0
	if len(st.loops) > 64 {
		st.loops = nil
	}
	if cap(st.root.slots) > 1024 {
		st.root.slots = nil
	}
	statePool.Put(st)
}

// renderError turns what stopped a render into a *jinja.Error: where, and
// its kind.
func (st *state) renderError(r any, ctx context.Context) error {
	var at *site
	var err error
	switch x := r.(type) {
	case failure:
		at, err = x.at, x.err
	case hostError:
		at, err = st.at, x.err
	case error:
		at, err = st.at, fmt.Errorf("render panicked: %w", x)
	default:
		at, err = st.at, fmt.Errorf("render panicked: %v", x)
	}
	if at == nil {
		at = st.at
	}
	kind, msg, cause := jinja.Render, err.Error(), unwrapCause(err)
	var ue *undefinedError
	if errors.As(err, &ue) {
		if ue.m.at != nil {
			at = ue.m.at // where the undefined value was made: the lookup that missed
		}
		cause = nil
	}
	var le *limitError
	var re *raised
	switch {
	case errors.Is(err, errStopped):
		cause = context.Cause(ctx)
		if cause == nil {
			cause = ctx.Err()
		}
		kind, msg = jinja.Canceled, "render stopped: "+cause.Error()
	case errors.As(err, &le):
		kind, cause = jinja.Budget, nil
	case errors.As(err, &re):
		kind, msg, cause = jinja.Raised, re.msg, nil
	}
	var e *jinja.Error
	if at == nil {
		e = &jinja.Error{Kind: kind, Msg: msg, Err: cause}
	} else {
		e = jinja.At(at.src, at.pos, kind, msg, cause)
	}
	if ue != nil {
		e.Kind = jinja.Undefined
		e.Expr, e.Value, e.Suggest = ue.parts()
	}
	return e
}

// unwrapCause keeps a host's error (a MarshalText failure) for errors.As.
func unwrapCause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return nil
}
