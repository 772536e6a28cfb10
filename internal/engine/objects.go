package engine

import (
	"fmt"
	"slices"
)

// The objects a template makes while it runs.

// namespace is namespace(…): the one value a template may change, by
// {% set ns.attr = … %}, so a loop can carry a result out of its body.
type namespace struct{ attrs *OrderedDict }

// module is an imported template: its macros and top-level names.
type module struct {
	file  string
	names *OrderedDict
}

// builtin is a global function as a value (range, dict, namespace, …).
type builtin struct {
	name string
	def  *builtinDef
}

// boundMethod is x.method read without calling it: it can be called
// later, printed or tested for truth.
type boundMethod struct {
	recv Value
	name string
}

// cycler is cycler(a, b, …).
type cycler struct {
	items []Value
	pos   int
}

// joiner is joiner(sep): empty the first time it is called, sep after.
type joiner struct {
	sep    string
	called bool
}

// macro is a macro value: its definition and the activation it was
// defined in, whose names its body reads (a closure).
type macro struct {
	def *macroDef
	act *activation
}

// loopObj is the loop variable of one run of a for loop.
type loopObj struct {
	def     *forDef
	outer   *activation // a recursive loop's: where loop(…) makes its activations
	items   iterator
	index   int // 0-based index of the current item
	n       int
	depth0  int
	changed Value // the last value loop.changed saw; undefined before the first call
	seen    bool
}

func (l *loopObj) attr(name string) (Value, error) {
	switch name {
	case "index":
		return intValue(int64(l.index + 1)), nil
	case "index0":
		return intValue(int64(l.index)), nil
	case "revindex":
		return intValue(int64(l.n - l.index)), nil
	case "revindex0":
		return intValue(int64(l.n - l.index - 1)), nil
	case "first":
		return boolValue(l.index == 0), nil
	case "last":
		return boolValue(l.index == l.n-1), nil
	case "length":
		return intValue(int64(l.n)), nil
	case "depth":
		return intValue(int64(l.depth0 + 1)), nil
	case "depth0":
		return intValue(int64(l.depth0)), nil
	case "previtem":
		if l.index == 0 {
			return undefined, nil
		}
		return l.items.at(l.index - 1), nil
	case "nextitem":
		if l.index+1 >= l.n {
			return undefined, nil
		}
		return l.items.at(l.index + 1), nil
	case "cycle", "changed":
		return objectValue(&boundMethod{recv: objectValue(l), name: name}), nil
	}
	return undefined, nil
}

// loopCycle is loop.cycle(a, b, …).
func (l *loopObj) cycle(args []Value) (Value, error) {
	if len(args) == 0 {
		return Value{}, fmt.Errorf("loop.cycle needs at least one value")
	}
	return args[l.index%len(args)], nil
}

// loopChanged is loop.changed(value): whether value differs from the
// value of the previous call.
func (l *loopObj) loopChanged(args []Value) Value {
	v := tupleValue(slices.Clone(args))
	if l.seen && equal(v, l.changed) {
		return vFalse
	}
	l.seen, l.changed = true, v
	return vTrue
}
