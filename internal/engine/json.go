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
	o := jsonOpts{itemSep: ", ", keySep: ": ", sortKeys: true, ensureASCII: true, htmlSafe: true}
	if err := o.setIndent(a[0]); err != nil {
		return Value{}, err
	}
	return dumpJSON(st, in, o)
}

// hfToJSON is the tojson of Hugging Face's chat-template environment:
// json.dumps(x, ensure_ascii=False, indent=None, separators=None,
// sort_keys=False), without HTML escaping.
func hfToJSON(st *state, in Value, a []Value, _ *extra) (Value, error) {
	o := jsonOpts{itemSep: ", ", keySep: ": ", ensureASCII: truthy(a[0]), sortKeys: truthy(a[3])}
	if err := o.setIndent(a[1]); err != nil {
		return Value{}, err
	}
	if a[2].k != None {
		items, err := values(a[2])
		if err != nil || len(items) != 2 || items[0].k != String || items[1].k != String {
			return Value{}, fmt.Errorf("tojson: separators must be a pair of strings")
		}
		o.itemSep, o.keySep = items[0].s, items[1].s
	}
	return dumpJSON(st, in, o)
}

var hfToJSONDef = &builtinDef{name: "tojson", params: []param{
	opt("ensure_ascii", vFalse), opt("indent", none), opt("separators", none), opt("sort_keys", vFalse),
}, fn: hfToJSON}

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
	if atLeast(v, st.budgetLeft()) {
		return Value{}, st.tooBig(st.budgetLeft())
	}
	w := jsonWriter{o: o, p: printer{limit: st.budgetLeft()}}
	if err := w.value(v, 0); err != nil {
		return Value{}, st.printErr(err, len(w.p.b))
	}
	if err := st.charge(len(w.p.b)); err != nil {
		return Value{}, err
	}
	if o.htmlSafe {
		return markupValue(string(w.p.b)), nil
	}
	return strValue(string(w.p.b)), nil
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
		if ptr, ok := refPointer(v); ok {
			if w.p.inside(ptr) {
				return fmt.Errorf("tojson: the value contains itself")
			}
			w.p.stack = append(w.p.stack, ptr)
			defer func() { w.p.stack = w.p.stack[:len(w.p.stack)-1] }()
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
	case Dict:
		return w.object(v, dictKeys(v), func(k Value) Value { x, _ := dictGet(v, k); return x }, depth)
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
			return w.object(v, keys, func(k Value) Value {
				// keys may come back sorted (sort_keys): find k's own value.
				return vals[slices.IndexFunc(keys, func(x Value) bool { return x.s == k.s })]
			}, depth)
		}
		return fmt.Errorf("tojson: %s has no JSON form", typeName(v))
	}
	return nil
}

func (w *jsonWriter) object(v Value, keys []Value, get func(Value) Value, depth int) error {
	if len(keys) == 0 {
		w.p.b = append(w.p.b, "{}"...)
		return nil
	}
	if ptr, ok := refPointer(v); ok {
		if w.p.inside(ptr) {
			return fmt.Errorf("tojson: the value contains itself")
		}
		w.p.stack = append(w.p.stack, ptr)
		defer func() { w.p.stack = w.p.stack[:len(w.p.stack)-1] }()
	}
	if w.o.sortKeys {
		keys = slices.Clone(keys)
		var err error
		slices.SortStableFunc(keys, func(a, b Value) int {
			c, e := compare(a, b)
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
	for i, k := range keys {
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
		if err := w.value(get(k), depth+1); err != nil {
			return err
		}
	}
	w.nl(depth)
	w.p.b = append(w.p.b, '}')
	return nil
}

func (w *jsonWriter) str(s string) {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && !(w.o.htmlSafe && (c == '<' || c == '>' || c == '&' || c == '\''))
	}
	if plain {
		w.p.b = append(append(append(w.p.b, '"'), s...), '"')
		return
	}
	b := append(w.p.b, '"')
	for _, r := range s {
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
			default:
				b = utf8.AppendRune(b, r)
			}
		}
	}
	w.p.b = append(b, '"')
}
