// Package strictjson decodes a value that arrived as Go data or as decoded
// JSON into a typed destination, strictly, and says where a problem is.
//
// encoding/json with DisallowUnknownFields refuses an unknown field but
// names neither the path nor the object it sits in ("json: unknown field
// \"sorce\""), and it matches field names case-insensitively. Decode walks
// the value against the destination's type first, so its error is a
// *PathError with the path of the bad field ("[0].chunks[1].sorce") and
// the fields that are known; names must match exactly.
package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// PathError is a problem with one part of the value.
type PathError struct {
	// Path leads from the value's root to the bad part: "" for the root,
	// then ".name" for an object field and "[i]" for a list item, e.g.
	// "[0].chunks[1].sorce". A caller prefixes it with the value's own
	// name ("documents[0].chunks[1].sorce").
	Path string
	// Msg says what is wrong: "unknown field (known: source, text)",
	// "want a string, got a number".
	Msg string
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return strings.TrimPrefix(e.Path, ".") + ": " + e.Msg
}

// Decode stores v — Go data, or its decoded JSON form — into dst, a
// non-nil pointer, through JSON: object keys must name a field of the
// destination exactly, every value must have the JSON type its field
// needs, and numbers keep their exact form (json.Number). A type that
// decodes itself (json.Unmarshaler) gets its part of the value whole, and
// its error is reported at its path. Errors are *PathError.
func Decode(v, dst any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return &PathError{Msg: fmt.Sprintf("cannot encode as JSON: %v", err)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return &PathError{Msg: err.Error()}
	}
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &PathError{Msg: fmt.Sprintf("cannot decode into %T", dst)}
	}
	if err := check("", tree, rv.Type().Elem()); err != nil {
		return err
	}
	dec = json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return &PathError{Msg: err.Error()} // a shape check missed
	}
	return nil
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	numberType      = reflect.TypeFor[json.Number]()
)

// check compares tree, a decoded JSON value, with the type t it will be
// decoded into.
func check(path string, tree any, t reflect.Type) error {
	if tree == nil {
		return nil // null leaves the destination as it is
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		raw, _ := json.Marshal(tree) // tree came from JSON
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
			return &PathError{Path: path, Msg: err.Error()}
		}
		return nil
	}
	if t == numberType {
		return want(path, tree, "a number", isType[json.Number])
	}
	switch t.Kind() {
	case reflect.Pointer:
		return check(path, tree, t.Elem())
	case reflect.Interface:
		return nil
	case reflect.String:
		return want(path, tree, "a string", isType[string])
	case reflect.Bool:
		return want(path, tree, "true or false", isType[bool])
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return wantNumber(path, tree, t, func(s string) error { _, err := strconv.ParseInt(s, 10, t.Bits()); return err })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return wantNumber(path, tree, t, func(s string) error { _, err := strconv.ParseUint(s, 10, t.Bits()); return err })
	case reflect.Float32, reflect.Float64:
		return wantNumber(path, tree, t, func(s string) error { _, err := strconv.ParseFloat(s, t.Bits()); return err })
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return want(path, tree, "a base64 string", isType[string])
		}
		items, ok := tree.([]any)
		if !ok {
			return wrongType(path, tree, "a list")
		}
		if t.Kind() == reflect.Array && len(items) > t.Len() {
			return &PathError{Path: path, Msg: fmt.Sprintf("want at most %d items, got %d", t.Len(), len(items))}
		}
		for i, item := range items {
			if err := check(fmt.Sprintf("%s[%d]", path, i), item, t.Elem()); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		obj, ok := tree.(map[string]any)
		if !ok {
			return wrongType(path, tree, "an object")
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := check(path+"."+k, obj[k], t.Elem()); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		obj, ok := tree.(map[string]any)
		if !ok {
			return wrongType(path, tree, "an object")
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			f, ok := fields[k]
			if !ok {
				return &PathError{Path: path + "." + k,
					Msg: fmt.Sprintf("unknown field (known: %s)", strings.Join(slices.Sorted(maps.Keys(fields)), ", "))}
			}
			if err := check(path+"."+k, obj[k], f); err != nil {
				return err
			}
		}
		return nil
	}
	return &PathError{Path: path, Msg: fmt.Sprintf("cannot decode into %s", t)}
}

// jsonFields maps the JSON names of t's fields to their types, as
// encoding/json names them: the tag's name, else the field's; fields
// tagged "-" and unexported ones left out; embedded structs flattened.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func isType[T any](v any) bool { _, ok := v.(T); return ok }

func want(path string, tree any, what string, ok func(any) bool) error {
	if ok(tree) {
		return nil
	}
	return wrongType(path, tree, what)
}

func wantNumber(path string, tree any, t reflect.Type, parse func(string) error) error {
	n, ok := tree.(json.Number)
	if !ok {
		return wrongType(path, tree, "a number")
	}
	if parse(string(n)) != nil {
		return &PathError{Path: path, Msg: fmt.Sprintf("%s does not fit a Go %s", n, t)}
	}
	return nil
}

func wrongType(path string, tree any, what string) error {
	return &PathError{Path: path, Msg: fmt.Sprintf("want %s, got %s", what, kind(tree))}
}

// kind names the JSON type of a decoded value.
func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true or false"
	}
	return "null"
}
