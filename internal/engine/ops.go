package engine

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// Python's semantics of the operations a template applies to values:
// truth, length, iteration, attribute and item access, equality, order,
// arithmetic and containment.

// errUndefinedUse is raised when an undefined value is used where Jinja's
// Undefined raises (attribute of undefined, arithmetic on it).
var errUndefinedUse = errors.New("undefined value")

// truthy is Python's bool(v).
func truthy(v Value) bool {
	switch v.k {
	case Undefined:
		if v.ref != nil {
			panic(failure{err: undefinedUse(v, "tested for truth")})
		}
		return false
	case None:
		return false
	case Bool, Int:
		return v.n != 0
	case Float:
		return v.float() != 0
	case String:
		return v.s != ""
	case List, Tuple, Dict:
		return length(v) > 0
	case Object:
		if b, ok := v.ref.(hostBytes); ok {
			return len(b) > 0
		}
	}
	return true
}

// truth is truthy(v) for a construct at at: a strict undefined value is
// an error placed there unless its lookup says where it was made.
func (st *state) truth(at *site, v Value) bool {
	if v.k == Undefined {
		st.mustUse(at, v, "tested for truth")
	}
	return truthy(v)
}

// typeName names the value's type for messages, in words a template's
// author knows (integer, string, mapping), not Python's abbreviations.
func typeName(v Value) string {
	switch v.k {
	case Undefined:
		return "undefined"
	case None:
		return "None"
	case Bool:
		return "boolean"
	case Int, BigInt:
		return "integer"
	case Float:
		return "float"
	case String:
		return "string"
	case List:
		return "list"
	case Tuple:
		return "tuple"
	case Dict:
		return "mapping"
	}
	switch o := v.ref.(type) {
	case *namespace:
		return "Namespace"
	case *macro:
		return "macro"
	case *loopObj:
		return "LoopContext"
	case *module:
		return "module"
	case *builtin:
		return "builtin_function"
	case *boundMethod:
		return "builtin_method"
	case hostBytes:
		return "bytes"
	case hostStruct:
		return o.v.Type().String()
	case hostOpaque:
		return o.typ
	}
	return fmt.Sprintf("%T", v.ref)
}

// length is len(v) for containers and strings (0 for undefined), -1 for
// values without a length.
func length(v Value) int {
	switch v.k {
	case Undefined:
		return 0
	case String:
		return runeCount(v.s)
	case List, Tuple:
		return seqLen(v)
	case Dict:
		switch r := v.ref.(type) {
		case *OrderedDict:
			return r.Len()
		case map[string]any:
			return len(r)
		case hostMap:
			return r.v.Len()
		}
	case Object:
		switch o := v.ref.(type) {
		case hostBytes:
			return len(o)
		case *namespace:
			return o.attrs.Len()
		}
	}
	return -1
}

func runeCount(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.RuneCountInString(s)
		}
	}
	return len(s)
}

func seqLen(v Value) int {
	switch r := v.ref.(type) {
	case *seqData:
		return len(r.items)
	case []any:
		return len(r)
	case hostSeq:
		return r.v.Len()
	}
	return 0
}

func seqAt(v Value, i int) Value {
	switch r := v.ref.(type) {
	case *seqData:
		return r.items[i]
	case []any:
		return FromGo(r[i])
	case hostSeq:
		return fromReflect(r.v.Index(i))
	}
	return undefined
}

// iterator walks what Python iterates: a list's items, a dict's keys (in
// insertion order for dicts the template built, sorted for the host's
// maps, which have none), a string's characters.
type iterator struct {
	seq  Value   // a List or Tuple, read in place
	vals []Value // otherwise, the items
	n    int
}

func (it *iterator) at(i int) Value {
	if it.vals != nil {
		return it.vals[i]
	}
	return seqAt(it.seq, i)
}

// iterate returns v's items, or an error for a value that is not iterable.
func iterate(v Value) (iterator, error) {
	switch v.k {
	case Undefined:
		if err := undefinedUse(v, "iterated"); err != nil {
			return iterator{}, err
		}
		return iterator{vals: []Value{}}, nil
	case List, Tuple:
		return iterator{seq: v, n: seqLen(v)}, nil
	case String:
		chars := make([]Value, 0, len(v.s))
		for i, r := range v.s {
			chars = append(chars, strValue(v.s[i:i+utf8.RuneLen(r)]))
		}
		return iterator{vals: chars, n: len(chars)}, nil
	case Dict:
		keys := dictKeys(v)
		return iterator{vals: keys, n: len(keys)}, nil
	case Object:
		switch o := v.ref.(type) {
		case hostBytes:
			out := make([]Value, len(o))
			for i, b := range o {
				out[i] = intValue(int64(b))
			}
			return iterator{vals: out, n: len(out)}, nil
		case *loopObj:
			return iterator{}, fmt.Errorf("the loop variable is not iterable")
		}
	}
	return iterator{}, fmt.Errorf("%s is not iterable", typeName(v))
}

// values returns every item of an iterable.
func values(v Value) ([]Value, error) {
	it, err := iterate(v)
	if err != nil {
		return nil, err
	}
	if it.vals != nil {
		return it.vals, nil
	}
	out := make([]Value, it.n)
	for i := range out {
		out[i] = it.at(i)
	}
	return out, nil
}

// dictKeys returns a dict's keys in iteration order.
func dictKeys(v Value) []Value {
	switch r := v.ref.(type) {
	case *OrderedDict:
		return slices.Clone(r.keys)
	case map[string]any:
		keys := make([]string, 0, len(r))
		for k := range r {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([]Value, len(keys))
		for i, k := range keys {
			out[i] = strValue(k)
		}
		return out
	case hostMap:
		keys := r.keys()
		sortKeys(keys)
		return keys
	}
	return nil
}

// sortKeys orders a host map's keys: numbers by value, strings by code
// point, anything else by its printed form.
func sortKeys(keys []Value) {
	slices.SortStableFunc(keys, func(a, b Value) int {
		if c, err := compare(a, b); err == nil {
			return c
		}
		sa, _ := strString(a)
		sb, _ := strString(b)
		return strings.Compare(sa, sb)
	})
}

// dictGet looks a key up.
func dictGet(v Value, key Value) (Value, bool) {
	switch r := v.ref.(type) {
	case *OrderedDict:
		return r.get(key)
	case map[string]any:
		if key.k != String {
			return Value{}, false
		}
		x, ok := r[key.s]
		if !ok {
			return Value{}, false
		}
		return FromGo(x), true
	case hostMap:
		return r.get(key)
	}
	return Value{}, false
}

// dictGetString looks a string key up without building a key value.
func dictGetString(v Value, key string) (Value, bool) {
	switch r := v.ref.(type) {
	case map[string]any:
		x, ok := r[key]
		if !ok {
			return Value{}, false
		}
		return FromGo(x), true
	case *OrderedDict:
		return r.getString(key)
	}
	return dictGet(v, strValue(key))
}

// dictMethods, strMethods and listMethods are the names Python's types
// answer as attributes (bound methods), before any key of the same name.
var (
	dictMethods = []string{"items", "keys", "values", "get", "pop", "popitem", "setdefault", "update", "copy", "clear"}
	listMethods = []string{"append", "extend", "insert", "remove", "pop", "clear", "index", "count", "sort", "reverse", "copy"}
)

// getAttr is Jinja's x.name: the attribute, else the item of that name,
// else undefined.
func getAttr(v Value, name string) (Value, error) {
	switch v.k {
	case Undefined:
		return Value{}, errUndefinedUse
	case Dict:
		if slices.Contains(dictMethods, name) {
			return objectValue(&boundMethod{recv: v, name: name}), nil
		}
		if x, ok := dictGetString(v, name); ok {
			return x, nil
		}
		return undefined, nil
	case String:
		if _, ok := tables().methods[name]; ok {
			return objectValue(&boundMethod{recv: v, name: name}), nil
		}
		return undefined, nil
	case List, Tuple:
		if d, ok := v.ref.(*seqData); ok && d.names != nil {
			if i := slices.Index(d.names, name); i >= 0 {
				return d.items[i], nil // a named tuple's field (groupby's grouper, list)
			}
		}
		if slices.Contains(listMethods, name) {
			return objectValue(&boundMethod{recv: v, name: name}), nil
		}
		if sd, ok := v.ref.(*seqData); ok {
			// A named tuple: groupby's (grouper, list).
			if i := slices.Index(sd.names, name); i >= 0 {
				return sd.items[i], nil
			}
		}
		return undefined, nil
	case Object:
		switch o := v.ref.(type) {
		case *namespace:
			if x, ok := o.attrs.getString(name); ok {
				return x, nil
			}
		case *module:
			if x, ok := o.names.getString(name); ok {
				return x, nil
			}
		case *loopObj:
			return o.attr(name)
		case *macro:
			return o.attr(name), nil
		case *cycler:
			switch name {
			case "current":
				return o.items[o.pos%len(o.items)], nil
			case "next", "reset":
				return objectValue(&boundMethod{recv: v, name: name}), nil
			}
		case hostStruct:
			if x, ok := o.field(name); ok {
				return x, nil
			}
		}
	}
	return undefined, nil
}

// getItem is Jinja's x[key]: the item, else the attribute named key, else
// undefined.
func getItem(v Value, key Value) (Value, error) {
	switch v.k {
	case Undefined:
		return Value{}, errUndefinedUse
	case List, Tuple:
		if key.k == Int || key.k == Bool {
			n := int64(seqLen(v))
			i := key.n
			if i < 0 {
				i += n
			}
			if i < 0 || i >= n {
				return undefined, nil
			}
			return seqAt(v, int(i)), nil
		}
		if key.k == Object {
			if _, ok := key.ref.(*sliceKey); ok {
				return Value{}, errors.New("internal: slice key")
			}
		}
	case String:
		if key.k == Int || key.k == Bool {
			return markupLike(v, strIndex(v.s, key.n)), nil
		}
	case Dict:
		if x, ok := dictGet(v, key); ok {
			return x, nil
		}
		return undefined, nil
	case Object:
		if b, ok := v.ref.(hostBytes); ok && (key.k == Int || key.k == Bool) {
			i := key.n
			if i < 0 {
				i += int64(len(b))
			}
			if i < 0 || i >= int64(len(b)) {
				return undefined, nil
			}
			return intValue(int64(b[i])), nil
		}
	}
	if key.k == String {
		return getAttr(v, key.s)
	}
	return undefined, nil
}

// sliceKey is never a value; it marks an internal misuse.
type sliceKey struct{}

// strIndex is s[i] by code point.
func strIndex(s string, i int64) Value {
	if isASCII(s) {
		n := int64(len(s))
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return undefined
		}
		return strValue(s[i : i+1])
	}
	rs := []rune(s)
	n := int64(len(rs))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return undefined
	}
	return strValue(string(rs[i]))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// maxCompareDepth bounds the nesting equality and order descend: a value
// that contains itself ends there with an error, not a stack overflow.
const maxCompareDepth = 200

var errTooDeep = fmt.Errorf("value nested deeper than %d levels (or containing itself)", maxCompareDepth)

// equal is Python's ==.
func equal(a, b Value) bool {
	eq, err := equalDepth(a, b, 0)
	if err != nil {
		panic(hostError{err})
	}
	return eq
}

func equalDepth(a, b Value, depth int) (bool, error) {
	if depth > maxCompareDepth {
		return false, errTooDeep
	}
	if a.isNumber() && b.isNumber() {
		if a.k == Float || b.k == Float {
			return toFloat(a) == toFloat(b), nil
		}
		return a.n == b.n, nil
	}
	if (a.k == BigInt || b.k == BigInt) && (a.isNumber() || a.k == BigInt) && (b.isNumber() || b.k == BigInt) {
		c, ok := bigCompare(a, b)
		return ok && c == 0, nil
	}
	if a.k == Undefined || b.k == Undefined {
		if err := undefinedUse(a, "compared"); err != nil {
			return false, err
		}
		if err := undefinedUse(b, "compared"); err != nil {
			return false, err
		}
	}
	if a.k != b.k {
		return false, nil
	}
	switch a.k {
	case Undefined, None:
		return true, nil
	case String:
		return a.s == b.s, nil
	case List, Tuple:
		if sameRef(a, b) {
			return true, nil
		}
		n := seqLen(a)
		if n != seqLen(b) {
			return false, nil
		}
		for i := 0; i < n; i++ {
			eq, err := equalDepth(seqAt(a, i), seqAt(b, i), depth+1)
			if err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	case Dict:
		if sameRef(a, b) {
			return true, nil
		}
		ka := dictKeys(a)
		if len(ka) != length(b) {
			return false, nil
		}
		for _, k := range ka {
			va, _ := dictGet(a, k)
			vb, ok := dictGet(b, k)
			if !ok {
				return false, nil
			}
			eq, err := equalDepth(va, vb, depth+1)
			if err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	case Object:
		if x, ok := a.ref.(hostBytes); ok {
			y, ok := b.ref.(hostBytes)
			return ok && string(x) == string(y), nil
		}
		return sameRef(a, b), nil
	}
	return false, nil
}

// sameRef reports whether two containers or objects are the same one.
func sameRef(a, b Value) bool {
	pa, oka := refPointer(a)
	pb, okb := refPointer(b)
	return oka && okb && pa == pb
}

// refPointer identifies a container or object, for identity and cycles.
func refPointer(v Value) (uintptr, bool) {
	switch r := v.ref.(type) {
	case nil:
		return 0, false
	case *seqData:
		return reflect.ValueOf(r).Pointer(), true
	case *OrderedDict:
		return reflect.ValueOf(r).Pointer(), true
	case []any:
		if len(r) == 0 {
			return 0, false
		}
		return reflect.ValueOf(r).Pointer(), true
	case map[string]any:
		return reflect.ValueOf(r).Pointer(), true
	case hostSeq:
		if r.v.Kind() == reflect.Slice && r.v.Len() > 0 {
			return r.v.Pointer(), true
		}
		return 0, false
	case hostMap:
		return r.v.Pointer(), true
	case hostStruct:
		if r.p.IsValid() {
			return r.p.Pointer(), true
		}
		return 0, false
	case hostBytes, hostOpaque:
		return 0, false
	}
	rv := reflect.ValueOf(v.ref)
	if rv.Kind() == reflect.Pointer {
		return rv.Pointer(), true
	}
	return 0, false
}

func toFloat(v Value) float64 {
	if v.k == Float {
		return v.float()
	}
	return float64(v.n)
}

// compare orders a and b as Python's < does, or reports that it cannot.
func compare(a, b Value) (int, error) {
	return compareDepth(a, b, 0)
}

func compareDepth(a, b Value, depth int) (int, error) {
	if depth > maxCompareDepth {
		return 0, errTooDeep
	}
	switch {
	case a.isNumber() && b.isNumber():
		if a.k != Float && b.k != Float {
			return cmpInt(a.n, b.n), nil
		}
		fa, fb := toFloat(a), toFloat(b)
		switch {
		case fa < fb:
			return -1, nil
		case fa > fb:
			return 1, nil
		}
		return 0, nil
	case a.k == String && b.k == String:
		return strings.Compare(a.s, b.s), nil
	case (a.k == BigInt || b.k == BigInt) && (a.isNumber() || a.k == BigInt) && (b.isNumber() || b.k == BigInt):
		if c, ok := bigCompare(a, b); ok {
			return c, nil
		}
		return 1, nil // NaN: every comparison false but >… as compare's callers see it
	case a.isSeq() && a.k == b.k:
		na, nb := seqLen(a), seqLen(b)
		for i := 0; i < min(na, nb); i++ {
			x, y := seqAt(a, i), seqAt(b, i)
			eq, err := equalDepth(x, y, depth+1)
			if err != nil {
				return 0, err
			}
			if !eq {
				return compareDepth(x, y, depth+1)
			}
		}
		return cmpInt(int64(na), int64(nb)), nil
	}
	if err := undefinedUse(a, "compared"); err != nil {
		return 0, err
	}
	if err := undefinedUse(b, "compared"); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("'<' not supported between %s and %s", typeName(a), typeName(b))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// contains is Python's item in container.
func contains(container, item Value) (bool, error) {
	switch container.k {
	case Undefined:
		if err := undefinedUse(container, "searched with in"); err != nil {
			return false, err
		}
		return false, nil
	case String:
		if item.k != String {
			return false, fmt.Errorf("'in <string>' requires a string as left operand, not %s", typeName(item))
		}
		return strings.Contains(container.s, item.s), nil
	case List, Tuple:
		n := seqLen(container)
		for i := 0; i < n; i++ {
			if equal(seqAt(container, i), item) {
				return true, nil
			}
		}
		return false, nil
	case Dict:
		if t := unhashable(item); t != "" {
			return false, fmt.Errorf("unhashable type: '%s'", t)
		}
		if err := undefinedUse(item, "looked up as a key"); err != nil {
			return false, err
		}
		_, ok := dictGet(container, item)
		return ok, nil
	case Object:
		switch o := container.ref.(type) {
		case hostBytes:
			if item.k == Int {
				return slices.Contains(o, byte(item.n)), nil
			}
		case *namespace:
			_, ok := o.attrs.get(item)
			return ok, nil
		}
	}
	return false, fmt.Errorf("argument of type %s is not iterable", typeName(container))
}

// Arithmetic, with Python's rules: int op int stays int (but / is true
// division), an int result beyond 64 bits is an error (never a silently
// wrapped or rounded number), strings and lists concatenate with + and
// repeat with *.

var errOverflow = errors.New("integer overflow: the result does not fit in 64 bits")

func arith(st *state, op string, a, b Value) (Value, error) {
	if op == "%" && a.k == String && b.k == Undefined {
		return percentFormat(st, a.s, b) // "%s" % undefined: str() of it, ""
	}
	if a.k == Undefined || b.k == Undefined {
		if err := undefinedUse(a, "used in "+op); err != nil {
			return Value{}, err
		}
		if err := undefinedUse(b, "used in "+op); err != nil {
			return Value{}, err
		}
		return Value{}, errUndefinedUse
	}
	if a.isNumber() && b.isNumber() {
		if a.k != Float && b.k != Float {
			r, err := intArith(op, a.n, b.n)
			if errors.Is(err, errOverflow) {
				return bigArith(st, op, a, b) // beyond 64 bits: Python's int has no bound
			}
			return r, err
		}
		return floatArith(op, toFloat(a), toFloat(b))
	}
	if (a.k == BigInt || b.k == BigInt) && (a.isNumber() || a.k == BigInt) && (b.isNumber() || b.k == BigInt) {
		if a.k != Float && b.k != Float {
			return bigArith(st, op, a, b)
		}
		fa, err := numFloat(a)
		if err != nil {
			return Value{}, err
		}
		fb, err := numFloat(b)
		if err != nil {
			return Value{}, err
		}
		return floatArith(op, fa, fb)
	}
	switch op {
	case "+":
		if a.k == String && b.k == String {
			if err := st.charge(len(a.s) + len(b.s)); err != nil {
				return Value{}, err
			}
			if a.isMarkup() || b.isMarkup() {
				if err := st.charge(len(a.s) + len(b.s)); err != nil {
					return Value{}, err
				}
				return markupConcat(a, b)
			}
			return strValue(a.s + b.s), nil
		}
		if a.isSeq() && a.k == b.k {
			na, nb := seqLen(a), seqLen(b)
			if err := st.chargeItems(na + nb); err != nil {
				return Value{}, err
			}
			out := make([]Value, 0, na+nb)
			for i := 0; i < na; i++ {
				out = append(out, seqAt(a, i))
			}
			for i := 0; i < nb; i++ {
				out = append(out, seqAt(b, i))
			}
			return Value{k: a.k, ref: &seqData{items: out}}, nil
		}
	case "*":
		if a.k == Int || a.k == Bool {
			a, b = b, a
		}
		if b.k == Int || b.k == Bool {
			n := max(b.n, 0)
			switch {
			case a.k == String:
				if len(a.s) > 0 && n > int64(st.budgetLeft()/len(a.s))+1 {
					return Value{}, st.tooBig(len(a.s) * int(min(n, math.MaxInt32)))
				}
				if err := st.charge(len(a.s) * int(n)); err != nil {
					return Value{}, err
				}
				return markupLike(a, strValue(strings.Repeat(a.s, int(n)))), nil
			case a.isSeq():
				na := seqLen(a)
				if na > 0 && n > int64(st.budgetLeft()/(na*valueSize))+1 {
					return Value{}, st.tooBig(na * valueSize * int(min(n, math.MaxInt32)))
				}
				if err := st.chargeItems(na * int(n)); err != nil {
					return Value{}, err
				}
				out := make([]Value, 0, na*int(n))
				for r := int64(0); r < n; r++ {
					for i := 0; i < na; i++ {
						out = append(out, seqAt(a, i))
					}
				}
				return Value{k: a.k, ref: &seqData{items: out}}, nil
			}
		}
	case "%":
		if a.k == String {
			return percentFormatEscaped(st, a.s, b, a.isMarkup())
		}
	}
	return Value{}, fmt.Errorf("unsupported operand types for %s: %s and %s", op, typeName(a), typeName(b))
}

func intArith(op string, x, y int64) (Value, error) {
	switch op {
	case "+":
		r := x + y
		if (r > x) != (y > 0) {
			return Value{}, errOverflow
		}
		return intValue(r), nil
	case "-":
		r := x - y
		if (r < x) != (y > 0) {
			return Value{}, errOverflow
		}
		return intValue(r), nil
	case "*":
		if x == 0 || y == 0 {
			return intValue(0), nil
		}
		r := x * y
		if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return Value{}, errOverflow
		}
		return intValue(r), nil
	case "/":
		if y == 0 {
			return Value{}, errors.New("division by zero")
		}
		return floatValue(float64(x) / float64(y)), nil
	case "//":
		if y == 0 {
			return Value{}, errors.New("integer division by zero")
		}
		if x == math.MinInt64 && y == -1 {
			return Value{}, errOverflow
		}
		q := x / y
		if x%y != 0 && (x < 0) != (y < 0) {
			q--
		}
		return intValue(q), nil
	case "%":
		if y == 0 {
			return Value{}, errors.New("integer modulo by zero")
		}
		if y == -1 {
			return intValue(0), nil
		}
		m := x % y
		if m != 0 && (m < 0) != (y < 0) {
			m += y
		}
		return intValue(m), nil
	case "**":
		if y < 0 {
			return floatValue(math.Pow(float64(x), float64(y))), nil
		}
		r, b := int64(1), x
		for e := y; e > 0; e >>= 1 {
			if e&1 == 1 {
				nr, err := intArith("*", r, b)
				if err != nil {
					return Value{}, err
				}
				r = nr.n
			}
			if e > 1 {
				nb, err := intArith("*", b, b)
				if err != nil {
					return Value{}, err
				}
				b = nb.n
			}
		}
		return intValue(r), nil
	}
	return Value{}, fmt.Errorf("unknown operator %s", op)
}

func floatArith(op string, x, y float64) (Value, error) {
	switch op {
	case "+":
		return floatValue(x + y), nil
	case "-":
		return floatValue(x - y), nil
	case "*":
		return floatValue(x * y), nil
	case "/":
		if y == 0 {
			return Value{}, errors.New("float division by zero")
		}
		return floatValue(x / y), nil
	case "//":
		if y == 0 {
			return Value{}, errors.New("float floor division by zero")
		}
		d, _ := floatDivmod(x, y)
		return floatValue(d), nil
	case "%":
		if y == 0 {
			return Value{}, errors.New("float modulo by zero")
		}
		_, m := floatDivmod(x, y)
		return floatValue(m), nil
	case "**":
		if x == 0 && y < 0 {
			return Value{}, errors.New("0.0 cannot be raised to a negative power")
		}
		return floatValue(math.Pow(x, y)), nil
	}
	return Value{}, fmt.Errorf("unknown operator %s", op)
}

// attr is a macro's attributes, as Jinja's Macro has them: its name, the
// names of its parameters, and whether its body uses varargs, kwargs and
// caller.
func (m *macro) attr(name string) Value {
	d := m.def
	switch name {
	case "name":
		return strValue(d.name)
	case "arguments":
		names := make([]Value, len(d.params))
		for i, p := range d.params {
			names[i] = strValue(p.name)
		}
		return tupleValue(names)
	case "catch_varargs":
		return boolValue(d.varargs >= 0)
	case "catch_kwargs":
		return boolValue(d.kwargs >= 0)
	case "caller":
		return boolValue(d.caller >= 0)
	}
	return undefined
}

// unhashable names the Python type of a value that cannot be a dict key
// (a list, a dict, or a tuple holding one), which "in" of a dict refuses
// as Python does; "" for a hashable value.
func unhashable(v Value) string {
	switch v.k {
	case List:
		return "list"
	case Dict:
		return "dict"
	case Tuple:
		for i := 0; i < seqLen(v); i++ {
			if t := unhashable(seqAt(v, i)); t != "" {
				return t
			}
		}
	}
	return ""
}

// floatDivmod is CPython's float divmod: the remainder has the divisor's
// sign (a zero one too: -0.0 % 1 is 0.0), and the quotient is computed
// from it, so 1 // 0.1 is 9.0, as Python has it, not floor(1 / 0.1).
func floatDivmod(x, y float64) (div, mod float64) {
	mod = math.Mod(x, y)
	div = (x - mod) / y
	if mod != 0 {
		if (y < 0) != (mod < 0) {
			mod += y
			div -= 1
		}
	} else {
		mod = math.Copysign(0, y)
	}
	if div != 0 {
		f := math.Floor(div)
		if div-f > 0.5 {
			f++
		}
		div = f
	} else {
		div = math.Copysign(0, x/y)
	}
	return div, mod
}
