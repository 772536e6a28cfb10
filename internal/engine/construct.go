package engine

// Constructors of the values JSON has no form for, for hosts of the engine
// that build Python's values themselves (the harness that runs Jinja2's own
// test suite through promptkit passes Python's tuples, named tuples and
// Markup strings).

// NewTuple makes a tuple value.
func NewTuple(items []Value) Value { return tupleValue(items) }

// NewNamedTuple makes a tuple whose items are also attributes of the given
// names, as a Python namedtuple's are.
func NewNamedTuple(items []Value, names []string) Value {
	return Value{k: Tuple, ref: &seqData{items: items, names: names}}
}

// Markup makes a markup string (markupsafe.Markup): printed as it is, and
// escaped by nothing.
func Markup(s string) Value { return markupValue(s) }
