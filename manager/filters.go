package manager

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flosch/pongo2/v6"
)

// Jinja's filters, with Python's semantics, registered with pongo2 under
// a "pk_" prefix (pongo2's registry is process-wide; the prefix keeps
// promptkit's filters apart from a host's own pongo2 use).

type filterSpec struct {
	minArgs, maxArgs int
	kwargs           []string
	argsDoc          string
	fn               func(in any, args []any, kw map[string]any) (any, error)
}

var filterSpecs = map[string]filterSpec{
	"upper":      {0, 0, nil, "no arguments", strFilter(strings.ToUpper)},
	"lower":      {0, 0, nil, "no arguments", strFilter(strings.ToLower)},
	"title":      {0, 0, nil, "no arguments", strFilter(pyTitle)},
	"capitalize": {0, 0, nil, "no arguments", strFilter(pyCapitalize)},
	"trim":       {0, 1, []string{"chars"}, "an optional string of characters", filterTrim},
	"string":     {0, 0, nil, "no arguments", func(in any, _ []any, _ map[string]any) (any, error) { return pyStr(in), nil }},
	"length":     {0, 0, nil, "no arguments", filterLength},
	"count":      {0, 0, nil, "no arguments", filterLength},
	"join":       {0, 1, []string{"d", "attribute"}, "an optional separator: join(\", \")", filterJoin},
	"default":    {0, 2, []string{"default_value", "boolean"}, "a default value and an optional boolean: default(\"x\") or default(\"x\", true)", filterDefault},
	"d":          {0, 2, []string{"default_value", "boolean"}, "a default value and an optional boolean", filterDefault},
	"replace":    {2, 3, []string{"count"}, "two strings and an optional count: replace(\"old\", \"new\")", filterReplace},
	"first":      {0, 0, nil, "no arguments", filterFirst},
	"last":       {0, 0, nil, "no arguments", filterLast},
	"tojson":     {0, 1, []string{"indent"}, "an optional indent", filterToJSON},
	"int":        {0, 1, []string{"default"}, "an optional default", filterInt},
	"float":      {0, 1, []string{"default"}, "an optional default", filterFloat},
	"abs":        {0, 0, nil, "no arguments", filterAbs},
	"list":       {0, 0, nil, "no arguments", func(in any, _ []any, _ map[string]any) (any, error) { return iterate(in) }},
	"reverse":    {0, 0, nil, "no arguments", filterReverse},
	"sort":       {0, 1, []string{"reverse", "attribute"}, "an optional reverse flag", filterSort},
	"unique":     {0, 0, nil, "no arguments", filterUnique},
	"wordcount": {0, 0, nil, "no arguments", func(in any, _ []any, _ map[string]any) (any, error) {
		return int64(len(strings.Fields(pyStr(in)))), nil
	}},
	"indent": {0, 2, []string{"width", "first", "blank"}, "an optional width: indent(4)", filterIndent},
	"min":    {0, 0, nil, "no arguments", func(in any, _ []any, _ map[string]any) (any, error) { return minMax(in, -1) }},
	"max":    {0, 0, nil, "no arguments", func(in any, _ []any, _ map[string]any) (any, error) { return minMax(in, 1) }},
	"sum":    {0, 0, nil, "no arguments", filterSum},
}

func supportedFilterList() string {
	names := make([]string, 0, len(filterSpecs))
	for n := range filterSpecs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// argPack carries two or more filter arguments, or keyword arguments, in
// pongo2's single filter parameter.
type argPack struct {
	args []any
	kw   map[string]any
}

// kwArg is one keyword argument inside an argPack.
type kwArg struct {
	name string
	v    any
}

func init() {
	for name, spec := range filterSpecs {
		spec := spec
		name := name
		if err := pongo2.RegisterFilter("pk_"+name, func(in, param *pongo2.Value) (*pongo2.Value, *pongo2.Error) {
			// Strings pass through str() untouched: no allocation on the hot path.
			var args []any
			var kw map[string]any
			if p := unwrap(param); p != nil {
				if pack, ok := p.(*argPack); ok {
					args, kw = pack.args, pack.kw
				} else {
					args = []any{p}
				}
			}
			out, err := spec.fn(unwrap(in), args, kw)
			if err != nil {
				return nil, &pongo2.Error{Sender: "filter:" + name, OrigError: fmt.Errorf("filter %s: %w", name, err)}
			}
			return pongo2.AsValue(out), nil
		}); err != nil {
			panic(err)
		}
	}
	// pk_iter orders what a for loop visits: a mapping's keys sorted (Go
	// maps have no order), anything else as it is.
	if err := pongo2.RegisterFilter("pk_iter", func(in, _ *pongo2.Value) (*pongo2.Value, *pongo2.Error) {
		if in.IsString() {
			chars, _ := iterate(in.String()) // characters, not bytes
			return pongo2.AsValue(chars), nil
		}
		if in.CanSlice() || in.IsNil() {
			return in, nil
		}
		if reflect.ValueOf(unwrap(in)).Kind() == reflect.Map {
			keys, err := iterate(unwrap(in))
			if err != nil {
				return nil, &pongo2.Error{Sender: "filter:iter", OrigError: err}
			}
			return pongo2.AsValue(keys), nil
		}
		return in, nil
	}); err != nil {
		panic(err)
	}
}

func strFilter(f func(string) string) func(any, []any, map[string]any) (any, error) {
	return func(in any, _ []any, _ map[string]any) (any, error) { return f(pyStr(in)), nil }
}

func pyTitle(s string) string {
	var b strings.Builder
	prevLetter := false
	for _, r := range s {
		isL := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\''
		switch {
		case isL && !prevLetter:
			b.WriteRune(unicode.ToUpper(r))
		case isL:
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
		prevLetter = isL
	}
	return b.String()
}

func pyCapitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + strings.ToLower(s[n:])
}

func argOr(args []any, kw map[string]any, i int, name string, def any) any {
	if i < len(args) {
		return args[i]
	}
	if v, ok := kw[name]; ok {
		return v
	}
	return def
}

func filterTrim(in any, args []any, kw map[string]any) (any, error) {
	s := pyStr(in)
	if c := argOr(args, kw, 0, "chars", nil); c != nil && c != any(none) {
		return strings.Trim(s, pyStr(c)), nil
	}
	return strings.TrimSpace(s), nil
}

func filterLength(in any, _ []any, _ map[string]any) (any, error) {
	n, err := pyLen(in)
	return int64(n), err
}

func filterJoin(in any, args []any, kw map[string]any) (any, error) {
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	sep := pyStr(argOr(args, kw, 0, "d", ""))
	attr, _ := kw["attribute"].(string)
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		if attr != "" {
			it = getAttr(it, attr)
		}
		s := pyStr(it)
		if err := checkValueSize(b.Len() + len(s) + len(sep)); err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func filterDefault(in any, args []any, kw map[string]any) (any, error) {
	def := argOr(args, kw, 0, "default_value", "")
	boolean := truthy(argOr(args, kw, 1, "boolean", false))
	if in == nil || (boolean && !truthy(in)) {
		return def, nil
	}
	return in, nil
}

func filterReplace(in any, args []any, kw map[string]any) (any, error) {
	n := -1
	if c := argOr(args, kw, 2, "count", nil); c != nil {
		i, ok := toInt(c)
		if !ok {
			return nil, fmt.Errorf("count must be an integer, not %s", kindName(c))
		}
		n = int(i)
	}
	return replaceN(pyStr(in), pyStr(args[0]), pyStr(args[1]), n)
}

func filterFirst(in any, _ []any, _ map[string]any) (any, error) {
	items, err := iterate(in)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	return items[0], nil
}

func filterLast(in any, _ []any, _ map[string]any) (any, error) {
	items, err := iterate(in)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	return items[len(items)-1], nil
}

func filterInt(in any, args []any, kw map[string]any) (any, error) {
	def := argOr(args, kw, 0, "default", int64(0))
	if i, ok := toInt(in); ok {
		return i, nil
	}
	if f, ok := toFloat(in); ok {
		return int64(f), nil
	}
	if s, ok := asString(in); ok {
		s = strings.TrimSpace(s)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return int64(f), nil
		}
	}
	return def, nil
}

func filterFloat(in any, args []any, kw map[string]any) (any, error) {
	def := argOr(args, kw, 0, "default", 0.0)
	if f, ok := toFloat(in); ok {
		return f, nil
	}
	if s, ok := asString(in); ok {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f, nil
		}
	}
	return def, nil
}

func filterAbs(in any, _ []any, _ map[string]any) (any, error) {
	if i, ok := toInt(in); ok {
		if i < 0 {
			return -i, nil
		}
		return i, nil
	}
	if f, ok := toFloat(in); ok {
		return math.Abs(f), nil
	}
	return nil, fmt.Errorf("abs needs a number, not %s", kindName(in))
}

func filterReverse(in any, _ []any, _ map[string]any) (any, error) {
	if s, ok := asString(in); ok {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return out, nil
}

func filterSort(in any, args []any, kw map[string]any) (any, error) {
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	out := append([]any(nil), items...)
	rev := truthy(argOr(args, kw, 0, "reverse", false))
	attr, _ := kw["attribute"].(string)
	var cmpErr error
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if attr != "" {
			a, b = getAttr(a, attr), getAttr(b, attr)
		}
		c, err := pyCompare(a, b)
		if err != nil {
			cmpErr = err
		}
		if rev {
			return c > 0
		}
		return c < 0
	})
	return out, cmpErr
}

func filterUnique(in any, _ []any, _ map[string]any) (any, error) {
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, it := range items {
		dup := false
		for _, o := range out {
			if pyEq(it, o) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, it)
		}
	}
	return out, nil
}

func filterIndent(in any, args []any, kw map[string]any) (any, error) {
	w := argOr(args, kw, 0, "width", int64(4))
	pad := ""
	if i, ok := toInt(w); ok {
		if i > maxValueBytes {
			return nil, valueSizeError(-1)
		}
		pad = strings.Repeat(" ", int(max(i, 0)))
	} else {
		pad = pyStr(w)
	}
	first := truthy(argOr(args, kw, 1, "first", false))
	blank := truthy(kw["blank"])
	text := pyStr(in)
	lines := strings.Split(text, "\n")
	if err := checkValueSize(len(text) + len(pad)*len(lines)); err != nil {
		return nil, err
	}
	for i, l := range lines {
		if i == 0 && !first {
			continue
		}
		if l == "" && !blank {
			continue
		}
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n"), nil
}

func minMax(in any, sign int) (any, error) {
	items, err := iterate(in)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	best := items[0]
	for _, it := range items[1:] {
		c, err := pyCompare(it, best)
		if err != nil {
			return nil, err
		}
		if c*sign > 0 {
			best = it
		}
	}
	return best, nil
}

func filterSum(in any, _ []any, _ map[string]any) (any, error) {
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	var acc any = int64(0)
	for _, it := range items {
		if acc, err = arith("+", acc, it); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// filterToJSON is Jinja's tojson: keys sorted, ", " and ": " separators,
// non-ASCII escaped, and <, >, &, ' escaped so the JSON is safe in markup.
func filterToJSON(in any, args []any, kw map[string]any) (any, error) {
	var b strings.Builder
	indent := ""
	if i, ok := toInt(argOr(args, kw, 0, "indent", nil)); ok {
		if i > 64 {
			return nil, fmt.Errorf("indent %d is larger than 64", i)
		}
		indent = strings.Repeat(" ", int(max(i, 0)))
	}
	if err := writeJSON(&b, in, indent, 0); err != nil {
		return nil, err
	}
	return b.String(), nil
}

func writeJSON(b *strings.Builder, v any, indent string, depth int) error {
	if depth > 100 {
		return fmt.Errorf("value nested too deeply")
	}
	nl := func(d int) {
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, d))
		}
	}
	itemSep := ", "
	if indent != "" {
		itemSep = ","
	}
	switch x := v.(type) {
	case nil, noneType:
		b.WriteString("null")
		return nil
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
		return nil
	case string:
		writeJSONString(b, x)
		return nil
	case json.Number:
		b.WriteString(x.String())
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(pyStr(v))
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		switch {
		case math.IsNaN(f):
			b.WriteString("NaN")
		case math.IsInf(f, 1):
			b.WriteString("Infinity")
		case math.IsInf(f, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(pyFloat(f))
		}
	case reflect.String:
		writeJSONString(b, rv.String())
	case reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteString(itemSep)
			}
			nl(depth + 1)
			if err := writeJSON(b, rv.Index(i).Interface(), indent, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		b.WriteByte(']')
	case reflect.Map:
		if rv.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range sortedMapKeys(rv) {
			if i > 0 {
				b.WriteString(itemSep)
			}
			nl(depth + 1)
			writeJSONString(b, pyStr(k.Interface()))
			b.WriteString(": ")
			if err := writeJSON(b, rv.MapIndex(k).Interface(), indent, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		b.WriteByte('}')
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return writeJSON(b, rv.Elem().Interface(), indent, depth)
	case reflect.Struct:
		// Go structs go through encoding/json once, then print as mappings.
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var m any
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return err
		}
		return writeJSON(b, m, indent, depth)
	default:
		return fmt.Errorf("cannot encode %s as JSON", kindName(v))
	}
	return nil
}

func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '<', '>', '&', '\'':
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			switch {
			case r < 0x20 || (r > 0x7f && r < 0x10000):
				fmt.Fprintf(b, `\u%04x`, r)
			case r >= 0x10000:
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
