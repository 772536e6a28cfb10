package engine

import (
	"math"
)

// Values. A template computes with Python's values, as Jinja does: None,
// booleans, integers, floats, strings, lists, tuples, dicts, and objects
// (namespaces, macros, the loop variable, a host's structs). A Value is a
// small struct passed by value, so scalars never allocate; containers
// point at their items, which may be the host's own data (a []any or
// map[string]any decoded from JSON, any Go slice, map or struct), read in
// place and never copied or called (see host.go).

// Kind is a value's Python type.
type Kind uint8

const (
	Undefined Kind = iota // a name or key that is not there: false, prints nothing
	None                  // Python's None
	Bool
	Int
	Float
	String
	List   // ref: *seqData, []any or a host slice (hostSeq)
	Tuple  // ref: *seqData
	Dict   // ref: *Dict, map[string]any or a host map (hostMap)
	Object // ref: one of the object types (namespace, macro, loop, host struct, …)
	BigInt // an integer beyond the int64 range: ref *big.Int, never changed (bigint.go)
)

// Value is one Python value.
type Value struct {
	k   Kind
	n   int64  // Int; Bool (0 or 1); Float (its bits); String: 1 when it is markup (escaped or marked safe)
	s   string // String
	ref any    // List, Tuple, Dict, Object
}

var (
	undefined = Value{}
	none      = Value{k: None}
	vTrue     = Value{k: Bool, n: 1}
	vFalse    = Value{k: Bool}
)

func boolValue(b bool) Value {
	if b {
		return vTrue
	}
	return vFalse
}

func intValue(n int64) Value     { return Value{k: Int, n: n} }
func floatValue(f float64) Value { return Value{k: Float, n: int64(math.Float64bits(f))} }
func strValue(s string) Value    { return Value{k: String, s: s} }
func markupValue(s string) Value { return Value{k: String, s: s, n: 1} }
func (v Value) isMarkup() bool   { return v.k == String && v.n == 1 }
func listValue(items []Value) Value {
	return Value{k: List, ref: &seqData{items: items}}
}
func tupleValue(items []Value) Value {
	return Value{k: Tuple, ref: &seqData{items: items}}
}
func objectValue(o any) Value { return Value{k: Object, ref: o} }

func (v Value) Kind() Kind     { return v.k }
func (v Value) float() float64 { return math.Float64frombits(uint64(v.n)) }
func (v Value) isNumber() bool { return v.k == Int || v.k == Float || v.k == Bool }
func (v Value) isSeq() bool    { return v.k == List || v.k == Tuple }

// seqData is a list or tuple the template built. A tuple may name its items
// (groupby's (grouper, list) pairs).
type seqData struct {
	items []Value
	names []string
	// lazy names the Python type of a lazy sequence the template made —
	// a generator (map, select…), a range, a dict view, a reverse
	// iterator — which prints as the list it makes but, as in Python, is
	// no JSON (tojson refuses it); "" for a list or tuple.
	lazy string
}

// lazySeq marks v, a list a builtin just made, as the lazy sequence
// Python would have made (see seqData.lazy).
func lazySeq(kind string, v Value, err error) (Value, error) {
	if sd, ok := v.ref.(*seqData); ok && err == nil {
		sd.lazy = kind
	}
	return v, err
}

// NewList makes a list value (for hosts of the engine that build values
// themselves, such as the Jinja2 suite's harness).
func NewList(items []Value) Value { return listValue(items) }

// Str makes a string value.
func Str(s string) Value { return strValue(s) }

// Int64 makes an integer value.
func Int64(n int64) Value { return intValue(n) }

// Float64 makes a float value.
func Float64(f float64) Value { return floatValue(f) }

// BoolOf makes a boolean value.
func BoolOf(b bool) Value { return boolValue(b) }

// NoneValue is Python's None.
func NoneValue() Value { return none }

// DictValue makes a dict value of d.
func DictValue(d *OrderedDict) Value { return Value{k: Dict, ref: d} }
