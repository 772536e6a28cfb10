package jinja

// Scopes. Jinja resolves a name to the innermost frame that has bound it
// so far: the template's top level (its variables, and what set, macro
// and import bind there), a for loop's body (bound afresh for every
// iteration: what the body binds is gone at the next one), a with block,
// the body of a set block,
// an included template, a macro's body, a call block's body, a block of
// template inheritance, an imported module. The checks resolve every name
// once, at load, into a Symbol, and the runtime reads symbols from slots:
// no name is looked up while rendering.

// FrameKind says what made a frame.
type FrameKind int

const (
	FrameRoot      FrameKind = iota // a template's top level
	FrameLoop                       // a for loop's body, one activation of the body per iteration
	FrameRecursive                  // the body of a recursive for loop: a closure, re-entered by loop(…)
	FrameWith                       // {% with %}
	FrameSetBlock                   // the body of {% set x %}…{% endset %}: what it binds stays in it
	FrameInclude                    // an included template
	FrameMacro                      // a macro's body
	FrameCall                       // a call block's body: the caller() of its macro
	FrameBlock                      // a block of template inheritance
	FrameModule                     // an imported template's top level
)

// IsClosure reports whether a frame of this kind gets an activation of its
// own at run time (its own slots, made when it is entered); other frames'
// symbols live in the slots of the closure frame around them.
func (k FrameKind) IsClosure() bool {
	switch k {
	case FrameRoot, FrameRecursive, FrameMacro, FrameCall, FrameBlock, FrameModule:
		return true
	}
	return false
}

// Frame is one scope.
type Frame struct {
	Kind    FrameKind
	Node    Node   // the node that made it (nil for a root)
	Parent  *Frame // the frame names not bound here are looked up in; nil at a root without context
	Closure *Frame // the frame whose activation holds this frame's slots (itself if IsClosure)
	// Symbols are the names bound in the frame. On entry to the frame
	// (each iteration, for a loop) each starts as the value of its Outer
	// binding, or undefined: what a frame binds never leaks out of it,
	// and never survives into the next iteration.
	Symbols []*Symbol
	Slots   int // the number of slots of a closure frame's activation

	byName map[string]*Symbol
}

// SymbolKind says what a name is bound to.
type SymbolKind int

const (
	SymVariable SymbolKind = iota // a declared variable of the template (its input)
	SymLocal                      // bound by set, for, with, macro, import, a parameter
	SymLoop                       // the loop variable of a for frame
	SymCaller                     // caller, varargs or kwargs inside a macro
	SymSuper                      // super inside a block
	SymGlobal                     // a global of the runtime (range, namespace, …); no slot
)

// Symbol is one binding of a name.
type Symbol struct {
	Name  string
	Kind  SymbolKind
	Frame *Frame
	Slot  int     // index in Frame.Closure's activation (not for SymGlobal)
	Outer *Symbol // the outer binding it starts from on entry to its frame; nil: undefined
}

func newFrame(kind FrameKind, n Node, parent *Frame) *Frame {
	f := &Frame{Kind: kind, Node: n, Parent: parent, byName: map[string]*Symbol{}}
	if kind.IsClosure() || parent == nil {
		f.Closure = f
	} else {
		f.Closure = parent.Closure
	}
	return f
}

// bind binds name in f, or returns its existing binding there.
func (f *Frame) bind(name string, kind SymbolKind) *Symbol {
	if s, ok := f.byName[name]; ok {
		return s
	}
	s := &Symbol{Name: name, Kind: kind, Frame: f, Slot: f.Closure.Slots}
	f.Closure.Slots++
	if f.Kind != FrameRoot && f.Kind != FrameModule && f.Parent != nil && kind == SymLocal {
		s.Outer = f.Parent.lookup(name)
		if s.Outer != nil && s.Outer.Kind == SymGlobal {
			s.Outer = nil
		}
	}
	f.Symbols = append(f.Symbols, s)
	f.byName[name] = s
	return s
}

// Lookup returns the binding of name made in f itself, if any.
func (f *Frame) Lookup(name string) *Symbol { return f.byName[name] }

// lookup finds the innermost binding of name visible from f.
func (f *Frame) lookup(name string) *Symbol {
	for ; f != nil; f = f.Parent {
		if s, ok := f.byName[name]; ok {
			return s
		}
	}
	return nil
}

// Hops is how many closure activations a reference made in frame from
// must go up to reach s's activation.
func (s *Symbol) Hops(from *Frame) int {
	n := 0
	for c := from.Closure; c != s.Frame.Closure; n++ {
		if c.Parent == nil {
			return -1
		}
		c = c.Parent.Closure
	}
	return n
}
