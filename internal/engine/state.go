package engine

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// One render's state: the output, the budgets, the activations of the
// frames running, and the chat sink. Every node of a render is given it;
// nothing of a compiled template is written while it renders.

// Limits bound one render; the zero value of a field is its default.
type Limits struct {
	MaxOutput     int              // bytes of output (DefaultMaxOutput)
	MaxIterations int              // loop iterations in all (DefaultMaxIterations)
	MaxMemory     int              // bytes of the values built during the render (4 × MaxOutput)
	MaxWork       int64            // units of work: one per loop iteration, item handled or 64 bytes processed (DefaultMaxWork)
	MaxCallDepth  int              // nested macro calls and recursive loops (DefaultMaxCallDepth)
	Now           func() time.Time // the clock of strftime_now (time.Now)
}

// Defaults of the limits.
const (
	DefaultMaxOutput     = 16 << 20
	DefaultMaxIterations = 1_000_000
	DefaultMaxWork       = 50_000_000
	DefaultMaxCallDepth  = 100
	valueSize            = 48 // bytes a Value takes, charged per list item built
)

// WithDefaults fills in the defaults of the fields left zero.
func (l Limits) WithDefaults() Limits {
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	if l.MaxIterations <= 0 {
		l.MaxIterations = DefaultMaxIterations
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = 4 * l.MaxOutput
	}
	if l.MaxWork <= 0 {
		l.MaxWork = DefaultMaxWork
	}
	if l.MaxCallDepth <= 0 {
		l.MaxCallDepth = DefaultMaxCallDepth
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	return l
}

// site is where a construct stands in the Jinja source: its file and
// byte offset. Line and column are computed only when an error needs them.
type site struct {
	src *jinja.Source
	pos jinja.Pos
}

// failure unwinds a render to its entry (Template.run), carrying the error.
type failure struct {
	at   *site
	kind error
	err  error
}

// limitError is a budget's refusal; the node that asked reports it.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// raised is raise_exception's error: its message is the template's own.
type raised struct{ msg string }

func (e *raised) Error() string { return e.msg }

// activation holds the slots of one closure frame's run (see jinja.Frame).
type activation struct {
	slots  []Value
	parent *activation
}

type state struct {
	out   output   // the render's output: its string is the result, without a copy
	caps  [][]byte // captures (macro bodies, set and filter blocks): writes go to the last
	max   int      // output limit
	over  bool     // the output limit was hit
	mem   int      // memory budget left, bytes
	work  int64    // work budget left
	iters int      // loop iterations left
	depth int      // nested calls
	lim   *Limits
	stop  *atomic.Bool // set when the render's context ends
	act   *activation
	at    *site     // the construct being evaluated, for errors raised deep inside
	sink  *chatSink // &chat in a render of messages, else nil
	// budget is a render within a token budget's (budget.go): the
	// regions it records, or the cuts it applies; nil in any other render.
	budget *budgetState
	// strict: a lookup that misses makes a strict undefined value
	// (undefined.go), which is an error wherever it is used.
	strict bool
	chat   chatSink
	args   []Value // scratch for call arguments
	json   []byte  // tojson's buffer, reused by the render's calls
	// jsonOpen: tojson's stack of the lists and dicts being written (the
	// cycle check), reused likewise.
	jsonOpen []uintptr
	loops    []*loopObj // loop objects of the loops running that reuse them (forDef.reuse), and spares
	nloop    int        // how many of loops are running
	root     activation
}

// takeLoop returns a loop object for a loop starting; putLoop gives it
// back when the loop ends. Loops nest, so the objects are a stack.
func (st *state) takeLoop() *loopObj {
	if st.nloop == len(st.loops) {
		st.loops = append(st.loops, new(loopObj))
	}
	st.nloop++
	return st.loops[st.nloop-1]
}

func (st *state) putLoop() {
	st.nloop--
	*st.loops[st.nloop] = loopObj{}
}

// Write and WriteString write a render's text: to the innermost capture,
// else to the output, which stops growing at its limit.
func (st *state) Write(p []byte) (int, error) { return st.WriteString(string(p)) }

func (st *state) WriteString(s string) (int, error) {
	if n := len(st.caps); n > 0 {
		if st.mem -= len(s); st.mem < 0 {
			st.over = true
			return 0, errMemory
		}
		st.caps[n-1] = append(st.caps[n-1], s...)
		return len(s), nil
	}
	if st.out.Len()+len(s) > st.max {
		st.over = true
		return 0, errOutput
	}
	st.out.write(s)
	return len(s), nil
}

var (
	errOutput = &limitError{"output limit reached"}
	errMemory = &limitError{"memory limit reached"}
)

// fail stops the render with err at site.
func (st *state) fail(at *site, err error) {
	panic(failure{at: at, err: err})
}

// check stops the render if err is not nil.
func (st *state) check(at *site, err error) {
	if err != nil {
		panic(failure{at: at, err: err})
	}
}

// charge takes n bytes from the memory budget before a value of that size
// is built.
func (st *state) charge(n int) error {
	if n < 0 || n > st.mem {
		return st.tooBig(n)
	}
	st.mem -= n
	st.work -= int64(n >> 6)
	return nil
}

// chargeItems charges a list of n items.
func (st *state) chargeItems(n int) error {
	if n < 0 || n > st.mem/valueSize {
		return st.tooBig(n * valueSize)
	}
	st.mem -= n * valueSize
	st.work -= int64(n)
	return nil
}

func (st *state) budgetLeft() int { return max(st.mem, 0) }

// tooBig is the error of a value of n bytes the budget cannot hold.
func (st *state) tooBig(n int) error {
	return &limitError{fmt.Sprintf("a value built by the template would take %d bytes, beyond the render's memory limit of %d (WithMaxMemory)", n, st.lim.MaxMemory)}
}

// spend takes units from the work budget, and checks the render's context.
func (st *state) spend(units int64) error {
	st.work -= units
	if st.work < 0 {
		return &limitError{fmt.Sprintf("the render would do more than %d units of work (WithMaxWork)", st.lim.MaxWork)}
	}
	if st.stop != nil && st.stop.Load() {
		return errStopped
	}
	return nil
}

// errStopped marks a render whose context ended; Template.run replaces it
// with the context's error.
var errStopped = errors.New("render stopped")

// push starts a capture; pop ends it and returns what was written.
func (st *state) push() {
	var b []byte
	st.caps = append(st.caps, b)
}

func (st *state) pop() string {
	n := len(st.caps) - 1
	s := string(st.caps[n])
	st.caps = st.caps[:n]
	return s
}
