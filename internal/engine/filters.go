//promptkit:allow-inline the template engine's filters: their subject is template output (HTML entities, ellipses)
package engine

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Jinja's built-in filters (jinja2/filters.py), with Python's semantics.
// Every one that does not touch files or keep state between renders is
// here; random is refused (it would make a prompt non-reproducible).

func defineFilters(filters map[string]*builtinDef) {
	none0 := none
	define(filters,
		&builtinDef{name: "abs", in: kNumber, fn: filterAbs},
		&builtinDef{name: "attr", params: []param{req("name")}, fn: filterAttr},
		&builtinDef{name: "batch", in: kSeq, params: []param{req("linecount"), opt("fill_with", none0)}, fn: filterBatch},
		&builtinDef{name: "capitalize", in: kString, out: outString, fn: strFilter(pyCapitalize), print: printCapitalize},
		&builtinDef{name: "center", in: kString, out: outString, params: []param{opt("width", intValue(80))}, fn: filterCenter},
		&builtinDef{name: "default", undef: true, out: outInOrArg, params: []param{takesUndefined(opt("default_value", strValue(""))), opt("boolean", vFalse)}, fn: filterDefault, print: printDefault, anyUndefined: true},
		&builtinDef{name: "dictsort", in: kObject, params: []param{opt("case_sensitive", vFalse), opt("by", strValue("key")), opt("reverse", vFalse)}, fn: filterDictsort},
		&builtinDef{name: "escape", out: outString, fn: filterEscape},
		&builtinDef{name: "filesizeformat", in: kNumber | kString, out: outString, params: []param{opt("binary", vFalse)}, fn: filterFilesize},
		&builtinDef{name: "first", in: kIter, out: outElem, fn: filterFirst},
		&builtinDef{name: "float", out: outFloat, params: []param{opt("default", floatValue(0))}, fn: filterFloat},
		&builtinDef{name: "forceescape", out: outString, fn: filterForceEscape},
		&builtinDef{name: "format", in: kString, out: outString, rest: true, anyKw: true, fn: filterFormat},
		&builtinDef{name: "groupby", in: kArray, params: []param{req("attribute"), opt("default", none0), opt("case_sensitive", vFalse)}, fn: filterGroupby},
		&builtinDef{name: "indent", in: kString, out: outString, params: []param{opt("width", intValue(4)), opt("first", vFalse), opt("blank", vFalse)}, fn: filterIndent},
		&builtinDef{name: "int", out: outInt, params: []param{opt("default", intValue(0)), opt("base", intValue(10))}, fn: filterInt},
		&builtinDef{name: "items", undef: true, in: kObject, fn: filterItems},
		&builtinDef{name: "join", in: kIter, out: outString, params: []param{opt("d", strValue("")), opt("attribute", none0)}, fn: filterJoin, print: printJoin},
		&builtinDef{name: "last", in: kSeq, out: outElem, fn: filterLast},
		&builtinDef{name: "length", in: kIter, out: outInt, fn: filterLength, print: printLength},
		&builtinDef{name: "list", in: kIter, out: outInput, fn: filterList},
		&builtinDef{name: "lower", in: kString, out: outString, fn: strFilter(pyLower), print: printLower},
		&builtinDef{name: "map", in: kArray | kObject, rest: true, anyKw: true, fn: filterMap},
		&builtinDef{name: "max", in: kSeq, params: []param{opt("case_sensitive", vFalse), opt("attribute", none0)}, fn: func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			return minMax(st, in, a, 1)
		}},
		&builtinDef{name: "min", in: kSeq, params: []param{opt("case_sensitive", vFalse), opt("attribute", none0)}, fn: func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			return minMax(st, in, a, -1)
		}},
		&builtinDef{name: "pprint", undef: true, out: outString, fn: filterPprint},
		refuse("random", "it picks at random, which would make a prompt non-reproducible"),
		&builtinDef{name: "reject", in: kIter, out: outInput, rest: true, anyKw: true, fn: selectFilter(false, false)},
		&builtinDef{name: "rejectattr", in: kArray, out: outInput, rest: true, anyKw: true, fn: selectFilter(false, true)},
		&builtinDef{name: "replace", out: outString, params: []param{req("old"), req("new"), opt("count", none0)}, fn: filterReplace, print: printReplace},
		&builtinDef{name: "reverse", in: kSeq, out: outInput, fn: filterReverse},
		&builtinDef{name: "round", in: kNumber, params: []param{opt("precision", intValue(0)), opt("method", strValue("common"))}, fn: filterRound},
		&builtinDef{name: "safe", fn: func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
			s, err := str1(in)
			return markupValue(s), err
		}},
		&builtinDef{name: "select", in: kIter, out: outInput, rest: true, anyKw: true, fn: selectFilter(true, false)},
		&builtinDef{name: "selectattr", in: kArray, out: outInput, rest: true, anyKw: true, fn: selectFilter(true, true)},
		&builtinDef{name: "slice", in: kSeq, params: []param{req("slices"), opt("fill_with", none0)}, fn: filterSlice},
		&builtinDef{name: "sort", in: kIter, out: outInput, params: []param{opt("reverse", vFalse), opt("case_sensitive", vFalse), opt("attribute", none0)}, fn: filterSort},
		&builtinDef{name: "string", out: outString, fn: func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
			if in.k == String {
				return in, nil
			}
			p := printer{limit: st.budgetLeft()}
			if err := p.str(in); err != nil {
				return Value{}, st.printErr(err, len(p.b))
			}
			return strValue(string(p.b)), st.charge(len(p.b))
		}},
		&builtinDef{name: "striptags", in: kString, out: outString, fn: filterStriptags},
		&builtinDef{name: "sum", in: kArray, params: []param{opt("attribute", none0), opt("start", intValue(0))}, fn: filterSum},
		&builtinDef{name: "title", in: kString, out: outString, fn: func(st *state, in Value, a []Value, ex *extra) (Value, error) {
			r, err := strFilter(jinjaTitle)(st, in, a, ex)
			r.n = 0 // Jinja's title joins plain strings: never markup
			return r, err
		}, print: printTitle},
		&builtinDef{name: "tojson", out: outString, params: []param{opt("indent", none0)}, fn: filterToJSON, print: printToJSON},
		&builtinDef{name: "trim", in: kString, out: outString, params: []param{opt("chars", none0)}, fn: filterTrim, print: printTrim},
		&builtinDef{name: "truncate", in: kString, out: outString, params: []param{opt("length", intValue(255)), opt("killwords", vFalse), opt("end", strValue("...")), opt("leeway", none0)}, fn: filterTruncate},
		&builtinDef{name: "unique", in: kSeq, out: outInput, params: []param{opt("case_sensitive", vFalse), opt("attribute", none0)}, fn: filterUnique},
		&builtinDef{name: "upper", in: kString, out: outString, fn: strFilter(pyUpper), print: printUpper},
		&builtinDef{name: "urlencode", out: outString, fn: filterURLEncode},
		&builtinDef{name: "urlize", in: kString, out: outString, params: []param{opt("trim_url_limit", none0), opt("nofollow", vFalse), opt("target", none0), opt("rel", none0), opt("extra_schemes", none0)}, fn: filterURLize},
		&builtinDef{name: "wordcount", in: kString, out: outInt, fn: filterWordcount},
		&builtinDef{name: "wordwrap", in: kString, out: outString, params: []param{opt("width", intValue(79)), opt("break_long_words", vTrue), opt("wrapstring", none0), opt("break_on_hyphens", vTrue)}, fn: filterWordwrap},
		&builtinDef{name: "xmlattr", in: kObject, out: outString, params: []param{opt("autospace", vTrue)}, fn: filterXMLAttr},
		// image makes an image part of a chat message; the compiler turns
		// {{ x | image }} inside a chat block into one, and the checks
		// refuse it anywhere else.
		&builtinDef{name: "image", fn: func(*state, Value, []Value, *extra) (Value, error) {
			return Value{}, fmt.Errorf("the image filter works only as {{ x | image }} inside a {%% chat %%} block")
		}},
	)
	alias(filters, "d", "default")
	alias(filters, "e", "escape")
	alias(filters, "count", "length")
}

// strFilter makes a filter of a string function: the input is str()'d.
func strFilter(f func(string) string) builtinFn {
	return func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
		if in.k == Undefined {
			return strValue(""), nil
		}
		s, err := str1(in)
		if err != nil {
			return Value{}, err
		}
		if err := st.charge(len(s)); err != nil {
			return Value{}, err
		}
		return markupLike(in, strValue(f(s))), nil
	}
}

func filterAbs(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	switch in.k {
	case BigInt:
		return bigValue(new(big.Int).Abs(toBig(in))), nil
	case Int, Bool:
		if in.n == math.MinInt64 {
			return bigValue(new(big.Int).Abs(toBig(in))), nil
		}
		if in.n < 0 {
			return intValue(-in.n), nil
		}
		return intValue(in.n), nil
	case Float:
		return floatValue(math.Abs(in.float())), nil
	}
	return Value{}, fmt.Errorf("bad operand type for abs(): %s", typeName(in))
}

func filterAttr(st *state, in Value, a []Value, _ *extra) (Value, error) {
	name, err := argStr("attr", "name", a[0])
	if err != nil {
		return Value{}, err
	}
	// attr reads an attribute only, never an item: for a dict, that is one
	// of its methods.
	switch in.k {
	case Undefined:
		return Value{}, fmt.Errorf("attr: the value is undefined, so it has no attribute %q", name)
	case Object:
		return getAttr(in, name)
	case Dict, String, List, Tuple:
		v, err := getAttr(in, name)
		if err != nil || v.k != Object {
			return undefined, err
		}
		return v, nil
	}
	return undefined, nil
}

func filterBatch(st *state, in Value, a []Value, _ *extra) (Value, error) {
	n, err := argInt("batch", "linecount", a[0])
	if err != nil {
		return Value{}, err
	}
	if n <= 0 {
		return Value{}, fmt.Errorf("batch: linecount must be positive")
	}
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.chargeItems(len(items) + len(items)/int(n) + 1); err != nil {
		return Value{}, err
	}
	var out []Value
	for i := 0; i < len(items); i += int(n) {
		row := slices.Clone(items[i:min(i+int(n), len(items))])
		if len(row) < int(n) && a[1].k != None {
			for len(row) < int(n) {
				row = append(row, a[1])
			}
		}
		out = append(out, listValue(row))
	}
	return lazySeq("generator", listValue(orEmptyValues(out)), nil)
}

func orEmptyValues(v []Value) []Value {
	if v == nil {
		return []Value{}
	}
	return v
}

func filterCenter(st *state, in Value, a []Value, _ *extra) (Value, error) {
	s, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	w, err := argInt("center", "width", a[0])
	if err != nil {
		return Value{}, err
	}
	n := runeCount(s)
	if int64(n) >= w {
		return markupLike(in, strValue(s)), nil
	}
	if err := st.charge(int(w)); err != nil {
		return Value{}, err
	}
	pad := int(w) - n
	left := centerLeft(pad, int(w))
	return markupLike(in, strValue(strings.Repeat(" ", left)+s+strings.Repeat(" ", pad-left))), nil
}

func filterDefault(st *state, in Value, a []Value, _ *extra) (Value, error) {
	if in.k == Undefined || (truthy(a[1]) && !truthy(in)) {
		return a[0], nil
	}
	return in, nil
}

func filterDictsort(st *state, in Value, a []Value, _ *extra) (Value, error) {
	if in.k != Dict {
		return Value{}, fmt.Errorf("dictsort needs a dict, not %s", typeName(in))
	}
	by, _ := str1(a[1])
	pos := 0
	switch by {
	case "key":
	case "value":
		pos = 1
	default:
		return Value{}, fmt.Errorf("dictsort: by must be 'key' or 'value'")
	}
	keys := dictKeys(in)
	if err := st.chargeItems(3 * len(keys)); err != nil {
		return Value{}, err
	}
	pairs := make([]Value, len(keys))
	for i, k := range keys {
		v, _ := dictGet(in, k)
		pairs[i] = tupleValue([]Value{k, v})
	}
	err := sortValues(st, pairs, truthy(a[2]), func(p Value) Value { return foldCase(seqAt(p, pos), truthy(a[0])) })
	return listValue(pairs), err
}

// foldCase lowers a string for case-insensitive comparison.
func foldCase(v Value, caseSensitive bool) Value {
	if !caseSensitive && v.k == String {
		return strValue(pyLower(v.s))
	}
	return v
}

// sortValues sorts items stably by key, as Python's sorted does; items
// that cannot be ordered are an error.
func sortValues(st *state, items []Value, reverse bool, key func(Value) Value) error {
	if err := st.spend(int64(len(items)) * int64(bits(len(items)))); err != nil {
		return err
	}
	keys := make([]Value, len(items))
	for i, it := range items {
		keys[i] = key(it)
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	var cmpErr error
	slices.SortStableFunc(idx, func(i, j int) int {
		c, err := compare(keys[i], keys[j])
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		if reverse {
			return -c
		}
		return c
	})
	if cmpErr != nil {
		return cmpErr
	}
	sorted := make([]Value, len(items))
	for i, j := range idx {
		sorted[i] = items[j]
	}
	copy(items, sorted)
	return nil
}

func bits(n int) int {
	b := 1
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// htmlEscape is markupsafe.escape: & < > " ' become entities.
func htmlEscape(s string) string {
	if !strings.ContainsAny(s, `&<>"'`) {
		return s
	}
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")
	return r.Replace(s)
}

func filterEscape(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	if in.isMarkup() {
		return in, nil
	}
	return filterForceEscape(st, in, nil, nil)
}

func filterForceEscape(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	if in.k == Undefined {
		return markupValue(""), nil
	}
	s, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.charge(len(s) * 2); err != nil {
		return Value{}, err
	}
	return markupValue(htmlEscape(s)), nil
}

func filterFilesize(st *state, in Value, a []Value, _ *extra) (Value, error) {
	var n float64
	switch in.k {
	case Int, Bool, Float:
		n = toFloat(in)
	case String:
		f, err := strconv.ParseFloat(strings.TrimSpace(in.s), 64)
		if err != nil {
			return Value{}, fmt.Errorf("filesizeformat: %q is not a number", in.s)
		}
		n = f
	default:
		return Value{}, fmt.Errorf("filesizeformat needs a number, not %s", typeName(in))
	}
	binary := truthy(a[0])
	base := 1000.0
	prefixes := []string{"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	if binary {
		base = 1024
		prefixes = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	}
	switch {
	case n == 1:
		return strValue("1 Byte"), nil
	case n < base:
		return strValue(fmt.Sprintf("%d Bytes", int64(n))), nil
	}
	unit := base
	for i, p := range prefixes {
		unit = math.Pow(base, float64(i+2))
		if n < unit || i == len(prefixes)-1 {
			return strValue(fmt.Sprintf("%.1f %s", base*n/unit, p)), nil
		}
	}
	return Value{}, nil
}

func filterFirst(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	it, err := iterate(in)
	if err != nil {
		return Value{}, err
	}
	if it.n == 0 && it.vals == nil || it.n == 0 {
		return undefined, nil
	}
	return it.at(0), nil
}

func filterLast(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	it, err := iterate(in)
	if err != nil {
		return Value{}, err
	}
	if it.n == 0 {
		return undefined, nil
	}
	return it.at(it.n - 1), nil
}

func filterFloat(st *state, in Value, a []Value, _ *extra) (Value, error) {
	switch in.k {
	case Undefined:
		return Value{}, fmt.Errorf("float: the value is undefined")
	case Float:
		return in, nil
	case Int, Bool:
		return floatValue(float64(in.n)), nil
	case String:
		if f, ok := parsePyFloat(in.s); ok {
			return floatValue(f), nil
		}
	}
	return a[0], nil
}

// parsePyFloat parses a string as Python's float() does: surrounding
// whitespace, underscores only between digits, inf, infinity and nan in any
// case, and a number beyond the float range as an infinity.
func parsePyFloat(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || i == len(s)-1 || !isDigitByte(s[i-1]) || !isDigitByte(s[i+1])) {
			return 0, false
		}
	}
	s = strings.ReplaceAll(s, "_", "")
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan", "+nan", "-nan":
		return math.NaN(), true
	}
	if strings.HasPrefix(strings.ToLower(strings.TrimLeft(s, "+-")), "0x") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return f, true // ±Inf, or 0 for an underflow, as Python's float()
	}
	return f, err == nil
}

func filterFormat(st *state, in Value, _ []Value, ex *extra) (Value, error) {
	s, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	var args Value
	switch {
	case ex != nil && ex.kw != nil && len(ex.rest) > 0:
		return Value{}, fmt.Errorf("format takes positional or keyword arguments, not both")
	case ex != nil && ex.kw != nil:
		args = DictValue(ex.kw)
	case ex != nil:
		// Jinja formats with the tuple of the arguments, even of one dict:
		// "%(a)s"|format(d) is an error, as in Jinja; use keywords.
		args = tupleValue(ex.rest)
	default:
		args = tupleValue(nil)
	}
	return percentFormatEscaped(st, s, args, in.isMarkup())
}

func filterGroupby(st *state, in Value, a []Value, _ *extra) (Value, error) {
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	get, err := attrGetter(st, a[0], a[1])
	if err != nil {
		return Value{}, err
	}
	cs := truthy(a[2])
	if err := st.chargeItems(3 * len(items)); err != nil {
		return Value{}, err
	}
	keyOf := func(v Value) Value { k, _ := get(v); return foldCase(k, cs) }
	sorted := slices.Clone(items)
	if err := sortValues(st, sorted, false, keyOf); err != nil {
		return Value{}, err
	}
	var out []Value
	for i := 0; i < len(sorted); {
		k := keyOf(sorted[i])
		j := i + 1
		for j < len(sorted) && equal(keyOf(sorted[j]), k) {
			j++
		}
		// The group's key as its first item has it, not lowered (Jinja's
		// output_expr).
		grouper, _ := get(sorted[i])
		out = append(out, Value{k: Tuple, ref: &seqData{items: []Value{grouper, listValue(slices.Clone(sorted[i:j]))}, names: []string{"grouper", "list"}}})
		i = j
	}
	return listValue(orEmptyValues(out)), nil
}

// attrGetter makes Jinja's make_attrgetter: a dotted path of attributes or
// integer indexes ("user.name", "tags.0"), with a default for undefined.
func attrGetter(st *state, attr Value, def Value) (func(Value) (Value, error), error) {
	var parts []Value
	switch attr.k {
	case String:
		for _, p := range strings.Split(attr.s, ".") {
			// Jinja: int(x) if x.isdigit() else x.
			if n, err := strconv.ParseInt(p, 10, 64); err == nil && p != "" && p[0] >= '0' && p[0] <= '9' {
				parts = append(parts, intValue(n))
			} else {
				parts = append(parts, strValue(p))
			}
		}
	case Int:
		parts = []Value{attr}
	case None:
		return func(v Value) (Value, error) { return v, nil }, nil
	default:
		return nil, fmt.Errorf("attribute must be a string or an integer, not %s", typeName(attr))
	}
	return func(v Value) (Value, error) {
		var err error
		for _, p := range parts {
			base := v
			if v, err = getItem(v, p); err != nil {
				return Value{}, err
			}
			if v.k == Undefined && v.ref == nil && st.strict && def.k == None {
				what, _ := str1(attr)
				v = strictUndefined(&missing{at: st.at, what: fmt.Sprintf("attribute %q of an item", what), base: base, name: p, attr: p.k == String})
			}
		}
		if v.k == Undefined && def.k != None {
			return def, nil
		}
		return v, nil
	}, nil
}

// filterIndent is Jinja's do_indent, quirks included: the text gets a
// newline appended before it is split into lines (so one trailing newline
// is kept as it is), lines split as Python's splitlines splits them, and
// an empty line is not indented unless blank.
func filterIndent(st *state, in Value, a []Value, _ *extra) (Value, error) {
	s, err := strOnly("indent", in)
	if err != nil {
		return Value{}, err
	}
	var pad string
	switch a[0].k {
	case Int, Bool:
		if a[0].n > int64(st.budgetLeft()) {
			return Value{}, st.tooBig(int(min(a[0].n, math.MaxInt32)))
		}
		pad = strings.Repeat(" ", int(max(a[0].n, 0)))
	default:
		if pad, err = str1(a[0]); err != nil {
			return Value{}, err
		}
	}
	lines := splitlines(s + "\n")
	if err := st.charge(len(s) + len(pad)*(len(lines)+1)); err != nil {
		return Value{}, err
	}
	var rv string
	if truthy(a[2]) {
		rv = strings.Join(lines, "\n"+pad)
	} else {
		var b strings.Builder
		b.WriteString(lines[0])
		for _, l := range lines[1:] {
			b.WriteByte('\n')
			if l != "" {
				b.WriteString(pad)
			}
			b.WriteString(l)
		}
		rv = b.String()
	}
	if truthy(a[1]) {
		rv = pad + rv
	}
	return markupLike(in, strValue(rv)), nil
}

// splitlines is Python's str.splitlines: the line boundaries are \n, \r,
// \r\n, \v, \f, \x1c, \x1d, \x1e, \x85, \u2028 and \u2029, and the
// boundary ending the last line makes no empty line after it.
func splitlines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				n++
			}
			start = i + n
		}
		i += n
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// filterInt is Jinja's do_int: int(value) (int(value, base) for a
// string), else int(float(value)), else the default. A value beyond the
// 64-bit range is an error, never the default or a wrapped number; an
// infinity is an error as in Jinja (Python's OverflowError).
func filterInt(st *state, in Value, a []Value, _ *extra) (Value, error) {
	switch in.k {
	case Undefined:
		return Value{}, fmt.Errorf("int: the value is undefined")
	case Int, Bool:
		return intValue(in.n), nil
	case BigInt:
		return in, nil
	case Float:
		return floatToInt(in.float(), a[0])
	case String:
		base, err := argInt("int", "base", a[1])
		if err != nil {
			return Value{}, err
		}
		if n, ok, big := pyParseInt(in.s, base); big != nil || ok {
			if big != nil {
				return bigValue(big), nil
			}
			return intValue(n), nil
		}
		if f, ok := parsePyFloat(in.s); ok {
			if math.IsInf(f, 0) {
				// int(float("inf")) overflows; Jinja 3.1.3 and later give
				// the default (3.1.2 raised).
				return a[0], nil
			}
			return floatToInt(f, a[0])
		}
	}
	return a[0], nil
}

// floatToInt is int(f): truncated; NaN gives def (Python's ValueError,
// which do_int catches).
func floatToInt(f float64, def Value) (Value, error) {
	switch {
	case math.IsNaN(f):
		return def, nil
	case math.IsInf(f, 0):
		return Value{}, fmt.Errorf("cannot convert float infinity to integer")
	case f >= 1<<63 || f < -(1<<63):
		return floatBig(f), nil
	}
	return intValue(int64(f)), nil
}

// pyParseInt parses s as Python's int(s, base): surrounding whitespace,
// a sign, a prefix (0x, 0o, 0b) where the base allows it, digits with
// single underscores between them; base 0 takes the base from the prefix
// and refuses a decimal with a leading zero. ok is false when Python
// would raise ValueError; big is the number when it is beyond 64 bits.
func pyParseInt(s string, base int64) (n int64, ok bool, big *big.Int) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if base != 0 && (base < 2 || base > 36) {
		return 0, false, nil
	}
	prefixed := false
	if len(s) >= 2 && s[0] == '0' {
		p := map[byte]int64{'x': 16, 'o': 8, 'b': 2}[s[1]|0x20]
		if p != 0 && (base == 0 || base == p) {
			base, s, prefixed = p, s[2:], true
		}
	}
	if base == 0 {
		base = 10
		if strings.Trim(s, "0_") == "" && s != "" && s[0] == '0' {
			// 0, 00, 0_0: zero
		} else if s != "" && s[0] == '0' {
			return 0, false, nil
		}
	}
	if prefixed && strings.HasPrefix(s, "_") {
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false, nil
	}
	u, perr := strconv.ParseUint(strings.ReplaceAll(s, "_", ""), int(base), 64)
	if perr != nil && !errors.Is(perr, strconv.ErrRange) {
		return 0, false, nil
	}
	switch {
	case perr != nil:
	case neg && u <= 1<<63:
		return -int64(u), true, nil
	case !neg && u < 1<<63:
		return int64(u), true, nil
	}
	b, _ := parseBigInt(s, int(base), neg)
	return 0, false, b
}

func filterItems(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	switch in.k {
	case Undefined:
		return lazySeq("generator", listValue([]Value{}), nil)
	case Dict:
		v, err := itemsOf(st, in)
		return lazySeq("generator", v, err)
	}
	return Value{}, fmt.Errorf("items needs a dict, not %s", typeName(in))
}

// itemsOf is d.items(): a list of (key, value) tuples.
func itemsOf(st *state, d Value) (Value, error) {
	keys := dictKeys(d)
	if err := st.chargeItems(3 * len(keys)); err != nil {
		return Value{}, err
	}
	out := make([]Value, len(keys))
	for i, k := range keys {
		v, _ := dictGet(d, k)
		out[i] = tupleValue([]Value{k, v})
	}
	return listValue(out), nil
}

func filterJoin(st *state, in Value, a []Value, _ *extra) (Value, error) {
	it, err := iterate(in)
	if err != nil {
		return Value{}, err
	}
	sep, err := str1(a[0])
	if err != nil {
		return Value{}, err
	}
	if a[1].k == None {
		if s, ok, err := joinStrings(st, it, sep); ok || err != nil {
			return s, err
		}
	}
	get, err := attrGetter(st, a[1], none)
	if err != nil {
		return Value{}, err
	}
	p := printer{limit: st.budgetLeft()}
	for i := 0; i < it.n; i++ {
		if i > 0 {
			if err := p.write(sep); err != nil {
				return Value{}, st.printErr(err, len(p.b))
			}
		}
		v, err := get(it.at(i))
		if err != nil {
			return Value{}, err
		}
		if err := p.str(v); err != nil {
			return Value{}, st.printErr(err, len(p.b))
		}
	}
	if err := st.charge(len(p.b)); err != nil {
		return Value{}, err
	}
	return strValue(string(p.b)), nil
}

// joinStrings is join of a sequence of strings (the usual case), sized
// before it is built: one allocation, the result. ok is false when an
// item is not a string.
func joinStrings(st *state, it iterator, sep string) (v Value, ok bool, err error) {
	total := 0
	for i := 0; i < it.n; i++ {
		x := it.at(i)
		if x.k != String {
			return Value{}, false, nil
		}
		total += len(x.s)
	}
	if it.n > 1 {
		total += len(sep) * (it.n - 1)
	}
	if total > st.budgetLeft() {
		return Value{}, true, st.printErr(errPrintSize, total)
	}
	if err := st.charge(total); err != nil {
		return Value{}, true, err
	}
	var b strings.Builder
	b.Grow(total)
	for i := 0; i < it.n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it.at(i).s)
	}
	return strValue(b.String()), true, nil
}

func filterLength(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	n := length(in)
	if n < 0 {
		return Value{}, fmt.Errorf("object of type %s has no len()", typeName(in))
	}
	return intValue(int64(n)), nil
}

func filterList(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	if in.k == String {
		// A list of characters: charged before it is made.
		if err := st.chargeItems(runeCount(in.s)); err != nil {
			return Value{}, err
		}
	}
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.chargeItems(len(items)); err != nil {
		return Value{}, err
	}
	return listValue(slices.Clone(orEmptyValues(items))), nil
}

func filterMap(st *state, in Value, _ []Value, ex *extra) (Value, error) {
	if !truthy(in) {
		in = undefined // Jinja: "if value:" — a false value maps to nothing
	}
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.chargeItems(len(items)); err != nil {
		return Value{}, err
	}
	var f func(Value) (Value, error)
	switch {
	case ex != nil && ex.kw != nil && len(ex.rest) == 0:
		attr, ok := ex.kw.getString("attribute")
		if !ok {
			return Value{}, fmt.Errorf("map needs a filter name or attribute=")
		}
		def, _ := ex.kw.getString("default")
		if def.k == Undefined {
			def = none
		}
		get, err := attrGetter(st, attr, def)
		if err != nil {
			return Value{}, err
		}
		f = get
	case ex != nil && len(ex.rest) > 0:
		name, err := argStr("map", "filter", ex.rest[0])
		if err != nil {
			return Value{}, err
		}
		d, ok := tables().filters[name]
		if !ok || d.refused != "" {
			return Value{}, fmt.Errorf("map: no filter named %q", name)
		}
		args, fex, err := bindArgs(d, ex.rest[1:], ex.kw)
		if err != nil {
			return Value{}, err
		}
		f = func(v Value) (Value, error) { return d.invoke(st, v, args, fex) }
	default:
		return Value{}, fmt.Errorf("map needs a filter name or attribute=")
	}
	out := make([]Value, len(items))
	for i, it := range items {
		if out[i], err = f(it); err != nil {
			return Value{}, err
		}
	}
	return lazySeq("generator", listValue(out), nil)
}

func minMax(st *state, in Value, a []Value, sign int) (Value, error) {
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.spend(int64(len(items))); err != nil {
		return Value{}, err
	}
	if len(items) == 0 {
		return undefined, nil
	}
	get, err := attrGetter(st, a[1], none)
	if err != nil {
		return Value{}, err
	}
	cs := truthy(a[0])
	key := func(v Value) (Value, error) {
		k, err := get(v)
		return foldCase(k, cs), err
	}
	best := items[0]
	bk, err := key(best)
	if err != nil {
		return Value{}, err
	}
	for _, it := range items[1:] {
		k, err := key(it)
		if err != nil {
			return Value{}, err
		}
		c, err := compare(k, bk)
		if err != nil {
			return Value{}, err
		}
		if c*sign > 0 {
			best, bk = it, k
		}
	}
	return best, nil
}

func filterPprint(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	s, err := pformat(in, st.mem)
	if err != nil {
		return Value{}, err
	}
	return strValue(s), st.charge(len(s))
}

// selectFilter makes select, reject, selectattr and rejectattr.
func selectFilter(keep, byAttr bool) builtinFn {
	return func(st *state, in Value, _ []Value, ex *extra) (Value, error) {
		if !truthy(in) {
			in = undefined // Jinja: "if value:" — a false value selects nothing
		}
		items, err := values(in)
		if err != nil {
			return Value{}, err
		}
		if err := st.chargeItems(len(items)); err != nil {
			return Value{}, err
		}
		var rest []Value
		if ex != nil {
			rest = ex.rest
		}
		get := func(v Value) (Value, error) { return v, nil }
		if byAttr {
			if len(rest) == 0 {
				return Value{}, fmt.Errorf("selectattr and rejectattr need an attribute name")
			}
			g, err := attrGetter(st, rest[0], none)
			if err != nil {
				return Value{}, err
			}
			get, rest = g, rest[1:]
		}
		test := func(v Value) (bool, error) { return truthy(v), nil }
		if len(rest) > 0 {
			name, err := argStr("select", "test", rest[0])
			if err != nil {
				return Value{}, err
			}
			d, ok := tables().tests[name]
			if !ok || d.refused != "" {
				return Value{}, fmt.Errorf("no test named %q", name)
			}
			var kw *OrderedDict
			if ex != nil {
				kw = ex.kw
			}
			args, tex, err := bindArgs(d, rest[1:], kw)
			if err != nil {
				return Value{}, err
			}
			test = func(v Value) (bool, error) {
				r, err := d.invoke(st, v, args, tex)
				return truthy(r), err
			}
		}
		var out []Value
		for _, it := range items {
			v, err := get(it)
			if err != nil {
				return Value{}, err
			}
			ok, err := test(v)
			if err != nil {
				return Value{}, err
			}
			if ok == keep {
				out = append(out, it)
			}
		}
		return lazySeq("generator", listValue(orEmptyValues(out)), nil)
	}
}

func filterReplace(st *state, in Value, a []Value, _ *extra) (Value, error) {
	s, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	old, err := str1(a[0])
	if err != nil {
		return Value{}, err
	}
	repl, err := str1(a[1])
	if err != nil {
		return Value{}, err
	}
	n := -1
	if a[2].k != None {
		c, err := argInt("replace", "count", a[2])
		if err != nil {
			return Value{}, err
		}
		n = int(c)
	}
	r, err := replaceN(st, s, old, repl, n)
	return strValue(r), err
}

// replaceN is Python's str.replace with the result's size charged first.
func replaceN(st *state, s, old, repl string, n int) (string, error) {
	c := strings.Count(s, old)
	if n >= 0 && n < c {
		c = n
	}
	grow := len(s) + c*(len(repl)-len(old))
	if c > 0 && len(repl) > len(old) && (len(repl)-len(old)) > (st.budgetLeft()-len(s))/c {
		return "", st.tooBig(grow)
	}
	if err := st.charge(max(grow, 0)); err != nil {
		return "", err
	}
	return strings.Replace(s, old, repl, n), nil
}

func filterReverse(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	if in.k == String {
		if err := st.charge(len(in.s)); err != nil {
			return Value{}, err
		}
		rs := []rune(in.s)
		slices.Reverse(rs)
		return markupLike(in, strValue(string(rs))), nil
	}
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.chargeItems(len(items)); err != nil {
		return Value{}, err
	}
	out := slices.Clone(items)
	slices.Reverse(out)
	kind := "list_reverseiterator"
	switch in.k {
	case Tuple:
		kind = "reversed"
	case Dict:
		kind = "dict_reversekeyiterator"
	}
	return lazySeq(kind, listValue(orEmptyValues(out)), nil)
}

func filterRound(st *state, in Value, a []Value, _ *extra) (Value, error) {
	if !in.isNumber() && in.k != BigInt {
		return Value{}, fmt.Errorf("round needs a number, not %s", typeName(in))
	}
	p, err := argInt("round", "precision", a[0])
	if err != nil {
		return Value{}, err
	}
	method, _ := str1(a[1])
	if method != "common" && method != "ceil" && method != "floor" {
		return Value{}, fmt.Errorf("round: method must be 'common', 'ceil' or 'floor'")
	}
	if method == "common" && in.k != Float {
		// Python's round() of an integer is an integer: unchanged, or
		// rounded half to even to a multiple of 10**-precision.
		if in.k == BigInt {
			return roundBig(st, toBig(in), p)
		}
		r, err := roundInt(in.n, p)
		if errors.Is(err, errOverflow) {
			return roundBig(st, toBig(in), p)
		}
		return r, err
	}
	f, err := numFloat(in)
	if err != nil {
		return Value{}, err
	}
	switch method {
	case "common":
		// Python's round(), which Jinja calls, rounds half to even on the
		// decimal value actually stored.
		if p < 0 {
			scale := math.Pow(10, float64(-p))
			return floatValue(math.RoundToEven(f/scale) * scale), nil
		}
		r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', int(min(p, 400)), 64), 64)
		return floatValue(r), nil
	case "ceil":
		// math.ceil(value * 10**precision) / 10**precision: a float.
		scale := math.Pow(10, float64(p))
		return floatValue(math.Ceil(f*scale) / scale), nil
	}
	scale := math.Pow(10, float64(p))
	return floatValue(math.Floor(f*scale) / scale), nil
}

// roundBig is Python's round(n, precision) of an integer, in big
// integers: half to even, to a multiple of 10**-precision.
func roundBig(st *state, n *big.Int, p int64) (Value, error) {
	if p >= 0 {
		return bigValue(n), nil
	}
	if -p > int64(n.BitLen()) {
		return intValue(0), nil // 10**-p > |n|*2: rounds to 0
	}
	m := new(big.Int).Exp(big.NewInt(10), big.NewInt(-p), nil)
	q, r := new(big.Int).QuoRem(n, m, new(big.Int))
	if r.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
		r.Add(r, m)
	}
	switch c := new(big.Int).Lsh(r, 1).Cmp(m); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	return bigValue(q.Mul(q, m)), nil
}

// roundInt is Python's round(n, precision) of an integer.
func roundInt(n, p int64) (Value, error) {
	if p >= 0 {
		return intValue(n), nil
	}
	if p < -18 {
		return intValue(0), nil // |n| < 10**19 / 2: rounds to 0
	}
	m := int64(1)
	for i := int64(0); i < -p; i++ {
		m *= 10
	}
	q, r := n/m, n%m
	if r < 0 {
		q, r = q-1, r+m
	}
	if 2*r > m || (2*r == m && q%2 != 0) {
		q++
	}
	if q > math.MaxInt64/m || q < math.MinInt64/m {
		return Value{}, errOverflow
	}
	return intValue(q * m), nil
}

func filterSlice(st *state, in Value, a []Value, _ *extra) (Value, error) {
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	n, err := argInt("slice", "slices", a[0])
	if err != nil {
		return Value{}, err
	}
	if n <= 0 {
		return Value{}, fmt.Errorf("slice: slices must be positive")
	}
	if err := st.chargeItems(len(items) + int(n)); err != nil {
		return Value{}, err
	}
	per, extraN := len(items)/int(n), len(items)%int(n)
	var out []Value
	offset := 0
	for i := 0; i < int(n); i++ {
		start := offset + i*per
		if i < extraN {
			offset++
		}
		end := offset + (i+1)*per
		row := slices.Clone(items[start:end])
		if a[1].k != None && i >= extraN {
			row = append(row, a[1])
		}
		out = append(out, listValue(orEmptyValues(row)))
	}
	return lazySeq("generator", listValue(out), nil)
}

func filterSort(st *state, in Value, a []Value, _ *extra) (Value, error) {
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.chargeItems(len(items)); err != nil {
		return Value{}, err
	}
	// As Jinja's make_multi_attrgetter: "age,name" sorts by age, then by
	// name.
	attrs := []Value{a[2]}
	if a[2].k == String && strings.Contains(a[2].s, ",") {
		attrs = attrs[:0]
		for _, p := range strings.Split(a[2].s, ",") {
			attrs = append(attrs, strValue(p))
		}
	}
	getters := make([]func(Value) (Value, error), len(attrs))
	for i, at := range attrs {
		if getters[i], err = attrGetter(st, at, none); err != nil {
			return Value{}, err
		}
	}
	out := slices.Clone(items)
	cs := truthy(a[1])
	var gerr error
	key := func(get func(Value) (Value, error), v Value) Value {
		k, err := get(v)
		if err != nil && gerr == nil {
			gerr = err
		}
		return foldCase(k, cs)
	}
	// The keys are lists, as make_multi_attrgetter makes them even for one
	// attribute: equal items (None and None, two dicts) compare equal
	// instead of failing on "<".
	err = sortValues(st, out, truthy(a[0]), func(v Value) Value {
		ks := make([]Value, len(getters))
		for i, g := range getters {
			ks[i] = key(g, v)
		}
		return listValue(ks)
	})
	if err == nil {
		err = gerr
	}
	return listValue(orEmptyValues(out)), err
}

// The filters' regular expressions are compiled when a render first
// needs one, not when a process starts: most processes never do.
var (
	tagRE        = lazyRE(`(?s)<!--.*?-->|<[^>]*>`)
	spaceRE      = lazyRE(`\s+`)
	entityRE     = lazyRE(`&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);`)
	wordRE       = lazyRE(`[\pL\pN_]+`)
	namedEntity  = map[string]string{"amp": "&", "lt": "<", "gt": ">", "quot": `"`, "apos": "'", "nbsp": "\u00a0"}
	xmlAttrKeyRE = lazyRE(`[\s/>=]`)
)

func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func filterStriptags(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	s, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.charge(len(s)); err != nil {
		return Value{}, err
	}
	s = tagRE().ReplaceAllString(s, "")
	s = strings.Join(strings.Fields(spaceRE().ReplaceAllString(s, " ")), " ")
	s = entityRE().ReplaceAllStringFunc(s, func(e string) string {
		name := e[1 : len(e)-1]
		if name[0] == '#' {
			var n int64
			var err error
			if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
				n, err = strconv.ParseInt(name[2:], 16, 32)
			} else {
				n, err = strconv.ParseInt(name[1:], 10, 32)
			}
			if err == nil && utf8.ValidRune(rune(n)) {
				return string(rune(n))
			}
			return e
		}
		if r, ok := namedEntity[name]; ok {
			return r
		}
		return e
	})
	return strValue(s), nil
}

func filterSum(st *state, in Value, a []Value, _ *extra) (Value, error) {
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.spend(int64(len(items))); err != nil {
		return Value{}, err
	}
	get, err := attrGetter(st, a[0], none)
	if err != nil {
		return Value{}, err
	}
	acc := a[1]
	for _, it := range items {
		v, err := get(it)
		if err != nil {
			return Value{}, err
		}
		if acc, err = arith(st, "+", acc, v); err != nil {
			return Value{}, err
		}
	}
	return acc, nil
}

// jinjaTitle is Jinja's title filter (not Python's str.title): the text is
// split before runs of "-", whitespace, "(", "{", "[" and "<", and each
// piece has its first character upper-cased and the rest lower-cased.
func jinjaTitle(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := 0 // where the current piece starts
	flush := func(end int) {
		if piece := s[start:end]; piece != "" {
			if c := piece[0]; c < utf8.RuneSelf {
				b.WriteByte(asciiUpper(c))
				b.WriteString(pyLower(piece[1:]))
				return
			}
			_, n := utf8.DecodeRuneInString(piece)
			b.WriteString(pyUpper(piece[:n]))
			b.WriteString(pyLower(piece[n:]))
		}
	}
	for i, r := range s {
		if titleBreak(r) {
			flush(i)
			b.WriteRune(r)
			start = i + utf8.RuneLen(r)
		}
	}
	flush(len(s))
	return b.String()
}

func filterTrim(st *state, in Value, a []Value, _ *extra) (Value, error) {
	s, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	if a[0].k == None || a[0].k == Undefined {
		return markupLike(in, strValue(strings.TrimFunc(s, pyIsSpace))), nil
	}
	chars, err := str1(a[0])
	if err != nil {
		return Value{}, err
	}
	if in.isMarkup() {
		chars = htmlEscape(chars) // Markup.strip escapes its argument
	}
	return markupLike(in, strValue(strings.Trim(s, chars))), nil
}

// strOnly is the input of the filters Jinja implements with string
// operations on the value itself (s += "\n", s.splitlines()), which fail
// for anything but a string, an undefined value included.
func strOnly(filter string, in Value) (string, error) {
	switch in.k {
	case String:
		return in.s, nil
	case Undefined:
		return "", fmt.Errorf("%s: the value is undefined", filter)
	}
	return "", fmt.Errorf("%s needs a string, not %s", filter, typeName(in))
}

func filterTruncate(st *state, in Value, a []Value, _ *extra) (Value, error) {
	// Jinja's do_truncate measures its input with len() and cuts it as a
	// string: a number has no length; a list or dict short enough comes
	// back as it is, a longer one cannot be cut.
	var s string
	switch in.k {
	case String, Undefined:
		s = in.s
	case List, Tuple, Dict:
	default:
		return Value{}, fmt.Errorf("truncate: %s has no length", typeName(in))
	}
	n, err := argInt("truncate", "length", a[0])
	if err != nil {
		return Value{}, err
	}
	end, err := str1(a[2])
	if err != nil {
		return Value{}, err
	}
	leeway := int64(5)
	if a[3].k != None {
		if leeway, err = argInt("truncate", "leeway", a[3]); err != nil {
			return Value{}, err
		}
	}
	if n < int64(runeCount(end)) {
		return Value{}, fmt.Errorf("truncate: expected length >= %d, got %d", runeCount(end), n)
	}
	if leeway < 0 {
		return Value{}, fmt.Errorf("truncate: expected leeway >= 0, got %d", leeway)
	}
	if in.k != String && in.k != Undefined {
		if int64(length(in)) <= n+leeway {
			return in, nil
		}
		return Value{}, fmt.Errorf("truncate: a %s cannot be cut like a string", typeName(in))
	}
	rs := []rune(s)
	if int64(len(rs)) <= n+leeway {
		return in, nil
	}
	cut := rs[:n-int64(runeCount(end))]
	if in.isMarkup() {
		end = htmlEscape(end) // Markup + end escapes end
	}
	if truthy(a[1]) {
		return markupLike(in, strValue(string(cut)+end)), nil
	}
	str := string(cut)
	if i := strings.LastIndex(str, " "); i >= 0 {
		str = str[:i]
	}
	return markupLike(in, strValue(str+end)), nil
}

func filterUnique(st *state, in Value, a []Value, _ *extra) (Value, error) {
	items, err := values(in)
	if err != nil {
		return Value{}, err
	}
	if err := st.chargeItems(len(items)); err != nil {
		return Value{}, err
	}
	if err := st.spend(int64(len(items))); err != nil {
		return Value{}, err
	}
	get, err := attrGetter(st, a[1], none)
	if err != nil {
		return Value{}, err
	}
	cs := truthy(a[0])
	// Hashable keys (strings, numbers, tuples of them) are found in a
	// set: linear, as Python's is. Unhashable ones are refused, as Python
	// refuses them.
	seen := map[dictKey]bool{}
	var out []Value
	for _, it := range items {
		k, err := get(it)
		if err != nil {
			return Value{}, err
		}
		hk, ok := keyOf(foldCase(k, cs))
		if err := undefinedUse(k, "hashed by unique"); err != nil {
			return Value{}, err
		}
		if k.k == Undefined {
			hk, ok = dictKey{k: Undefined}, true // Undefined is hashable, all equal
		}
		if !ok || unhashable(k) != "" {
			return Value{}, fmt.Errorf("unique: unhashable type %s", typeName(k))
		}
		if !seen[hk] {
			seen[hk] = true
			out = append(out, it)
		}
	}
	return lazySeq("generator", listValue(orEmptyValues(out)), nil)
}

// filterURLEncode is Jinja's do_urlencode: a string (or any value that
// is not iterable) is quoted keeping "/"; a dict or a sequence of pairs
// becomes a query string, its keys and values quoted with spaces as "+".
func filterURLEncode(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	quote := func(v Value, forQS bool) (string, error) {
		s, err := str1(v)
		if err != nil {
			return "", err
		}
		if err := st.charge(3 * len(s)); err != nil {
			return "", err
		}
		return urlQuote(s, forQS), nil
	}
	switch in.k {
	case Dict, List, Tuple, Undefined:
		var pairs []Value
		if in.k == Dict {
			p, err := itemsOf(st, in)
			if err != nil {
				return Value{}, err
			}
			pairs, _ = values(p)
		} else {
			pairs, _ = values(in)
		}
		var b strings.Builder
		for i, p := range pairs {
			kv, err := values(p)
			if err != nil || len(kv) != 2 {
				return Value{}, fmt.Errorf("urlencode needs a string, a dict or a sequence of pairs")
			}
			k, err := quote(kv[0], true)
			if err != nil {
				return Value{}, err
			}
			v, err := quote(kv[1], true)
			if err != nil {
				return Value{}, err
			}
			if i > 0 {
				b.WriteByte('&')
			}
			b.WriteString(k + "=" + v)
		}
		return strValue(b.String()), nil
	}
	s, err := quote(in, false)
	return strValue(s), err
}

// urlQuote is Jinja's url_quote: Python's quote_from_bytes of the UTF-8
// bytes, which keeps letters, digits and "_.-~" (and "/" outside a query
// string), with "+" for a space in a query string.
func urlQuote(s string, forQS bool) string {
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-', c == '~',
			c == '/' && !forQS:
			b = append(b, c)
		case c == ' ' && forQS:
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

func filterURLize(st *state, in Value, a []Value, _ *extra) (Value, error) {
	trim, rel, target, schemes, err := urlizeArgs(a)
	if err != nil {
		return Value{}, err
	}
	text, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	if !in.isMarkup() {
		text = htmlEscape(text)
	}
	if err := st.charge(len(text)); err != nil {
		return Value{}, err
	}
	out, err := urlize(text, trim, rel, target, schemes, st.charge)
	if err != nil {
		return Value{}, err
	}
	return strValue(out), nil // Markup only with autoescape on
}

func filterWordcount(st *state, in Value, _ []Value, _ *extra) (Value, error) {
	s, err := str1(in)
	if err != nil {
		return Value{}, err
	}
	return intValue(int64(len(wordRE().FindAllStringIndex(s, -1)))), nil
}

func filterWordwrap(st *state, in Value, a []Value, _ *extra) (Value, error) {
	s, err := strOnly("wordwrap", in)
	if err != nil {
		return Value{}, err
	}
	width, err := argInt("wordwrap", "width", a[0])
	if err != nil {
		return Value{}, err
	}
	if width <= 0 {
		return Value{}, fmt.Errorf("wordwrap: width must be positive")
	}
	wrap := "\n"
	if a[2].k != None {
		if wrap, err = str1(a[2]); err != nil {
			return Value{}, err
		}
	}
	if err := st.charge(2 * len(s)); err != nil {
		return Value{}, err
	}
	// Jinja wraps each line of the text on its own (textwrap.wrap, which
	// drops leading whitespace and collapses nothing else), the lines split
	// as str.splitlines splits them.
	var out []string
	for _, line := range splitlines(s) {
		out = append(out, strings.Join(textWrap(line, int(width), truthy(a[1]), truthy(a[3])), wrap))
	}
	return strValue(strings.Join(out, wrap)), nil
}

// textWrap is Python's textwrap.wrap with Jinja's settings
// (replace_whitespace=False, drop_whitespace=True, expand_tabs=False).
func textWrap(text string, width int, breakLong, breakHyphens bool) []string {
	rs := []rune(text)
	var chunks [][]rune
	if breakHyphens {
		chunks = wordsep(rs)
	} else {
		// textwrap's wordsep_simple_re: runs of white space and the rest.
		for i := 0; i < len(rs); {
			j := i + 1
			for j < len(rs) && wrapSpace(rs[j]) == wrapSpace(rs[i]) {
				j++
			}
			chunks = append(chunks, rs[i:j])
			i = j
		}
	}
	blank := func(c []rune) bool {
		for _, r := range c {
			if !pyIsSpace(r) {
				return false
			}
		}
		return true // chunk.strip() == ''
	}
	// CPython's TextWrapper._wrap_chunks (drop_whitespace, no indents).
	var lines []string
	for len(chunks) > 0 {
		var cur [][]rune
		curLen := 0
		if blank(chunks[0]) && len(lines) > 0 {
			chunks = chunks[1:]
		}
		for len(chunks) > 0 && curLen+len(chunks[0]) <= width {
			cur = append(cur, chunks[0])
			curLen += len(chunks[0])
			chunks = chunks[1:]
		}
		if len(chunks) > 0 && len(chunks[0]) > width {
			// _handle_long_word; with the line full it adds an empty
			// piece, so a white space before it is not dropped.
			space := width - curLen
			if width < 1 {
				space = 1
			}
			if breakLong {
				end, c := space, chunks[0]
				if breakHyphens && len(c) > space {
					if h := lastIndexRune(c[:max(space, 0)], '-'); h > 0 && slices.ContainsFunc(c[:h], func(r rune) bool { return r != '-' }) {
						end = h + 1
					}
				}
				end = max(end, 0)
				cur = append(cur, c[:end])
				chunks[0] = c[end:]
			} else if len(cur) == 0 {
				cur = append(cur, chunks[0])
				chunks = chunks[1:]
			}
		}
		if len(cur) > 0 && blank(cur[len(cur)-1]) {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			var b strings.Builder
			for _, c := range cur {
				b.WriteString(string(c))
			}
			lines = append(lines, b.String())
		}
	}
	return lines
}

func lastIndexRune(rs []rune, r rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == r {
			return i
		}
	}
	return -1
}

// wrapSpace is textwrap's white space: ASCII only.
func wrapSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// The character classes of textwrap's wordsep_re: \w, a letter ([^\d\W])
// and word punctuation.
func reWord(r rune) bool   { return r == '_' || pyIsAlnum(r) }
func reLetter(r rune) bool { return reWord(r) && !pyIsDecimal(r) }
func rePunct(r rune) bool  { return reWord(r) || strings.ContainsRune(`!"'&.,?`, r) }

// wordsep splits text as textwrap's wordsep_re does (break_on_hyphens):
// runs of white space; an em-dash (two or more hyphens) between words; and
// words, split after a hyphen between letters.
func wordsep(rs []rune) [][]rune {
	n := len(rs)
	at := func(i int, f func(rune) bool) bool { return i >= 0 && i < n && f(rs[i]) }
	is := func(i int, r rune) bool { return i >= 0 && i < n && rs[i] == r }
	// dashWord: two or more hyphens at i, then a word character.
	dashWord := func(i int) (int, bool) {
		j := i
		for j < n && rs[j] == '-' {
			j++
		}
		return j, j-i >= 2 && at(j, reWord)
	}
	var out [][]rune
	for i := 0; i < n; {
		if wrapSpace(rs[i]) {
			j := i
			for j < n && wrapSpace(rs[j]) {
				j++
			}
			out = append(out, rs[i:j])
			i = j
			continue
		}
		if rs[i] == '-' && at(i-1, rePunct) {
			if j, ok := dashWord(i); ok {
				out = append(out, rs[i:j])
				i = j
				continue
			}
		}
		end := i + 1 // the lazy non-space run rs[i:end]
		for {
			// A hyphen after two letters (or after L-L-), before a letter,
			// an optional hyphen and a letter: the word ends after it.
			if is(end, '-') && (at(end-1, reLetter) && at(end-2, reLetter) || at(end-1, reLetter) && is(end-2, '-') && at(end-3, reLetter)) &&
				at(end+1, reLetter) && (at(end+2, reLetter) || is(end+2, '-') && at(end+3, reLetter)) {
				end++
				break
			}
			if end == n || wrapSpace(rs[end]) {
				break
			}
			if at(end-1, rePunct) {
				if _, ok := dashWord(end); ok {
					break
				}
			}
			end++
		}
		out = append(out, rs[i:end])
		i = end
	}
	return out
}

func filterXMLAttr(st *state, in Value, a []Value, _ *extra) (Value, error) {
	if in.k != Dict {
		return Value{}, fmt.Errorf("xmlattr needs a dict, not %s", typeName(in))
	}
	var parts []string
	for _, k := range dictKeys(in) {
		v, _ := dictGet(in, k)
		if v.k == None || v.k == Undefined {
			continue
		}
		ks, err := str1(k)
		if err != nil {
			return Value{}, err
		}
		if xmlAttrKeyRE().MatchString(ks) {
			return Value{}, fmt.Errorf("xmlattr: invalid character in attribute name %q", ks)
		}
		vs, err := str1(v)
		if err != nil {
			return Value{}, err
		}
		parts = append(parts, fmt.Sprintf(`%s="%s"`, htmlEscape(ks), htmlEscape(vs)))
	}
	s := strings.Join(parts, " ")
	if len(parts) > 0 && truthy(a[0]) {
		s = " " + s
	}
	return strValue(s), nil // Markup only with autoescape on
}
