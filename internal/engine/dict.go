package engine

import "math"

// OrderedDict is a dict that keeps its keys in insertion order, as
// Python's do: dict literals in templates, namespace(…), and JSON decoded
// for chat templates (so a message's keys reach tojson in the order the
// file has them).
type OrderedDict struct {
	keys  []Value
	vals  []Value
	index map[dictKey]int // nil while the dict has at most smallDict keys
}

// smallDict is the most keys a dict looks up by scanning them: a JSON
// message or tool call has a handful, and a scan of a few strings costs
// less than a hash and spares the map.
const smallDict = 8

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
func NewOrderedDict() *OrderedDict { return &OrderedDict{} }

// Set sets key to val; a new key goes last.
func (d *OrderedDict) Set(key, val Value) bool {
	k, ok := keyOf(key)
	if !ok {
		return false
	}
	if i := d.find(k); i >= 0 {
		d.vals[i] = val
		return true
	}
	switch {
	case d.index != nil:
		d.index[k] = len(d.keys)
	case len(d.keys) == smallDict:
		d.index = make(map[dictKey]int, 2*smallDict)
		for i, key := range d.keys {
			ki, _ := keyOf(key)
			d.index[ki] = i
		}
		d.index[k] = len(d.keys)
	}
	d.keys = append(d.keys, key)
	d.vals = append(d.vals, val)
	return true
}

// find returns the position of the key k, or -1.
func (d *OrderedDict) find(k dictKey) int {
	if d.index != nil {
		if i, ok := d.index[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range d.keys {
		if key.k == String {
			if k.k == String && key.s == k.s {
				return i
			}
			continue
		}
		if ki, _ := keyOf(key); ki == k {
			return i
		}
	}
	return -1
}

// SetString sets a string key.
func (d *OrderedDict) SetString(key string, val Value) { d.Set(strValue(key), val) }

func (d *OrderedDict) get(key Value) (Value, bool) {
	if key.k == String { // message['role']: without building a key
		return d.getString(key.s)
	}
	k, ok := keyOf(key)
	if !ok {
		return Value{}, false
	}
	if i := d.find(k); i >= 0 {
		return d.vals[i], true
	}
	return Value{}, false
}

func (d *OrderedDict) getString(key string) (Value, bool) {
	if d.index == nil {
		for i := range d.keys {
			if d.keys[i].k == String && d.keys[i].s == key {
				return d.vals[i], true
			}
		}
		return Value{}, false
	}
	if i, ok := d.index[dictKey{k: String, s: key}]; ok {
		return d.vals[i], true
	}
	return Value{}, false
}

// Len is the number of keys.
func (d *OrderedDict) Len() int { return len(d.keys) }
