package gen

import (
	"fmt"
	"go/token"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
)

// types turns schemas into Go types, declaring one struct per object
// schema with properties. A schema met twice (a file several variables
// refer to, a recursive schema) is one type.
type types struct {
	named    map[*jsonschema.Schema]string
	taken    map[string]*jsonschema.Schema
	reserved map[string]string // the file's other top-level names
	decls    []*decl
	errs     []error // properties no Go struct can carry, every one
}

type decl struct {
	name   string
	loc    string // where the schema is, for the comment
	fields []field
}

func newTypes(reserved map[string]string) *types {
	return &types{named: map[*jsonschema.Schema]string{}, taken: map[string]*jsonschema.Schema{}, reserved: reserved}
}

// only reports whether s is nothing but a $ref (annotations aside).
func only(s *jsonschema.Schema) bool {
	return s.Ref != nil && s.Types == nil && len(s.Properties) == 0 && s.Items2020 == nil && s.Items == nil &&
		s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil && s.Enum == nil && s.Const == nil && s.AdditionalProperties == nil
}

// goType is the Go type of values of s; hint names a struct it declares
// when the schema has no name of its own.
func (t *types) goType(s *jsonschema.Schema, hint string) string {
	for seen := map[*jsonschema.Schema]bool{}; only(s); s = s.Ref {
		if seen[s] {
			return "any" // bare $refs in a cycle: any value
		}
		seen[s] = true
	}
	if s.Bool != nil {
		return "any"
	}
	if len(s.AllOf) == 1 && s.Types == nil && len(s.Properties) == 0 && s.AnyOf == nil && s.OneOf == nil {
		return t.goType(s.AllOf[0], hint)
	}
	if s.AnyOf != nil || s.OneOf != nil || s.AllOf != nil {
		return "any"
	}
	kinds := kindNames(s)
	nullable := len(kinds) == 2 && kinds[0] == "null"
	if nullable {
		kinds = kinds[1:]
	}
	if len(kinds) != 1 {
		return "any"
	}
	var typ string
	switch kinds[0] {
	case "string":
		typ = "string"
	case "integer":
		typ = "int"
	case "number":
		typ = "float64"
	case "boolean":
		typ = "bool"
	case "null":
		return "any"
	case "array":
		items, _ := s.Items.(*jsonschema.Schema)
		if s.Items2020 != nil {
			items = s.Items2020
		}
		if items == nil || len(s.PrefixItems) > 0 {
			return "[]any"
		}
		return "[]" + t.goType(items, hint+"Item")
	case "object":
		if len(s.Properties) == 0 {
			if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
				return "map[string]" + t.goType(ap, hint+"Value")
			}
			return "map[string]any"
		}
		typ = t.object(s, hint)
	}
	if nullable {
		return "*" + typ
	}
	return typ
}

// kindNames are the JSON types a schema allows, "null" first: its type,
// or the types of its enum or const values.
func kindNames(s *jsonschema.Schema) []string {
	var names []string
	switch {
	case s.Types != nil && !s.Types.IsEmpty():
		names = s.Types.ToStrings()
	case s.Const != nil:
		names = []string{valueType(*s.Const)}
	case s.Enum != nil:
		seen := map[string]bool{}
		for _, v := range s.Enum.Values {
			if n := valueType(v); !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	case len(s.Properties) > 0:
		names = []string{"object"}
	}
	for i, n := range names {
		if n == "null" && i > 0 {
			names[0], names[i] = names[i], names[0]
		}
	}
	if len(names) == 2 && names[1] == "integer" && names[0] == "number" {
		names = []string{"number"}
	}
	return names
}

func valueType(v any) string {
	switch v.(type) {
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
	}
	return "number"
}

// object declares the struct of an object schema and returns its name.
func (t *types) object(s *jsonschema.Schema, hint string) string {
	if n, ok := t.named[s]; ok {
		return n
	}
	name := t.name(s, hint)
	t.named[s] = name
	d := &decl{name: name, loc: location(s)}
	t.decls = append(t.decls, d)
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	// Required properties first, in the order "required" lists them,
	// then the others by name: the compiled schema keeps no key order.
	var props []string
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !slices.Contains(props, r) {
			props = append(props, r)
		}
	}
	for _, p := range sortedKeys(s.Properties) {
		if !required[p] {
			props = append(props, p)
		}
	}
	seen := map[string]string{}
	for _, prop := range props {
		if !validJSONName(prop) {
			t.errs = append(t.errs, fmt.Errorf("schema %s: property %s cannot be the JSON name of a Go struct field "+
				"(encoding/json takes letters, digits, spaces and !#$%%&()*+-./:;<=>?@[]^_{|}~ only): rename it, "+
				"or declare the object without properties (a map)", commentText(d.loc), strconv.Quote(prop)))
			continue
		}
		f := field{ident: exported(prop), json: prop, optional: !required[prop]}
		for seen[f.ident] != "" {
			f.ident += "_" // two properties, one Go name: keep both, visibly
		}
		seen[f.ident] = prop
		f.typ = t.goType(s.Properties[prop], name+f.ident)
		if f.optional && t.isStruct(f.typ) {
			f.typ = "*" + f.typ // an absent object is nil, not an empty struct
		}
		if f.optional {
			f.doc = fmt.Sprintf("%s is the optional property %s; its zero value is left out.", f.ident, commentText(prop))
		} else {
			f.doc = fmt.Sprintf("%s is the property %s.", f.ident, commentText(prop))
		}
		d.fields = append(d.fields, f)
	}
	return name
}

func (t *types) isStruct(typ string) bool {
	_, ok := t.taken[typ]
	return ok
}

// name picks a struct's name: the schema's title when it is a Go
// identifier, else its $defs entry or file, else hint; made unique.
func (t *types) name(s *jsonschema.Schema, hint string) string {
	cand := hint
	u, frag, _ := strings.Cut(s.Location, "#")
	switch {
	case token.IsIdentifier(s.Title) && token.IsExported(s.Title):
		cand = s.Title
	case strings.HasPrefix(frag, "/$defs/") && !strings.Contains(frag[len("/$defs/"):], "/"):
		cand = exported(frag[len("/$defs/"):])
	case frag == "" && !strings.Contains(u, "?"):
		cand = exported(strings.TrimSuffix(path.Base(u), path.Ext(u)))
	}
	name := cand
	for i := 2; t.taken[name] != nil || t.isReserved(name); i++ {
		name = fmt.Sprintf("%s%d", cand, i)
	}
	t.taken[name] = s
	return name
}

// location is where a schema is, as the set names it.
func location(s *jsonschema.Schema) string {
	l := strings.TrimPrefix(s.Location, "set:///")
	if q, ok := strings.CutPrefix(l, "index.json?"); ok {
		q, frag, _ := strings.Cut(q, "#")
		if v, err := url.ParseQuery(q); err == nil && v.Get("variable") == "$output" {
			where := "index.json: the output of template " + strconv.Quote(v.Get("template"))
			if frag != "" {
				where += ", at #" + frag
			}
			return where
		}
		return "index.json"
	}
	return strings.TrimSuffix(l, "#")
}

func (t *types) write(p func(string, ...any)) {
	for _, d := range t.decls {
		p("// %s is the schema %s.", d.name, commentText(d.loc))
		p("type %s struct {", d.name)
		for _, f := range d.fields {
			p("	// %s", f.doc)
			p("	%s %s %s", f.ident, f.typ, structTag(f.json, f.optional))
		}
		p("}")
		p("")
	}
}

func (t *types) isReserved(name string) bool {
	_, ok := t.reserved[name]
	return ok
}

// validJSONName reports whether encoding/json honours name as the name in
// a field's json tag (its isValidTag): any other name, a comma above all,
// would make it marshal the field under another key, silently.
func validJSONName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r) && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// structTag is the literal of a field's tag: `json:"name"`, with
// ",omitzero" for an optional property. The name is quoted by strconv
// (so the tag holds exactly it) and the tag is a raw string only when no
// backquote can end it early, else a quoted one.
func structTag(name string, omitzero bool) string {
	if name == "-" && !omitzero {
		name += "," // "-" alone would hide the field
	}
	if omitzero {
		name += ",omitzero"
	}
	tag := "json:" + strconv.Quote(name)
	if strings.ContainsRune(tag, '`') {
		return strconv.Quote(tag)
	}
	return "`" + tag + "`"
}
