package jinjasuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
)

// The context's values cross from Python as JSON, tagged where JSON has
// no form for a Python value, so that each reaches the template as the
// value Jinja2 sees:
//
//	null, true, 3, 2.5, "s", [ … ]   None, a bool, an int, a float, a str, a list
//	{"$tuple": [ … ]}                a tuple
//	{"$dict": [[k, v], …]}           a dict, its keys (any hashable value) in order
//	{"$markup": "s"}                 markupsafe.Markup
//	{"$float": "inf"}                inf, -inf or nan
//	{"$bigint": "123…"}              an int beyond 64 bits (Python's int, as promptkit reads one)
//	{"$namedtuple": [[name, v], …]}  a namedtuple: a tuple whose items are attributes too
//	{"$object": [[name, v], …]}      an object whose attributes are data
//	{"$object": …, "$str": "s"}      one that prints as s (its __str__)
//
// An integer is a number without a fraction or exponent: Python's json
// writes a float with one (1.0), so a float stays a float.
//
// An object becomes a Go struct made for it (reflect.StructOf), whose
// exported fields the engine reads as attributes, as it reads a host's
// structs: what Jinja2 does with a plain Python object (attribute access,
// and item access falling back to it) a template does with the struct;
// it is not a mapping and has no items. Its attributes must be plain data
// (None, bools, numbers, strings, lists, objects, dicts with string keys
// in sorted order), since a struct's fields are read as the host's values.

// A value the shim cannot send is {"$na": "why"}: a render that reads it
// is not applicable (a template that does not read it renders).

// errUnsendable is DecodeValue's error for {"$na": "why"}.
type errUnsendable string

func (e errUnsendable) Error() string { return string(e) }

// DecodeValue decodes one tagged value.
func DecodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		if why, ok := m["$na"].(string); ok {
			return nil, errUnsendable(why)
		}
	}
	return toAny(v)
}

// toAny is toValue, but an integer beyond 64 bits is the json.Number the
// engine refuses when a render reads it, and a list is a []any, which may
// hold one.
func toAny(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			a, err := toAny(e)
			if err != nil {
				return nil, err
			}
			out[i] = a
		}
		return out, nil
	case map[string]any:
		if tag, c, err := tagged(x); err == nil && tag == "$bigint" {
			return bigint(c)
		}
	}
	return toValue(v)
}

func bigint(c any) (json.Number, error) {
	s, _ := c.(string)
	if _, err := strconv.ParseFloat(s, 64); err != nil || strings.ContainsAny(s, ".eE") {
		return "", fmt.Errorf("$bigint: %q", s)
	}
	return json.Number(s), nil
}

// tagged returns the tag and content of a tagged object.
func tagged(m map[string]any) (string, any, error) {
	if _, ok := m["$str"]; ok && len(m) == 2 {
		return "$object", m["$object"], nil
	}
	if len(m) != 1 {
		return "", nil, fmt.Errorf("an untagged object (%d keys)", len(m))
	}
	for k, v := range m {
		return k, v, nil
	}
	panic("unreachable")
}

// strOf is the printed form of an object that has one.
func strOf(m map[string]any) (string, bool) {
	s, ok := m["$str"].(string)
	return s, ok
}

func toValue(v any) (engine.Value, error) {
	switch x := v.(type) {
	case nil:
		return engine.NoneValue(), nil
	case bool:
		return engine.BoolOf(x), nil
	case string:
		return engine.Str(x), nil
	case json.Number:
		return number(x)
	case []any:
		items, err := toValues(x)
		if err != nil {
			return engine.Value{}, err
		}
		return engine.NewList(items), nil
	case map[string]any:
		tag, c, err := tagged(x)
		if err != nil {
			return engine.Value{}, err
		}
		switch tag {
		case "$tuple":
			list, ok := c.([]any)
			if !ok {
				return engine.Value{}, fmt.Errorf("$tuple: not a list")
			}
			items, err := toValues(list)
			if err != nil {
				return engine.Value{}, err
			}
			return engine.NewTuple(items), nil
		case "$dict":
			pairs, err := pairsOf(c)
			if err != nil {
				return engine.Value{}, err
			}
			d := engine.NewOrderedDict()
			for _, p := range pairs {
				k, err := toValue(p[0])
				if err != nil {
					return engine.Value{}, err
				}
				val, err := toValue(p[1])
				if err != nil {
					return engine.Value{}, err
				}
				if !d.Set(k, val) {
					return engine.Value{}, fmt.Errorf("$dict: a key that cannot be a dict key")
				}
			}
			return engine.DictValue(d), nil
		case "$markup":
			s, ok := c.(string)
			if !ok {
				return engine.Value{}, fmt.Errorf("$markup: not a string")
			}
			return engine.Markup(s), nil
		case "$float":
			s, _ := c.(string)
			switch s {
			case "inf":
				return engine.Float64(math.Inf(1)), nil
			case "-inf":
				return engine.Float64(math.Inf(-1)), nil
			case "nan":
				return engine.Float64(math.NaN()), nil
			}
			return engine.Value{}, fmt.Errorf("$float: %q", s)
		case "$bigint":
			return engine.Value{}, fmt.Errorf("an integer beyond 64 bits inside a tuple or a dict")
		case "$namedtuple":
			pairs, err := pairsOf(c)
			if err != nil {
				return engine.Value{}, err
			}
			items := make([]engine.Value, len(pairs))
			names := make([]string, len(pairs))
			for i, p := range pairs {
				names[i], _ = p[0].(string)
				if items[i], err = toValue(p[1]); err != nil {
					return engine.Value{}, err
				}
			}
			return engine.NewNamedTuple(items, names), nil
		case "$object":
			str, hasStr := strOf(x)
			o, err := object(c, str, hasStr)
			if err != nil {
				return engine.Value{}, err
			}
			return engine.FromGo(o), nil
		}
		return engine.Value{}, fmt.Errorf("unknown tag %q", tag)
	}
	return engine.Value{}, fmt.Errorf("unexpected %T", v)
}

func number(n json.Number) (engine.Value, error) {
	if !strings.ContainsAny(n.String(), ".eE") {
		i, err := n.Int64()
		if err != nil {
			return engine.Value{}, fmt.Errorf("integer %s beyond 64 bits: send it as $bigint", n)
		}
		return engine.Int64(i), nil
	}
	f, err := n.Float64()
	if err != nil {
		return engine.Value{}, err
	}
	return engine.Float64(f), nil
}

func toValues(list []any) ([]engine.Value, error) {
	items := make([]engine.Value, len(list))
	for i, e := range list {
		v, err := toValue(e)
		if err != nil {
			return nil, err
		}
		items[i] = v
	}
	return items, nil
}

func pairsOf(c any) ([][2]any, error) {
	list, ok := c.([]any)
	if !ok {
		return nil, fmt.Errorf("pairs: not a list")
	}
	out := make([][2]any, len(list))
	for i, e := range list {
		p, ok := e.([]any)
		if !ok || len(p) != 2 {
			return nil, fmt.Errorf("pairs: item %d is not a pair", i)
		}
		out[i] = [2]any{p[0], p[1]}
	}
	return out, nil
}

// printed gives the struct of an object with a __str__ its printed form:
// embedded first, its String method is the struct's, and its json tag
// hides it from the attributes.
type printed struct{ s string }

func (p printed) String() string { return p.s }

// object makes the struct standing for a Python object: one exported
// field of type any per attribute, named by its json tag, after an
// embedded printed when the object prints as str.
func object(c any, str string, hasStr bool) (any, error) {
	pairs, err := pairsOf(c)
	if err != nil {
		return nil, err
	}
	var fields []reflect.StructField
	if hasStr {
		fields = append(fields, reflect.StructField{Name: "Printed", Type: reflect.TypeFor[printed](), Anonymous: true, Tag: `json:"-"`})
	}
	first := len(fields)
	vals := make([]any, len(pairs))
	for i, p := range pairs {
		name, ok := p[0].(string)
		if !ok || name == "" || strings.ContainsAny(name, `",`) {
			return nil, fmt.Errorf("$object: attribute %v", p[0])
		}
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: reflect.TypeFor[any](),
			Tag:  reflect.StructTag(fmt.Sprintf(`json:%q`, name)),
		})
		v, err := plain(p[1])
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		vals[i] = v
	}
	rv := reflect.New(reflect.StructOf(fields)).Elem()
	if hasStr {
		rv.Field(0).Set(reflect.ValueOf(printed{str}))
	}
	for i, v := range vals {
		if v != nil {
			rv.Field(first + i).Set(reflect.ValueOf(v))
		}
	}
	return rv.Interface(), nil
}

// plain decodes an object's attribute as a host's Go value.
func plain(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case json.Number:
		if !strings.ContainsAny(x.String(), ".eE") {
			i, err := x.Int64()
			if err != nil {
				return nil, fmt.Errorf("integer %s beyond 64 bits", x)
			}
			return i, nil
		}
		return x.Float64()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			p, err := plain(e)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	case map[string]any:
		tag, c, err := tagged(x)
		if err != nil {
			return nil, err
		}
		switch tag {
		case "$object":
			str, hasStr := strOf(x)
			return object(c, str, hasStr)
		case "$dict":
			// A Go map iterates sorted: only a dict in that order is the
			// same dict.
			pairs, err := pairsOf(c)
			if err != nil {
				return nil, err
			}
			m := make(map[string]any, len(pairs))
			last := ""
			for i, p := range pairs {
				k, ok := p[0].(string)
				if !ok || (i > 0 && k <= last) {
					return nil, fmt.Errorf("a dict attribute whose keys are not strings in sorted order")
				}
				last = k
				if m[k], err = plain(p[1]); err != nil {
					return nil, err
				}
			}
			return m, nil
		}
		return nil, fmt.Errorf("a %s attribute (an object's attributes are plain data)", strings.TrimPrefix(tag, "$"))
	}
	return nil, fmt.Errorf("unexpected %T", v)
}
