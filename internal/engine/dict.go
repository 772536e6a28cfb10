package engine

import "math"

// OrderedDict is a dict that keeps its keys in insertion order, as
// Python's do: dict literals in templates, namespace(…), and JSON decoded
// for chat templates (so a message's keys reach tojson in the order the
// file has them).
type OrderedDict struct {
	keys  []Value
	vals  []Value
	index map[dictKey]int
}

// dictKey is a key's identity, as Python's hash and == see it: 1, 1.0 and
// True are one key.
type dictKey struct {
	k Kind
	n int64
	s string
}

// keyOf returns v's identity as a dict key, or false if v cannot be one
// (lists, dicts, objects).
func keyOf(v Value) (dictKey, bool) {
	switch v.k {
	case Undefined:
		// Jinja's Undefined hashes, every one as the same key; a strict
		// one raises when hashed (and is refused by the caller).
		return dictKey{k: Undefined}, v.ref == nil
	case String:
		return dictKey{k: String, s: v.s}, true
	case Int, Bool:
		return dictKey{k: Int, n: v.n}, true
	case BigInt:
		return dictKey{k: BigInt, s: bigString(v)}, true
	case Float:
		f := v.float()
		if f == math.Trunc(f) && math.Abs(f) < 1<<62 {
			return dictKey{k: Int, n: int64(f)}, true
		}
		return dictKey{k: Float, n: v.n}, true
	case None:
		return dictKey{k: None}, true
	case Tuple:
		// A tuple holding a list or dict is unhashable, as in Python.
		// Tuples of scalars: their printed form is a faithful identity.
		if unhashable(v) != "" {
			return dictKey{}, false
		}
		s, err := reprString(v)
		if err != nil {
			return dictKey{}, false
		}
		return dictKey{k: Tuple, s: s}, true
	}
	return dictKey{}, false
}

// NewOrderedDict makes an empty dict.
func NewOrderedDict() *OrderedDict { return &OrderedDict{index: map[dictKey]int{}} }

// Set sets key to val; a new key goes last.
func (d *OrderedDict) Set(key, val Value) bool {
	k, ok := keyOf(key)
	if !ok {
		return false
	}
	if i, ok := d.index[k]; ok {
		d.vals[i] = val
		return true
	}
	d.index[k] = len(d.keys)
	d.keys = append(d.keys, key)
	d.vals = append(d.vals, val)
	return true
}

// SetString sets a string key.
func (d *OrderedDict) SetString(key string, val Value) { d.Set(strValue(key), val) }

func (d *OrderedDict) get(key Value) (Value, bool) {
	k, ok := keyOf(key)
	if !ok {
		return Value{}, false
	}
	i, ok := d.index[k]
	if !ok {
		return Value{}, false
	}
	return d.vals[i], true
}

func (d *OrderedDict) getString(key string) (Value, bool) {
	i, ok := d.index[dictKey{k: String, s: key}]
	if !ok {
		return Value{}, false
	}
	return d.vals[i], true
}

// Len is the number of keys.
func (d *OrderedDict) Len() int { return len(d.keys) }
