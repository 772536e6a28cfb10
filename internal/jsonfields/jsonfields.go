// Package jsonfields lists a Go struct's fields as encoding/json sees
// them: exported fields named by their json tag, "-" left out, the fields
// of embedded structs promoted (the shallowest of one name wins, at one
// depth the tagged one; a name still ambiguous is left out), in
// encoding/json's order, and omitempty and omitzero honoured.
//
// A host's struct is one value to promptkit, whichever part reads it:
// the template (attributes, printing, tojson) and the JSON Schema that
// validates it see the same fields, because both ask this package.
package jsonfields

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Field is one visible field of a struct type.
type Field struct {
	Name  string
	index []int
	omit  byte // 'e' omitempty, 'z' omitzero, 0 neither
}

// maxEmbed bounds how deep embedded structs are followed.
const maxEmbed = 8

// Of returns the visible fields of struct type t, in encoding/json's
// order, computed once per type (as encoding/json caches its own: the
// fields are asked for on every attribute a template reads). The cache
// holds only what reflection says of the host's own types, grows with the
// number of types, never of values, and no render can change it. The
// slice is shared: read it only.
func Of(t reflect.Type) []Field {
	if f, ok := cache.Load(t); ok {
		return f.([]Field)
	}
	f, _ := cache.LoadOrStore(t, visible(t))
	return f.([]Field)
}

var cache sync.Map // reflect.Type → []Field

// visible is encoding/json's typeFields: the fields of t and, level by
// level, of the structs it embeds; of several fields of one name the
// shallowest wins, at one depth the tagged one, and a name still
// ambiguous is left out; the rest in the order of their index sequence.
func visible(t reflect.Type) []Field {
	type candidate struct {
		Field
		depth  int
		tagged bool
	}
	type embedded struct {
		t     reflect.Type
		index []int
	}
	var all []candidate
	level := []embedded{{t, nil}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(level) > 0 && depth <= maxEmbed; depth++ {
		var next []embedded
		for _, e := range level {
			if visited[e.t] {
				continue
			}
			visited[e.t] = true
			for i := range e.t.NumField() {
				f := e.t.Field(i)
				tag := f.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(append([]int(nil), e.index...), i)
				if f.Anonymous && name == "" {
					ft := f.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if ft.Kind() == reflect.Struct {
						next = append(next, embedded{ft, index})
						continue
					}
				}
				if !f.IsExported() {
					continue
				}
				tagged := name != ""
				if !tagged {
					name = f.Name
				}
				var omit byte
				for o := range strings.SplitSeq(opts, ",") {
					switch o {
					case "omitempty":
						omit = 'e'
					case "omitzero":
						omit = 'z'
					}
				}
				all = append(all, candidate{Field{Name: name, index: index, omit: omit}, depth, tagged})
			}
		}
		level = next
	}
	// Dominance, name by name.
	byName := map[string][]candidate{}
	for _, c := range all {
		byName[c.Name] = append(byName[c.Name], c)
	}
	var out []Field
	for _, cs := range byName {
		best := cs[:0:0]
		for _, c := range cs {
			switch {
			case len(best) == 0 || c.depth < best[0].depth:
				best = append(best[:0], c)
			case c.depth == best[0].depth:
				best = append(best, c)
			}
		}
		if len(best) > 1 {
			var tagged []candidate
			for _, c := range best {
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
			best = tagged
		}
		if len(best) == 1 {
			out = append(out, best[0].Field)
		}
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.index, b.index) })
	return out
}

// Value returns the field's value in v, a struct of the type the field
// was listed for, and whether encoding/json writes it: not through a nil
// embedded pointer, and not for an omitempty (omitzero) field holding its
// empty (zero) value.
func (f Field) Value(v reflect.Value) (reflect.Value, bool) {
	fv, err := v.FieldByIndexErr(f.index)
	if err != nil { // through a nil embedded pointer
		return reflect.Value{}, false
	}
	switch f.omit {
	case 'e':
		return fv, !empty(fv)
	case 'z':
		return fv, !zero(fv)
	}
	return fv, true
}

// empty is omitempty's test.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}

// zero is omitzero's test: the value's IsZero method, else the zero value.
func zero(v reflect.Value) bool {
	if v.CanInterface() {
		if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
			if v.Kind() == reflect.Pointer && v.IsNil() {
				return true
			}
			return z.IsZero()
		}
	}
	return v.IsZero()
}
