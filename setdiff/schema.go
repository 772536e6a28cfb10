package setdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Schemas are compared as the JSON the set holds, with every $ref
// resolved — to a file of the set (relative to the file that names it;
// inline schemas are index.json's, at the root) and to a JSON pointer in
// it — as the manager resolves them when it compiles them. The comparison
// walks both schemas together (properties, items, additional properties,
// alternatives) and, at each pair of schemas, asks the schema rules what
// changed.

// schema is one JSON Schema of a set, as decoded JSON (numbers as
// json.Number), with the document it is in.
type schema struct {
	doc *schemaDoc
	ptr string // its JSON pointer in doc
	v   any    // map[string]any or bool
}

type schemaDoc struct {
	file string // the set's file it is in ("" for an inline schema of index.json)
	root any
}

// schemaReader reads and caches a set's schema files.
type schemaReader struct {
	fsys fs.FS
	docs map[string]*schemaDoc
}

func newSchemaReader(fsys fs.FS) *schemaReader {
	return &schemaReader{fsys: fsys, docs: map[string]*schemaDoc{}}
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// inline makes the schema a variable declares in index.json.
func (r *schemaReader) inline(raw json.RawMessage) (*schema, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return &schema{doc: &schemaDoc{root: v}, v: v}, nil
}

// resolve follows $ref while a schema is nothing but a $ref (and
// annotations), at most 64 times.
func (r *schemaReader) resolve(s *schema) (*schema, error) {
	for range 64 {
		m, ok := s.v.(map[string]any)
		if !ok {
			return s, nil
		}
		ref, ok := m["$ref"].(string)
		if !ok || hasConstraints(m, "$ref") {
			return s, nil
		}
		next, err := r.ref(s, ref)
		if err != nil {
			return nil, err
		}
		s = next
	}
	return nil, fmt.Errorf("$ref: more than 64 references in a row")
}

// ref returns the schema ref names, from the document of s.
func (r *schemaReader) ref(s *schema, ref string) (*schema, error) {
	file, frag, _ := strings.Cut(ref, "#")
	doc := s.doc
	if file != "" {
		p := path.Clean(path.Join(path.Dir(s.doc.file), file))
		if s.doc.file == "" {
			p = path.Clean(file)
		}
		d, ok := r.docs[p]
		if !ok {
			data, err := fs.ReadFile(r.fsys, p)
			if err != nil {
				return nil, fmt.Errorf("$ref %s: %w", ref, err)
			}
			v, err := decodeJSON(data)
			if err != nil {
				return nil, fmt.Errorf("$ref %s: %v", ref, err)
			}
			d = &schemaDoc{file: p, root: v}
			r.docs[p] = d
		}
		doc = d
	}
	v, ok := pointer(doc.root, frag)
	if !ok {
		return nil, fmt.Errorf("$ref %s: no such place in %s", ref, orIndex(doc.file))
	}
	return &schema{doc: doc, ptr: frag, v: v}, nil
}

func orIndex(file string) string {
	if file == "" {
		return "index.json"
	}
	return file
}

// pointer follows a JSON pointer ("/$defs/user") from v.
func pointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // an anchor: not followed
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// child is the subschema of s under key (and index, for a list).
func (s *schema) child(v any, keys ...string) *schema {
	return &schema{doc: s.doc, ptr: s.ptr + "/" + strings.Join(keys, "/"), v: v}
}

// annotations say nothing of which values a schema accepts.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$schema": true, "$id": true,
	"$defs": true, "definitions": true, "$anchor": true,
}

// hasConstraints reports whether m has a keyword that constrains values,
// besides except.
func hasConstraints(m map[string]any, except string) bool {
	for k := range m {
		if k != except && !annotations[k] {
			return true
		}
	}
	return false
}

// keywords is a schema as a map, true as {}, false as {"not": {}}.
func keywords(s *schema) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	switch x := s.v.(type) {
	case map[string]any:
		return x
	case bool:
		if !x {
			return map[string]any{"not": map[string]any{}}
		}
	}
	return map[string]any{}
}

// jsonTypes are the kinds of JSON values a schema's "type" names;
// "number" is integers and fractions.
var jsonTypes = []string{"null", "boolean", "integer", "fraction", "string", "array", "object"}

// typesOf is the set of kinds a schema's "type" allows (every kind when
// it has none).
func typesOf(m map[string]any) map[string]bool {
	out := map[string]bool{}
	add := func(t string) {
		if t == "number" {
			out["integer"], out["fraction"] = true, true
			return
		}
		out[t] = true
	}
	switch t := m["type"].(type) {
	case string:
		add(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				add(s)
			}
		}
	default:
		for _, k := range jsonTypes {
			out[k] = true
		}
	}
	return out
}

// kindsOf is the set of kinds of values a schema accepts by its "type",
// its "enum" and its "const" together.
func kindsOf(m map[string]any) map[string]bool {
	out := typesOf(m)
	restrict := func(values []any) {
		of := map[string]bool{}
		for _, v := range values {
			of[valueKind(v)] = true
		}
		for k := range out {
			out[k] = out[k] && of[k]
		}
	}
	if e, ok := m["enum"].([]any); ok {
		restrict(e)
	}
	if c, ok := m["const"]; ok {
		restrict([]any{c})
	}
	return out
}

// valueKind is the kind of a JSON value.
func valueKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if r, ok := rat(x); ok && r.IsInt() {
			return "integer"
		}
		return "fraction"
	}
	return ""
}

// typeNames names kinds for people, in jsonTypes' order: "number" for
// both kinds of number.
func typeNames(kinds []string) string {
	both := slices.Contains(kinds, "integer") && slices.Contains(kinds, "fraction")
	var out []string
	for _, k := range kinds {
		switch {
		case both && k == "integer":
			out = append(out, "number")
		case both && k == "fraction":
		case k == "fraction":
			out = append(out, "non-integer number")
		default:
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// rat reads a JSON number.
func rat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(n.String())
	return r, ok
}

// display writes a JSON value of a message, shortened.
func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if r := []rune(string(b)); len(r) > 40 {
		return string(r[:37]) + "…"
	}
	return string(b)
}

// sameJSON compares decoded JSON values: numbers by value (1 and 1.0 are
// one number), objects by keys.
func sameJSON(a, b any) bool {
	ra, okA := rat(a)
	rb, okB := rat(b)
	if okA || okB {
		return okA && okB && ra.Cmp(rb) == 0
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
