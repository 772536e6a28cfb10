package engine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seed-e7d2830f/promptkit/internal/jsonfields"
)

// JSON: the tojson filter, in Jinja's form (keys sorted, ", " and ": "
// separators, non-ASCII escaped, and <, >, & and ' escaped so the result
// is safe inside HTML) or in Hugging Face's (keys in their order, no HTML
// escaping, ensure_ascii, indent, separators and sort_keys as arguments).
// Decoding JSON into values is jsondecode.go.

// jsonOpts are json.dumps's arguments.
type jsonOpts struct {
	indent      string // "" with hasIndent: newlines without indentation
	hasIndent   bool
	itemSep     string
	keySep      string
	sortKeys    bool
	ensureASCII bool
	htmlSafe    bool
}

func filterToJSON(st *state, in Value, a []Value, ex *extra) (Value, error) {
	o, err := toJSONOpts(a)
	if err != nil {
		return Value{}, err
	}
	return dumpJSON(st, in, o)
}

// toJSONOpts are Jinja's tojson's options: sorted keys, ASCII, HTML-safe.
func toJSONOpts(a []Value) (jsonOpts, error) {
	o := jsonOpts{itemSep: ", ", keySep: ": ", sortKeys: true, ensureASCII: true, htmlSafe: true}
	return o, o.setIndent(a[0])
}

// hfToJSON is the tojson of Hugging Face's chat-template environment:
// json.dumps(x, ensure_ascii=False, indent=None, separators=None,
// sort_keys=False), without HTML escaping.
func hfToJSON(st *state, in Value, a []Value, _ *extra) (Value, error) {
	o, err := hfToJSONOpts(a)
	if err != nil {
		return Value{}, err
	}
	return dumpJSON(st, in, o)
}

// hfToJSONOpts are hfToJSON's options, from its arguments.
func hfToJSONOpts(a []Value) (jsonOpts, error) {
	o := jsonOpts{itemSep: ", ", keySep: ": ", ensureASCII: truthy(a[0]), sortKeys: truthy(a[3])}
	if err := o.setIndent(a[1]); err != nil {
		return o, err
	}
	if a[2].k != None {
		items, err := values(a[2])
		if err != nil || len(items) != 2 || items[0].k != String || items[1].k != String {
			return o, fmt.Errorf("tojson: separators must be a pair of strings")
		}
		o.itemSep, o.keySep = items[0].s, items[1].s
	}
	return o, nil
}

var hfToJSONDef = &builtinDef{name: "tojson", params: []param{
	opt("ensure_ascii", vFalse), opt("indent", none), opt("separators", none), opt("sort_keys", vFalse),
}, fn: hfToJSON, print: printHFToJSON}

func (o *jsonOpts) setIndent(v Value) error {
	switch v.k {
	case None, Undefined:
		return nil
	case Int, Bool:
		if v.n > 64 {
			return fmt.Errorf("tojson: indent %d is larger than 64", v.n)
		}
		o.hasIndent, o.indent = true, strings.Repeat(" ", int(max(v.n, 0)))
	case String:
		if len(v.s) > 64 {
			return fmt.Errorf("tojson: indent is longer than 64 characters")
		}
		o.hasIndent, o.indent = true, v.s
	default:
		return fmt.Errorf("tojson: indent must be an integer or a string, not %s", typeName(v))
	}
	if o.itemSep == ", " {
		o.itemSep = ","
	}
	return nil
}

func dumpJSON(st *state, v Value, o jsonOpts) (Value, error) {
	b, err := writeJSON(st, v, o)
	if err != nil {
		return Value{}, err
	}
	if err := st.charge(len(b)); err != nil {
		return Value{}, err
	}
	if o.htmlSafe {
		return markupValue(string(b)), nil
	}
	return strValue(string(b)), nil
}

// writeJSON writes v's JSON into the render's tojson buffer and returns
// it: valid until the next tojson of the render.
func writeJSON(st *state, v Value, o jsonOpts) ([]byte, error) {
	if atLeast(v, st.budgetLeft()) {
		return nil, st.tooBig(st.budgetLeft())
	}
	w := jsonWriter{o: o, p: printer{b: st.json[:0], stack: st.jsonOpen[:0], limit: st.budgetLeft()}}
	err := w.value(v, 0)
	st.json, st.jsonOpen = w.p.b[:0], w.p.stack[:0] // the next tojson writes over them
	if err != nil {
		return nil, st.printErr(err, len(w.p.b))
	}
	return w.p.b, nil
}

type jsonWriter struct {
	o jsonOpts
	p printer
}

func (w *jsonWriter) nl(depth int) {
	if w.o.hasIndent {
		w.p.b = append(w.p.b, '\n')
		for i := 0; i < depth; i++ {
			w.p.b = append(w.p.b, w.o.indent...)
		}
	}
}

func (w *jsonWriter) value(v Value, depth int) error {
	if depth > maxPrintDepth {
		return fmt.Errorf("tojson: value nested deeper than %d levels (or containing itself)", maxPrintDepth)
	}
	if len(w.p.b) > w.p.limit {
		return errPrintSize
	}
	switch v.k {
	case Undefined:
		return fmt.Errorf("tojson: an undefined value has no JSON form")
	case None:
		w.p.b = append(w.p.b, "null"...)
	case Bool:
		if v.n != 0 {
			w.p.b = append(w.p.b, "true"...)
		} else {
			w.p.b = append(w.p.b, "false"...)
		}
	case Int:
		w.p.b = strconv.AppendInt(w.p.b, v.n, 10)
	case BigInt:
		w.p.b = append(w.p.b, bigString(v)...)
	case Float:
		f := v.float()
		switch {
		case math.IsNaN(f):
			w.p.b = append(w.p.b, "NaN"...)
		case math.IsInf(f, 1):
			w.p.b = append(w.p.b, "Infinity"...)
		case math.IsInf(f, -1):
			w.p.b = append(w.p.b, "-Infinity"...)
		default:
			w.p.b = appendFloat(w.p.b, f)
		}
	case String:
		w.str(v.s)
	case List, Tuple:
		if sd, ok := v.ref.(*seqData); ok && sd.lazy != "" {
			return fmt.Errorf("Object of type %s is not JSON serializable: make it a list first (| list)", sd.lazy)
		}
		n := seqLen(v)
		if n == 0 {
			w.p.b = append(w.p.b, "[]"...)
			return nil
		}
		if err := w.enter(v); err != nil {
			return err
		}
		w.p.b = append(w.p.b, '[')
		for i := 0; i < n; i++ {
			if i > 0 {
				w.p.b = append(w.p.b, w.o.itemSep...)
			}
			w.nl(depth + 1)
			if err := w.value(seqAt(v, i), depth+1); err != nil {
				return err
			}
		}
		w.nl(depth)
		w.p.b = append(w.p.b, ']')
		w.p.stack = w.p.stack[:len(w.p.stack)-1]
	case Dict:
		if d, ok := v.ref.(*OrderedDict); ok {
			return w.object(v, d.keys, d.vals, depth)
		}
		keys := dictKeys(v)
		vals := make([]Value, len(keys))
		for i, k := range keys {
			vals[i], _ = dictGet(v, k)
		}
		return w.object(v, keys, vals, depth)
	case Object:
		switch o := v.ref.(type) {
		case *namespace:
			return w.value(Value{k: Dict, ref: o.attrs}, depth)
		case hostStruct:
			var keys, vals []Value
			for _, f := range jsonfields.Of(o.v.Type()) {
				if fv, ok := f.Value(o.v); ok {
					keys, vals = append(keys, strValue(f.Name)), append(vals, fromReflect(fv))
				}
			}
			return w.object(v, keys, vals, depth)
		}
		return fmt.Errorf("tojson: %s has no JSON form", typeName(v))
	}
	return nil
}

// enter pushes a list or dict on the stack of those being written, which
// the caller pops when it is written: one that holds itself is an error.
func (w *jsonWriter) enter(v Value) error {
	ptr, _ := refPointer(v)
	if ptr != 0 && w.p.inside(ptr) {
		return fmt.Errorf("tojson: the value contains itself")
	}
	w.p.stack = append(w.p.stack, ptr)
	return nil
}

// object writes a dict whose keys and values are keys and vals, in
// their order or sorted (sort_keys).
func (w *jsonWriter) object(v Value, keys, vals []Value, depth int) error {
	if len(keys) == 0 {
		w.p.b = append(w.p.b, "{}"...)
		return nil
	}
	if err := w.enter(v); err != nil {
		return err
	}
	var order []int // the order of the keys written, when sorted
	if w.o.sortKeys {
		order = make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		var err error
		slices.SortStableFunc(order, func(a, b int) int {
			c, e := compare(keys[a], keys[b])
			if e != nil && err == nil {
				err = fmt.Errorf("tojson: keys cannot be sorted: %v", e)
			}
			return c
		})
		if err != nil {
			return err
		}
	}
	w.p.b = append(w.p.b, '{')
	for i := range keys {
		at := i
		if order != nil {
			at = order[i]
		}
		k := keys[at]
		if i > 0 {
			w.p.b = append(w.p.b, w.o.itemSep...)
		}
		w.nl(depth + 1)
		switch k.k {
		case String:
			w.str(k.s)
		case Int, Float, Bool, None:
			var ks string
			switch k.k {
			case Bool:
				ks = map[bool]string{true: "true", false: "false"}[k.n != 0]
			case None:
				ks = "null"
			default:
				ks, _ = strString(k)
			}
			w.str(ks)
		default:
			return fmt.Errorf("tojson: keys must be str, int, float, bool or None, not %s", typeName(k))
		}
		w.p.b = append(w.p.b, w.o.keySep...)
		if err := w.value(vals[at], depth+1); err != nil {
			return err
		}
	}
	w.nl(depth)
	w.p.b = append(w.p.b, '}')
	w.p.stack = w.p.stack[:len(w.p.stack)-1]
	return nil
}

// jsonPlain holds the bytes a JSON string holds as they are: printable
// ASCII but " and \\; jsonPlainHTML leaves out <, >, & and ' too.
var jsonPlain, jsonPlainHTML = func() (plain, html [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&' && c != '\''
	}
	return plain, html
}()

// str writes s as a JSON string: runs of plain bytes as they are, the
// rest a character at a time.
func (w *jsonWriter) str(s string) {
	plain := &jsonPlain
	if w.o.htmlSafe {
		plain = &jsonPlainHTML
	}
	b := append(w.p.b, '"')
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && plain[s[j]] {
			j++
		}
		b = append(b, s[i:j]...)
		if j == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		i = j + size
		switch r {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			switch {
			case w.o.htmlSafe && (r == '<' || r == '>' || r == '&' || r == '\''):
				b = fmt.Appendf(b, `\u%04x`, r)
			case r < 0x20:
				b = fmt.Appendf(b, `\u%04x`, r)
			case w.o.ensureASCII && r > 0x7e && r < 0x10000:
				b = fmt.Appendf(b, `\u%04x`, r)
			case w.o.ensureASCII && r >= 0x10000:
				r -= 0x10000
				b = fmt.Appendf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			case r == utf8.RuneError && size == 1: // an invalid byte
				b = utf8.AppendRune(b, r)
			default:
				b = append(b, s[j:i]...)
			}
		}
	}
	w.p.b = append(b, '"')
}
