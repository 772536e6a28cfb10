package schema

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/seed-e7d2830f/promptkit/internal/jsonfields"
	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema/kind"
)

// Violation is one place where a value breaks its schema: the path from
// the variable ("user.tags[2]") and what is wrong ("want string, got
// number").
type Violation struct {
	Path string
	Msg  string
}

func (v Violation) String() string { return v.Path + ": " + v.Msg }

// Validate validates the value of the variable called name within the
// budget b (budget.go), and returns every violation, sorted by path, or
// nil. The error is ErrWork when validating would spend more than b's
// work, or the error of b's context when it ends first; the library does
// not start a validation it cannot finish within b.
func (s *Schema) Validate(name string, v any, b *Budget) ([]Violation, error) {
	m := newMeter(b)
	vs, err := s.validate(name, v, &m)
	b.Work = m.work
	return vs, err
}

func (s *Schema) validate(name string, v any, m *meter) ([]Violation, error) {
	if !m.live() {
		return nil, m.err
	}
	if s.quick.accepts(v, 0, m) {
		return nil, nil
	}
	p, err := Plain(v)
	if err != nil {
		return []Violation{{Path: name, Msg: err.Error()}}, nil
	}
	if s.quick.accepts(p, 0, m) { // the host's structs, as JSON values
		return nil, nil
	}
	if m.err != nil || !m.library(s.s, p) {
		return nil, m.err
	}
	vs := s.library(name, p)
	if !m.live() {
		return nil, m.err
	}
	return vs, nil
}

// library validates p with the library, which the budget has been
// charged for. A panic of the library (it has one, on a number it cannot
// parse) is the value's violation, not the host's crash.
func (s *Schema) library(name string, p any) (vs []Violation) {
	defer func() {
		if r := recover(); r != nil {
			vs = []Violation{{Path: name, Msg: fmt.Sprintf("the schema library failed on this value (%v)", r)}}
		}
	}()
	return violations(s.s.Validate(p), name, p)
}

// violations flattens the library's error tree into one line a place.
func violations(err error, root string, inst any) []Violation {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Path: root, Msg: err.Error()}}
	}
	var out []Violation
	flatten(ve, root, inst, &out)
	Sort(out)
	return slices.Compact(out)
}

// Sort sorts violations by path, as people read paths (user.tags[2]
// before user.tags[10]), then by message.
func Sort(vs []Violation) {
	slices.SortFunc(vs, func(a, b Violation) int {
		if c := comparePaths(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Msg, b.Msg)
	})
}

var printer = message.NewPrinter(language.English)

func flatten(e *jsonschema.ValidationError, root string, inst any, out *[]Violation) {
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			flatten(c, root, inst, out)
		}
		if len(e.Causes) > 0 {
			return
		}
	}
	at := pathOf(root, e.InstanceLocation, inst)
	add := func(p, msg string) { *out = append(*out, Violation{Path: p, Msg: msg}) }
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		add(at, fmt.Sprintf("want %s, got %s", strings.Join(k.Want, " or "), k.Got))
	case *kind.Required:
		for _, m := range k.Missing {
			add(join(at, m), "missing, and the schema requires it")
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			add(join(at, p), "not in the schema, which allows no other properties")
		}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		add(at, fmt.Sprintf("want one of %s, got %s", strings.Join(want, ", "), display(k.Got)))
	case *kind.Const:
		add(at, fmt.Sprintf("want %s, got %s", display(k.Want), display(k.Got)))
	case *kind.AnyOf, *kind.OneOf:
		var alts []Violation
		for _, c := range e.Causes {
			flatten(c, root, inst, &alts)
		}
		msg := "matches none of the schema's alternatives"
		same := len(alts) > 0
		var msgs []string
		for _, a := range alts {
			same = same && a.Path == at
			msgs = append(msgs, a.Msg)
		}
		if same {
			msg += ": " + clip(strings.Join(msgs, "; or "))
		}
		add(at, msg)
	case *kind.Pattern:
		add(at, fmt.Sprintf("%s does not match the pattern %s", display(k.Got), display(k.Want)))
	case *kind.Not:
		add(at, "a value the schema refuses (its \"not\" matches)")
	case *kind.FalseSchema:
		add(at, "not allowed here (its schema is false)")
	case *kind.InvalidJsonValue:
		if u, ok := k.Value.(unsupported); ok {
			add(at, fmt.Sprintf("a Go %s is not a JSON value", u.typ))
		} else {
			add(at, fmt.Sprintf("a Go %T is not a JSON value", k.Value))
		}
	default:
		add(at, e.ErrorKind.LocalizedString(printer))
	}
}

// maxQuoted is how much of its alternatives' violations an anyOf's
// or oneOf's message quotes: nested, each would quote the ones inside.
const maxQuoted = 400

// clip shortens a message to maxQuoted bytes, on a character boundary.
func clip(msg string) string {
	if len(msg) <= maxQuoted {
		return msg
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}

// display prints a JSON value of a message, shortened.
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

// pathOf writes an instance location as a template reads it: .name for a
// key that is an identifier, ["k"] for any other, [i] for an array index.
func pathOf(root string, tokens []string, inst any) string {
	var b strings.Builder
	b.WriteString(root)
	cur := inst
	for _, tok := range tokens {
		switch c := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
		case map[string]any:
			b.WriteString(key(b.Len() == 0, tok))
			cur = c[tok]
		default:
			b.WriteString(key(b.Len() == 0, tok))
			cur = nil
		}
	}
	return b.String()
}

func join(at, name string) string { return at + key(at == "", name) }

// maxPathKey bounds the bytes of a key a path quotes: the paths of many
// violations under one long key would each repeat it.
const maxPathKey = 64

func key(first bool, k string) string {
	if len(k) > maxPathKey {
		cut := maxPathKey
		for cut > 0 && !utf8.RuneStart(k[cut]) {
			cut--
		}
		return "[" + strconv.Quote(k[:cut]+"…") + "]"
	}
	if isIdent(k) {
		if first {
			return k
		}
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// comparePaths orders paths as people read them: user.tags[2] before
// user.tags[10].
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		na, ra := leadingNumber(a)
		nb, rb := leadingNumber(b)
		if na >= 0 && nb >= 0 {
			if na != nb {
				return na - nb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func leadingNumber(s string) (int, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 {
		return -1, s
	}
	n, _ := strconv.Atoi(s[:i])
	return n, s[i:]
}

// maxDepth bounds how deep Plain follows a value (a Go value may hold a
// cycle through pointers).
const maxDepth = 64

// Plain returns v as the JSON value encoding/json would encode it:
// map[string]any, []any, strings, bool, nil and numbers. A value that is
// already JSON-shaped is returned as it is.
func Plain(v any) (any, error) {
	if isPlain(v, 0) {
		return v, nil
	}
	return plain(reflect.ValueOf(v), 0)
}

// isPlain reports whether v holds only JSON values the schema library
// reads as they are.
func isPlain(v any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch x := v.(type) {
	case nil, string, bool, int, int64, float64, json.Number:
		return true
	case []any:
		for _, it := range x {
			if !isPlain(it, depth+1) {
				return false
			}
		}
		return x != nil
	case map[string]any:
		for _, it := range x {
			if !isPlain(it, depth+1) {
				return false
			}
		}
		return x != nil
	}
	return false
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func plain(rv reflect.Value, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels (a cycle?)", maxDepth)
	}
	if !rv.IsValid() {
		return nil, nil
	}
	if rv.Kind() != reflect.Interface && rv.CanInterface() && (rv.Type().Implements(jsonMarshaler) || rv.Type().Implements(textMarshaler)) {
		if rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, nil
		}
		return viaJSON(rv)
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return plain(rv.Elem(), depth+1)
	case reflect.String:
		if rv.Type() == reflect.TypeFor[json.Number]() {
			return json.Number(rv.String()), nil
		}
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint(), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.Slice:
		if rv.IsNil() {
			return nil, nil
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(rv.Bytes()), nil
		}
		fallthrough
	case reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			v, err := plain(rv.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case reflect.Map:
		if rv.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			k, err := mapKey(it.Key())
			if err != nil {
				return nil, err
			}
			v, err := plain(it.Value(), depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case reflect.Struct:
		out := map[string]any{}
		if err := structFields(rv, out, depth); err != nil {
			return nil, err
		}
		return out, nil
	}
	return unsupported{rv.Type().String()}, nil // a func, a chan: not JSON
}

// unsupported stands for a Go value JSON has no form for.
type unsupported struct{ typ string }

// viaJSON encodes a value with its own MarshalJSON or MarshalText.
func viaJSON(rv reflect.Value) (any, error) {
	data, err := json.Marshal(rv.Interface())
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
}

func mapKey(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		b, err := tm.MarshalText()
		return string(b), err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("a map with %s keys is not a JSON object", k.Type())
}

// structFields adds a struct's fields as encoding/json writes them
// (jsonfields, which the template reads them through too).
func structFields(rv reflect.Value, out map[string]any, depth int) error {
	for _, f := range jsonfields.Of(rv.Type()) {
		fv, ok := f.Value(rv)
		if !ok {
			continue
		}
		v, err := plain(fv, depth+1)
		if err != nil {
			return err
		}
		out[f.Name] = v
	}
	return nil
}
