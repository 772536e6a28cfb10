package manager

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/flosch/pongo2/v6"
)

// Python's value semantics, which Jinja templates are written against:
// how values print, which are true, how they compare and iterate.

// noneType is Python's None: a value that was passed as nil. It prints
// "None", is false, and is defined (unlike a variable that was not passed,
// which pongo2 sees as nil and Jinja as undefined).
type noneType uint8

const none noneType = 0

func (noneType) String() string { return "None" }

// unwrap returns the Go value inside a pongo2 value.
func unwrap(v *pongo2.Value) any {
	if v == nil {
		return nil
	}
	return v.Interface()
}

// pyStr is str(v) in Python; an undefined value (nil) prints nothing.
func pyStr(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case noneType:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return pyFloat(v)
	case json.Number:
		return v.String()
	case *pongo2.Value:
		return pyStr(unwrap(v))
	case []byte:
		return pyRepr(v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Float32:
		return pyFloat(float64(float32(rv.Float())))
	case reflect.Float64:
		return pyFloat(rv.Float())
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return pyStr(rv.Bool())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return "None"
		}
		if s, ok := v.(fmt.Stringer); ok {
			return s.String()
		}
		return pyStr(rv.Elem().Interface())
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return pyRepr(v)
}

// pyFloat formats a float as Python's repr does: the shortest digits that
// round-trip, "1.0" for integral values, exponent form outside 1e-4..1e16.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	exp := int(math.Floor(math.Log10(math.Abs(f))))
	// Recompute the exponent from the shortest digits: Log10 can be off by one.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	if i := strings.IndexByte(e, 'e'); i >= 0 {
		exp, _ = strconv.Atoi(e[i+1:])
	}
	if exp < -4 || exp >= 16 {
		mant, ex, _ := strings.Cut(e, "e")
		sign := ex[0]
		digits := strings.TrimLeft(ex[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + string(sign) + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// pyRepr is repr(v): how Python prints a value inside a list or dict.
func pyRepr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil, noneType:
		b.WriteString("None")
		return
	case string:
		b.WriteString(pyQuote(x))
		return
	case []byte:
		b.WriteString("b" + pyQuote(string(x)))
		return
	case *pongo2.Value:
		writeRepr(b, unwrap(x))
		return
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		b.WriteString(pyQuote(rv.String()))
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, rv.Index(i).Interface())
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := sortedMapKeys(rv)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, k.Interface())
			b.WriteString(": ")
			writeRepr(b, rv.MapIndex(k).Interface())
		}
		b.WriteByte('}')
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("None")
			return
		}
		writeRepr(b, rv.Elem().Interface())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		b.WriteString(pyStr(v))
	default:
		// Structs, funcs, channels: Python would print an object's repr;
		// Go's own formatting is the closest honest equivalent (and must not
		// go back through pyStr, which sends non-scalars here).
		if s, ok := v.(fmt.Stringer); ok {
			b.WriteString(s.String())
			return
		}
		fmt.Fprintf(b, "%+v", v)
	}
}

// pyQuote quotes a string as Python's repr does.
func pyQuote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// sortedMapKeys orders map keys the way promptkit iterates mappings:
// sorted, since Go maps have no order (strings by bytes, numbers by value).
func sortedMapKeys(rv reflect.Value) []reflect.Value {
	keys := rv.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	return keys
}

func lessKey(a, b reflect.Value) bool {
	for a.Kind() == reflect.Interface {
		a = a.Elem()
	}
	for b.Kind() == reflect.Interface {
		b = b.Elem()
	}
	if a.Kind() == reflect.String && b.Kind() == reflect.String {
		return a.String() < b.String()
	}
	fa, oka := toFloat(a.Interface())
	fb, okb := toFloat(b.Interface())
	if oka && okb {
		return fa < fb
	}
	return fmt.Sprint(a.Interface()) < fmt.Sprint(b.Interface())
}

// truthy is Python's bool(v).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil, noneType:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String, reflect.Chan:
		return rv.Len() > 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return rv.Uint() != 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0
	case reflect.Bool:
		return rv.Bool()
	case reflect.Pointer, reflect.Interface:
		return !rv.IsNil()
	}
	return true
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case noneType:
		return 0, false
	case int:
		return int64(x), true
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(rv.Uint()), true
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	if _, ok := v.(noneType); ok {
		return 0, false
	}
	if i, ok := toInt(v); ok {
		return float64(i), true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Float32 || rv.Kind() == reflect.Float64 {
		return rv.Float(), true
	}
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func isFloat(v any) bool {
	k := reflect.ValueOf(v).Kind()
	return k == reflect.Float32 || k == reflect.Float64
}

// pyEq is Python's ==.
func pyEq(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			return fa == fb
		}
		return false
	}
	if sa, ok := asString(a); ok {
		sb, ok := asString(b)
		return ok && sa == sb
	}
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if isSeq(ra) && isSeq(rb) {
		if ra.Len() != rb.Len() {
			return false
		}
		for i := 0; i < ra.Len(); i++ {
			if !pyEq(ra.Index(i).Interface(), rb.Index(i).Interface()) {
				return false
			}
		}
		return true
	}
	if ra.Comparable() && rb.Comparable() && ra.Type() == rb.Type() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

func isSeq(rv reflect.Value) bool {
	return rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array
}

func asString(v any) (string, bool) {
	if s, ok := v.(string); ok {
		return s, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		return rv.String(), true
	}
	return "", false
}

// pyCompare orders two values as Python does for numbers and strings; other
// combinations are an error, as in Python.
func pyCompare(a, b any) (int, error) {
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			switch {
			case fa < fb:
				return -1, nil
			case fa > fb:
				return 1, nil
			}
			return 0, nil
		}
	}
	if sa, ok := asString(a); ok {
		if sb, ok := asString(b); ok {
			return strings.Compare(sa, sb), nil
		}
	}
	return 0, fmt.Errorf("cannot compare %s with %s", kindName(a), kindName(b))
}

// kindName names a value's kind for error messages, in Python's words.
func kindName(v any) string {
	switch v.(type) {
	case nil:
		return "undefined"
	case noneType:
		return "None"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map:
		return "mapping"
	case reflect.String:
		return "string"
	case reflect.Struct:
		return "object " + rv.Type().String()
	}
	return rv.Type().String()
}

// iterate returns the items Python would iterate: list elements, mapping
// keys (sorted), string characters.
func iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return x, nil
	case string:
		out := make([]any, 0, utf8.RuneCountInString(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out, nil
	case reflect.Map:
		keys := sortedMapKeys(rv)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = k.Interface()
		}
		return out, nil
	case reflect.String:
		return iterate(rv.String())
	case reflect.Pointer:
		if !rv.IsNil() {
			return iterate(rv.Elem().Interface())
		}
	}
	return nil, fmt.Errorf("%s is not iterable", kindName(v))
}

// pyLen is len(v).
func pyLen(v any) (int, error) {
	switch x := v.(type) {
	case string:
		return utf8.RuneCountInString(x), nil
	case nil:
		return 0, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len(), nil
	case reflect.String:
		return utf8.RuneCountInString(rv.String()), nil
	}
	return 0, fmt.Errorf("object of kind %s has no length", kindName(v))
}

// getAttr is Jinja's attribute lookup: a mapping's key, a struct's field
// or a pointer's target; a missing one is undefined (nil).
func getAttr(v any, name string) any {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil
		}
		mv := rv.MapIndex(reflect.ValueOf(name).Convert(rv.Type().Key()))
		if !mv.IsValid() {
			return nil
		}
		return mv.Interface()
	case reflect.Struct:
		f := rv.FieldByName(name)
		if !f.IsValid() || !f.CanInterface() {
			return nil
		}
		return f.Interface()
	}
	return nil
}

// getItem is Jinja's subscript: sequences by (possibly negative) integer,
// mappings by key; a missing one is undefined (nil).
func getItem(v any, key any) any {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.String:
		i, ok := toInt(key)
		if !ok {
			return nil
		}
		if rv.Kind() == reflect.String {
			rs := []rune(rv.String())
			if i < 0 {
				i += int64(len(rs))
			}
			if i < 0 || i >= int64(len(rs)) {
				return nil
			}
			return string(rs[i])
		}
		if i < 0 {
			i += int64(rv.Len())
		}
		if i < 0 || i >= int64(rv.Len()) {
			return nil
		}
		return rv.Index(int(i)).Interface()
	case reflect.Map:
		kt := rv.Type().Key()
		kv := reflect.ValueOf(key)
		if !kv.IsValid() {
			return nil
		}
		if !kv.Type().AssignableTo(kt) {
			if !kv.Type().ConvertibleTo(kt) || kv.Kind() != kt.Kind() {
				return nil
			}
			kv = kv.Convert(kt)
		}
		mv := rv.MapIndex(kv)
		if !mv.IsValid() {
			return nil
		}
		return mv.Interface()
	case reflect.Struct:
		if s, ok := key.(string); ok {
			return getAttr(rv.Interface(), s)
		}
	}
	return nil
}
