package engine

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jsonfields"
)

// The host's values, as a template sees them. A template reads data; it
// never calls the host's code:
//
//   - nil and a nil pointer, map, slice or interface are None;
//   - strings (and named string types) are strings; bools are booleans;
//     every integer type is an integer (a uint64 beyond the int64 range,
//     a *big.Int, is one of any size, never a float); float32 and float64
//     are floats; json.Number is an integer or a float;
//   - a json.RawMessage is the JSON value it holds, read as Python's
//     json.loads reads it: objects keep the order of their keys;
//   - slices and arrays are lists ([]byte is bytes: an image for the image
//     filter, printed as Python prints bytes);
//   - maps are dicts: string-keyed (and any key type, compared as Python
//     values); a Go map has no order, so a template iterates its keys sorted;
//   - structs are objects whose attributes are their exported fields, named
//     as encoding/json names them (the json tag's name, "-" hides the field,
//     embedded structs' fields are promoted); unexported fields do not
//     exist for any operation;
//   - a pointer is its target;
//   - a struct (or pointer to one) implementing fmt.Stringer or
//     encoding.TextMarshaler prints as its String() (or MarshalText()): the
//     only host code a template can cause to run, and only when printing;
//     any other struct prints as a dict of its exported fields;
//   - functions, channels and other kinds are opaque objects: they print as
//     their Go type, are true, and can be neither called nor looked into.
//
// Methods are never called: x.Delete is an attribute lookup, and a struct
// has no attribute but its exported fields. A function is callable only
// when the host registers it (manager.WithFunc computes a variable's value
// with a Go function before the render; no template can call it).

// FromGo converts a host's value for a template.
func FromGo(v any) Value {
	// Containers keep v itself, the interface the host already made: a
	// []any re-boxed from x would allocate on every read.
	switch x := v.(type) {
	case nil:
		return none
	case Value:
		return x
	case string:
		return strValue(x)
	case bool:
		return boolValue(x)
	case int:
		return intValue(int64(x))
	case int64:
		return intValue(x)
	case float64:
		return floatValue(x)
	case []any:
		if x == nil {
			return none
		}
		return Value{k: List, ref: v}
	case map[string]any:
		if x == nil {
			return none
		}
		return Value{k: Dict, ref: v}
	case *OrderedDict:
		if x == nil {
			return none
		}
		return Value{k: Dict, ref: x}
	case json.Number:
		if !strings.ContainsAny(x.String(), ".eE") {
			i, err := x.Int64()
			if err != nil {
				b, ok := new(big.Int).SetString(x.String(), 10)
				if !ok {
					panic(hostError{fmt.Errorf("invalid number %s", x)})
				}
				return bigValue(b)
			}
			return intValue(i)
		}
		f, err := x.Float64()
		if err != nil {
			return strValue(x.String())
		}
		return floatValue(f)
	case []byte:
		if x == nil {
			return none
		}
		return objectValue(hostBytes(x))
	case *big.Int:
		if x == nil {
			return none
		}
		return bigValue(new(big.Int).Set(x))
	case json.RawMessage:
		d, err := DecodeJSON(x)
		if err != nil {
			panic(hostError{fmt.Errorf("invalid JSON value: %w", err)})
		}
		return d
	}
	return fromReflect(reflect.ValueOf(v))
}

// hostBytes is a []byte: printed as Python's bytes, usable as an image.
type hostBytes []byte

// hostSeq is a slice or array of the host read through reflection.
type hostSeq struct{ v reflect.Value }

// hostMap is a map of the host read through reflection.
type hostMap struct{ v reflect.Value }

// hostStruct is a struct of the host: its exported fields are attributes.
// p is the pointer it was reached through, if any (its method set decides
// how it prints).
type hostStruct struct{ v, p reflect.Value }

// hostOpaque is a function, channel or other value a template cannot use.
type hostOpaque struct{ typ string }

func fromReflect(rv reflect.Value) Value {
	if !rv.IsValid() {
		return none
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return none
		}
		if e := rv.Elem(); e.Kind() == reflect.Struct {
			return objectValue(hostStruct{v: e, p: rv})
		}
		return fromReflect(rv.Elem())
	case reflect.Interface:
		if rv.IsNil() {
			return none
		}
		return fromReflect(rv.Elem())
	case reflect.String:
		return strValue(rv.String())
	case reflect.Bool:
		return boolValue(rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intValue(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return bigValue(new(big.Int).SetUint64(u))
		}
		return intValue(int64(u))
	case reflect.Float32:
		return floatValue(float64(float32(rv.Float())))
	case reflect.Float64:
		return floatValue(rv.Float())
	case reflect.Slice:
		if rv.IsNil() {
			return none
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return objectValue(hostBytes(rv.Bytes()))
		}
		return Value{k: List, ref: hostSeq{rv}}
	case reflect.Array:
		return Value{k: List, ref: hostSeq{rv}}
	case reflect.Map:
		if rv.IsNil() {
			return none
		}
		if rv.Type() == mapStringAny && rv.CanInterface() {
			// A map[string]any reached inside another container (the
			// elements of a []map[string]any, say) is the dict FromGo
			// makes of one passed directly, read without reflection.
			// A map's interface holds its pointer: this allocates nothing.
			return Value{k: Dict, ref: rv.Interface()}
		}
		return Value{k: Dict, ref: hostMap{rv}}
	case reflect.Struct:
		return objectValue(hostStruct{v: rv})
	}
	return objectValue(hostOpaque{typ: rv.Type().String()})
}

var (
	mapStringAny    = reflect.TypeFor[map[string]any]()
	mapStringString = reflect.TypeFor[map[string]string]()
)

// hostError carries a conversion problem out of a value access; the node
// doing the access reports it with its position.
type hostError struct{ err error }

// text returns the printed form of a struct implementing fmt.Stringer or
// encoding.TextMarshaler, and whether it does.
func (s hostStruct) text() (string, bool) {
	for _, rv := range []reflect.Value{s.p, s.v} {
		if !rv.IsValid() || !rv.CanInterface() {
			continue
		}
		switch x := rv.Interface().(type) {
		case fmt.Stringer:
			return x.String(), true
		case encoding.TextMarshaler:
			b, err := x.MarshalText()
			if err != nil {
				panic(hostError{fmt.Errorf("%s.MarshalText: %w", rv.Type(), err)})
			}
			return string(b), true
		}
	}
	return "", false
}

// field reads a struct's visible field by name (jsonfields: the fields
// encoding/json writes, which are also the ones a schema validates).
func (s hostStruct) field(name string) (Value, bool) {
	for _, f := range jsonfields.Of(s.v.Type()) {
		if f.Name == name {
			fv, ok := f.Value(s.v)
			if !ok {
				return Value{}, false
			}
			return fromReflect(fv), true
		}
	}
	return Value{}, false
}

// fieldNames are the names of a struct's visible fields.
func (s hostStruct) fieldNames() []string {
	var out []string
	for _, f := range jsonfields.Of(s.v.Type()) {
		out = append(out, f.Name)
	}
	return out
}

// keys returns a host map's keys.
func (m hostMap) keys() []Value {
	ks := m.v.MapKeys()
	out := make([]Value, len(ks))
	for i, k := range ks {
		out[i] = fromReflect(k)
	}
	return out
}

// get looks a key up in a host map, converting it to the map's key type.
func (m hostMap) get(key Value) (Value, bool) {
	if key.k == String && m.v.Type() == mapStringString && m.v.CanInterface() {
		x, ok := m.v.Interface().(map[string]string)[key.s]
		if !ok {
			return Value{}, false
		}
		return strValue(x), true
	}
	kt := m.v.Type().Key()
	var kv reflect.Value
	switch key.k {
	case String:
		if kt.Kind() != reflect.String {
			return Value{}, false
		}
		kv = reflect.ValueOf(key.s).Convert(kt)
	case Int, Bool:
		switch kt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			kv = reflect.New(kt).Elem()
			kv.SetInt(key.n)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if key.n < 0 {
				return Value{}, false
			}
			kv = reflect.New(kt).Elem()
			kv.SetUint(uint64(key.n))
		default:
			return Value{}, false
		}
	default:
		return Value{}, false
	}
	if kv.Type() != kt {
		return Value{}, false
	}
	r := m.v.MapIndex(kv)
	if !r.IsValid() {
		return Value{}, false
	}
	return fromReflect(r), true
}
