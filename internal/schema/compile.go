package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"path"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema/kind"
)

// base is the URL the set's files have for the schema library: a $ref
// "schemas/user.json" from index.json resolves to set:///schemas/user.json,
// which the loader reads from the set. No other URL is loaded.
const base = "set:///"

// Compiler compiles the schemas of one template set.
type Compiler struct {
	c     *jsonschema.Compiler
	types map[*jsonschema.Schema]*jinja.Type
	quick map[*jsonschema.Schema]*quick // quick.go
	files map[string]bool               // the set's files the schemas read
}

// NewCompiler returns a compiler that reads the files schemas refer to
// with read (a path relative to the set's root, already checked to stay
// inside it by the caller's reader).
func NewCompiler(read func(path string) ([]byte, error)) *Compiler {
	c := &Compiler{c: jsonschema.NewCompiler(), types: map[*jsonschema.Schema]*jinja.Type{}, quick: map[*jsonschema.Schema]*quick{}, files: map[string]bool{}}
	c.c.DefaultDraft(jsonschema.Draft2020)
	c.c.UseLoader(setLoader{read: read, files: c.files})
	c.c.UseRegexpEngine(compilePattern)
	return c
}

// setLoader loads set:/// URLs through the set's reader, and nothing else.
type setLoader struct {
	read  func(string) ([]byte, error)
	files map[string]bool
}

func (l setLoader) Load(u string) (any, error) {
	p, ok := strings.CutPrefix(u, base)
	if !ok {
		return nil, fmt.Errorf("schemas are read only from files of the template set, not from %s", u)
	}
	if q := strings.IndexAny(p, "?#"); q >= 0 {
		p = p[:q]
	}
	p = path.Clean(p)
	data, err := l.read(p)
	if err != nil {
		return nil, err
	}
	l.files[p] = true
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %v", p, err)
	}
	return doc, nil
}

// Schema is one variable's compiled schema.
type Schema struct {
	s     *jsonschema.Schema
	typ   *jinja.Type
	quick *quick // nil: every value goes to the library (quick.go)
}

// Type is the schema as the front end's type pass reads it.
func (s *Schema) Type() *jinja.Type { return s.typ }

// Compiled is the library's compiled schema, for code generation (which
// reads names, required properties and types from it).
func (s *Schema) Compiled() *jsonschema.Schema { return s.s }

// Compile compiles the schema raw that index.json gives variable of
// template: an inline schema, or {"$ref": "path"} to a file of the set
// (relative to the set's root, as index.json is). The error says what is
// wrong, naming files by their path in the set.
func (c *Compiler) Compile(template, variable string, raw json.RawMessage) (*Schema, error) {
	return c.compile(base+"index.json?"+url.Values{"template": {template}, "variable": {variable}}.Encode(), "index.json", raw)
}

// compile compiles raw as the schema at loc, a place in the set's file
// named file.
func (c *Compiler) compile(loc, file string, raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, ok := doc.(bool); !ok {
			return nil, fmt.Errorf("a schema is a JSON object (or true/false), not %s", jsonKind(doc))
		}
	}
	if err := c.c.AddResource(loc, doc); err != nil {
		return nil, cleanErr(err, loc, file)
	}
	s, err := c.c.Compile(loc)
	if err != nil {
		return nil, cleanErr(err, loc, file)
	}
	if err := checkShape(s); err != nil {
		return nil, err
	}
	return &Schema{s: s, typ: c.typeOf(s), quick: quickOf(s, c.quick)}, nil
}

// CompileIn compiles the schema raw written inside the set's file p (a
// tool's parameters in a tool file, say): its $refs are relative to p.
// what names the place for the library (a query, "tool=search"), unique
// per schema of the file. The error names files by their path in the set.
func (c *Compiler) CompileIn(p, what string, raw json.RawMessage) (*Schema, error) {
	return c.compile(base+p+"?"+what, p, raw)
}

// Files are the set's files the compiled schemas read, for the set's
// digest.
func (c *Compiler) Files() []string {
	out := make([]string, 0, len(c.files))
	for f := range c.files {
		out = append(out, f)
	}
	return out
}

// cleanErr words a compile error with paths of the set instead of the
// library's URLs.
func cleanErr(err error, loc, file string) error {
	var le *jsonschema.LoadURLError
	if errors.As(err, &le) {
		return fmt.Errorf("cannot read %s: %v", strings.TrimPrefix(le.URL, base), le.Err)
	}
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		// Not a schema: each place the meta-schema refuses, its values
		// shortened (a refused pattern is not quoted whole).
		file, _, _ := strings.Cut(strings.TrimPrefix(sve.URL, base), "#")
		what := "not a valid JSON Schema: "
		if !strings.HasPrefix(file, "index.json?") {
			what = file + " is " + what
		}
		var places []string
		metaViolations(ve, &places)
		return errors.New(what + strings.Join(places, "; "))
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, "'"+loc, "'"+file)
	msg = strings.ReplaceAll(msg, loc, file)
	msg = strings.ReplaceAll(msg, base, "")
	return errors.New(msg)
}

// metaViolations lists where the meta-schema refuses a schema: the
// leaves of its error tree, at their JSON pointers (a property name
// refused, at its object's).
func metaViolations(e *jsonschema.ValidationError, out *[]string) {
	if _, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		var inner []string
		for _, c := range e.Causes {
			metaViolations(c, &inner)
		}
		for _, msg := range inner {
			_, msg, _ = strings.Cut(msg, ": ") // the name's own location, "#"
			*out = append(*out, pointer(e.InstanceLocation)+": "+msg)
		}
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			metaViolations(c, out)
		}
		return
	}
	msg := e.ErrorKind.LocalizedString(printer)
	if f, ok := e.ErrorKind.(*kind.Format); ok {
		msg = fmt.Sprintf("%s is not a valid %s: %v", display(f.Got), f.Want, f.Err)
	}
	*out = append(*out, pointer(e.InstanceLocation)+": "+clip(msg))
}

// pointer writes an instance location as a JSON pointer fragment.
func pointer(tokens []string) string {
	ptr := "#"
	for _, tok := range tokens {
		ptr += "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	}
	return ptr
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// typeOf converts a compiled schema into the type the checks read. A
// schema met again (a recursive one) is the same type.
func (c *Compiler) typeOf(s *jsonschema.Schema) *jinja.Type {
	if s == nil {
		return nil
	}
	if t, ok := c.types[s]; ok {
		return t
	}
	if onlyRef(s) {
		// A bare $ref is its target's type itself, not a copy: a recursive
		// schema refers to a type still being made. (A chain of bare $refs
		// cannot come back to itself: checkShape refuses the cycle.)
		t := c.typeOf(s.Ref)
		c.types[s] = t
		return t
	}
	t := &jinja.Type{}
	c.types[s] = t
	if s.Bool != nil {
		t.Open = true
		return t
	}
	if s.Types != nil && !s.Types.IsEmpty() {
		t.Kinds = kindsOf(s.Types.ToStrings())
	}
	if s.Const != nil {
		t.Kinds = intersect(t.Kinds, valueKind(*s.Const))
	}
	if s.Enum != nil {
		var k jinja.Kinds
		for _, v := range s.Enum.Values {
			k |= valueKind(v)
		}
		t.Kinds = intersect(t.Kinds, k)
	}
	// Objects.
	if len(s.Properties) > 0 {
		t.Props = map[string]*jinja.Type{}
		for name, p := range s.Properties {
			t.Props[name] = c.typeOf(p)
		}
	}
	switch ap := s.AdditionalProperties.(type) {
	case bool:
		t.Open = ap
	case *jsonschema.Schema:
		t.Open, t.Extra = true, c.typeOf(ap)
	case nil:
		t.Open = len(s.Properties) == 0
	}
	if len(s.PatternProperties) > 0 || s.If != nil || len(s.DependentSchemas) > 0 || s.DynamicRef != nil || s.RecursiveRef != nil {
		t.Open = true // properties this conversion does not follow
	}
	// Arrays.
	if s.Items2020 != nil {
		t.Items = c.typeOf(s.Items2020)
	}
	for _, p := range s.PrefixItems {
		t.Prefix = append(t.Prefix, c.typeOf(p))
	}
	switch it := s.Items.(type) { // drafts before 2020-12
	case *jsonschema.Schema:
		t.Items = c.typeOf(it)
	case []*jsonschema.Schema:
		for _, p := range it {
			t.Prefix = append(t.Prefix, c.typeOf(p))
		}
	}
	// Composition.
	if s.Ref != nil {
		merge(t, c.typeOf(s.Ref))
	}
	for _, a := range s.AllOf {
		merge(t, c.typeOf(a))
	}
	for _, alts := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(alts) == 0 {
			continue
		}
		u := c.typeOf(alts[0])
		for _, a := range alts[1:] {
			u = union(u, c.typeOf(a))
		}
		merge(t, u)
	}
	return t
}

// onlyRef reports whether s is nothing but a $ref (annotations aside).
func onlyRef(s *jsonschema.Schema) bool {
	return s.Ref != nil && s.Bool == nil && s.Types == nil && s.Const == nil && s.Enum == nil && len(s.Properties) == 0 &&
		s.AdditionalProperties == nil && len(s.PatternProperties) == 0 && s.Items2020 == nil && s.Items == nil &&
		len(s.PrefixItems) == 0 && s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil && s.If == nil && s.Not == nil &&
		s.DynamicRef == nil && s.RecursiveRef == nil && len(s.DependentSchemas) == 0
}

// intersect is the kinds both a and b allow; 0 allows every kind.
func intersect(a, b jinja.Kinds) jinja.Kinds {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	if a&b == 0 {
		return a & b // nothing is valid; the checks then see a type of no kind
	}
	return a & b
}

// declares reports whether t says anything of an object's properties.
func declares(t *jinja.Type) bool { return t.Props != nil || !t.Open || t.Extra != nil }

// merge narrows t by o, as allOf does. Properties declared by either are
// declared; the object is open only if both are.
func merge(t, o *jinja.Type) {
	if o == nil || o == t {
		return
	}
	t.Kinds = intersect(t.Kinds, o.Kinds)
	if declares(o) {
		if !declares(t) {
			t.Open, t.Extra = o.Open, o.Extra
		} else {
			t.Open = t.Open && o.Open
			if t.Extra == nil {
				t.Extra = o.Extra
			}
		}
		for name, p := range o.Props {
			if t.Props == nil {
				t.Props = map[string]*jinja.Type{}
			}
			if q, ok := t.Props[name]; ok && q != p {
				t.Props[name] = nil // declared twice: its type is not followed
			} else {
				t.Props[name] = p
			}
		}
	}
	if t.Items == nil {
		t.Items = o.Items
	}
	if t.Prefix == nil {
		t.Prefix = o.Prefix
	}
}

// union is the type of a value that is a or b (anyOf, oneOf).
func union(a, b *jinja.Type) *jinja.Type {
	if a == b {
		return a
	}
	if a == nil || b == nil {
		return &jinja.Type{Open: true}
	}
	u := &jinja.Type{Kinds: a.Kinds | b.Kinds, Open: a.Open || b.Open}
	if a.Kinds == 0 || b.Kinds == 0 {
		u.Kinds = 0
	}
	if a.Props != nil || b.Props != nil {
		u.Props = map[string]*jinja.Type{}
		for _, side := range []*jinja.Type{a, b} {
			for name, p := range side.Props {
				if q, ok := u.Props[name]; ok && q != p {
					u.Props[name] = nil
				} else {
					u.Props[name] = p
				}
			}
		}
	}
	// An object alternative that declares nothing opens the union.
	for _, side := range []*jinja.Type{a, b} {
		if side.Kinds&jinja.KindObject != 0 && side.Props == nil && side.Open {
			u.Open = true
		}
	}
	if a.Items == b.Items {
		u.Items = a.Items
	}
	return u
}

func kindsOf(names []string) jinja.Kinds {
	var k jinja.Kinds
	for _, n := range names {
		switch n {
		case "null":
			k |= jinja.KindNull
		case "boolean":
			k |= jinja.KindBool
		case "integer":
			k |= jinja.KindInt
		case "number":
			k |= jinja.KindNumber
		case "string":
			k |= jinja.KindString
		case "array":
			k |= jinja.KindArray
		case "object":
			k |= jinja.KindObject
		}
	}
	return k
}

// valueKind is the kind of a JSON value of the schema (an enum's, a
// const's).
func valueKind(v any) jinja.Kinds {
	switch v := v.(type) {
	case nil:
		return jinja.KindNull
	case bool:
		return jinja.KindBool
	case string:
		return jinja.KindString
	case []any:
		return jinja.KindArray
	case map[string]any:
		return jinja.KindObject
	case json.Number:
		if r, ok := new(big.Rat).SetString(v.String()); ok && r.IsInt() {
			return jinja.KindInt
		}
		return jinja.KindFloat
	case float64:
		if v == float64(int64(v)) {
			return jinja.KindInt
		}
		return jinja.KindFloat
	}
	return jinja.KindAny
}
