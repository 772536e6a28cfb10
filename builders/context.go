package builders

import (
	"reflect"
	"slices"
	"strings"
)

// Task is what the host knows about the job a prompt is built for.
// Its JSON form is {"id": "…", "title": "…", "intent": "…"}.
type Task struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Intent string `json:"intent"`
}

// Context is the input of one build: the task and the named arguments of
// the call (the data). It is immutable once made: NewContext keeps a deep
// copy of the data, and Value hands out a fresh copy of any composite
// value, so neither the caller nor a builder can change what the other
// sees, and two concurrent builds never share mutable state.
//
// The zero Context has an empty task and no data.
type Context struct {
	task Task
	data []entry // sorted by key
}

// entry is one data key and its value.
type entry struct {
	key   string
	value any
}

// NewContext makes the context of one build. It deep-copies data: maps,
// slices, arrays, pointers and the exported fields of structs are copied
// (unexported struct fields are copied shallowly); cycles are preserved.
func NewContext(task Task, data map[string]any) Context {
	c := Context{task: task}
	if len(data) > 0 {
		c.data = make([]entry, 0, len(data))
		for k, v := range data {
			c.data = append(c.data, entry{k, deepCopy(v)})
		}
		slices.SortFunc(c.data, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	}
	return c
}

// Task returns the task.
func (c Context) Task() Task { return c.task }

// Value returns the data value under key and whether it is present.
// A composite value is returned as a fresh deep copy.
func (c Context) Value(key string) (any, bool) {
	v, ok := c.value(key)
	if !ok {
		return nil, false
	}
	return deepCopy(v), true
}

// value returns the stored value under key, not copied: for scalars.
func (c Context) value(key string) (any, bool) {
	for _, e := range c.data {
		if e.key == key {
			return e.value, true
		}
	}
	return nil, false
}

// Keys returns the data keys, sorted.
func (c Context) Keys() []string {
	keys := make([]string, len(c.data))
	for i, e := range c.data {
		keys[i] = e.key
	}
	return keys
}

// Unknown returns the first data key, in sorted order, that is not in
// keys, and whether there is one. It is how builders refuse data they do
// not read (see CheckKeys); it does not allocate.
func (c Context) Unknown(keys []string) (string, bool) {
	for _, e := range c.data {
		if !slices.Contains(keys, e.key) {
			return e.key, true
		}
	}
	return "", false
}

// deepCopy copies v so that no map, slice, array or pointer in the result
// is shared with v. Scalars, the common case, are returned without
// reflection.
func deepCopy(v any) any {
	switch v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64, float32, float64:
		return v
	}
	c := copier{seen: map[copyKey]reflect.Value{}}
	return c.copy(reflect.ValueOf(v)).Interface()
}

// copyKey identifies a map, pointer or slice already copied, so cycles and
// shared references keep their shape instead of recursing forever.
type copyKey struct {
	t   reflect.Type
	p   uintptr
	len int
}

type copier struct {
	seen map[copyKey]reflect.Value
}

func (c copier) copy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(c.copy(v.Elem()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		key := copyKey{v.Type(), v.Pointer(), 0}
		if out, ok := c.seen[key]; ok {
			return out
		}
		out := reflect.New(v.Type().Elem())
		c.seen[key] = out
		out.Elem().Set(c.copy(v.Elem()))
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		key := copyKey{v.Type(), v.Pointer(), 0}
		if out, ok := c.seen[key]; ok {
			return out
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		c.seen[key] = out
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), c.copy(it.Value()))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		key := copyKey{v.Type(), v.Pointer(), v.Len()}
		if out, ok := c.seen[key]; ok {
			return out
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		c.seen[key] = out
		for i := range v.Len() {
			out.Index(i).Set(c.copy(v.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(c.copy(v.Index(i)))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(c.copy(v.Field(i)))
			}
		}
		return out
	default:
		return v
	}
}
