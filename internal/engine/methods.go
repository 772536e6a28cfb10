package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// The methods of Python's str, dict and list that templates call. Values
// are data: the methods that would change a value (append, pop, update,
// …) are refused, as Hugging Face's immutable sandbox refuses them.

const immutable = "templates cannot change the values they are given; build a new value instead (a + [x], dict(d, k=v), or a namespace)"

func defineMethods(methods map[string]*methodSet) {
	s := func(name string, out jinja.Result, params []param, fn builtinFn) {
		m := methods[name]
		if m == nil {
			m = &methodSet{}
			methods[name] = m
		}
		m.str = &builtinDef{name: name, params: params, out: out, fn: fn}
	}
	strFn := func(f func(string) string) builtinFn {
		return func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
			if err := st.charge(len(in.s)); err != nil {
				return Value{}, err
			}
			return strValue(f(in.s)), nil
		}
	}
	boolFn := func(f func(string) bool) builtinFn {
		return func(_ *state, in Value, _ []Value, _ *extra) (Value, error) { return boolValue(f(in.s)), nil }
	}
	s("upper", outString, nil, strFn(pyUpper))
	s("lower", outString, nil, strFn(pyLower))
	s("casefold", outString, nil, strFn(pyCasefold))
	s("title", outString, nil, strFn(pyTitle))
	s("capitalize", outString, nil, strFn(pyCapitalize))
	s("swapcase", outString, nil, strFn(pySwapcase))
	strip := func(trim func(string, string) string, trimSpace func(string) string) builtinFn {
		return func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			if a[0].k == None {
				return strValue(trimSpace(in.s)), nil
			}
			chars, err := argStr("strip", "chars", a[0])
			if err != nil {
				return Value{}, err
			}
			return strValue(trim(in.s, chars)), nil
		}
	}
	s("strip", outString, []param{opt("chars", none)}, strip(strings.Trim, func(x string) string { return strings.TrimFunc(x, pyIsSpace) }))
	s("lstrip", outString, []param{opt("chars", none)}, strip(strings.TrimLeft, func(x string) string { return strings.TrimLeftFunc(x, pyIsSpace) }))
	s("rstrip", outString, []param{opt("chars", none)}, strip(strings.TrimRight, func(x string) string { return strings.TrimRightFunc(x, pyIsSpace) }))
	s("split", outStrings, []param{opt("sep", none), opt("maxsplit", intValue(-1))}, func(st *state, in Value, a []Value, _ *extra) (Value, error) {
		return pySplit(st, in.s, a[0], a[1], false)
	})
	s("rsplit", outStrings, []param{opt("sep", none), opt("maxsplit", intValue(-1))}, func(st *state, in Value, a []Value, _ *extra) (Value, error) {
		return pySplit(st, in.s, a[0], a[1], true)
	})
	s("splitlines", outStrings, []param{opt("keepends", vFalse)}, func(st *state, in Value, a []Value, _ *extra) (Value, error) {
		if truthy(a[0]) {
			return Value{}, fmt.Errorf("splitlines(keepends=True) is not supported")
		}
		lines := splitlines(in.s)
		if err := st.chargeItems(len(lines)); err != nil {
			return Value{}, err
		}
		out := make([]Value, len(lines))
		for i, l := range lines {
			out[i] = strValue(l)
		}
		return listValue(out), nil
	})
	affix := func(has func(string, string) bool) builtinFn {
		return func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
			sub, err := sliceArgs(in.s, a[1], a[2])
			if err != nil {
				return Value{}, err
			}
			if a[0].k == Tuple || a[0].k == List {
				for i := 0; i < seqLen(a[0]); i++ {
					p := seqAt(a[0], i)
					if p.k != String {
						return Value{}, fmt.Errorf("tuple for startswith/endswith must hold strings, not %s", typeName(p))
					}
					if has(sub, p.s) {
						return vTrue, nil
					}
				}
				return vFalse, nil
			}
			p, err := argStr("startswith", "prefix", a[0])
			if err != nil {
				return Value{}, err
			}
			return boolValue(has(sub, p)), nil
		}
	}
	s("startswith", outBool, []param{req("prefix"), opt("start", none), opt("end", none)}, affix(strings.HasPrefix))
	s("endswith", outBool, []param{req("suffix"), opt("start", none), opt("end", none)}, affix(strings.HasSuffix))
	s("replace", outString, []param{req("old"), req("new"), opt("count", intValue(-1))}, func(st *state, in Value, a []Value, _ *extra) (Value, error) {
		old, err := argStr("replace", "old", a[0])
		if err != nil {
			return Value{}, err
		}
		repl, err := argStr("replace", "new", a[1])
		if err != nil {
			return Value{}, err
		}
		n, err := argInt("replace", "count", a[2])
		if err != nil {
			return Value{}, err
		}
		r, err := replaceN(st, in.s, old, repl, int(n))
		return strValue(r), err
	})
	s("join", outString, []param{req("iterable")}, func(st *state, in Value, a []Value, _ *extra) (Value, error) {
		items, err := values(a[0])
		if err != nil {
			return Value{}, err
		}
		p := printer{limit: st.budgetLeft()}
		for i, it := range items {
			if it.k != String {
				return Value{}, fmt.Errorf("sequence item %d: expected str instance, %s found", i, typeName(it))
			}
			if i > 0 {
				if err := p.write(in.s); err != nil {
					return Value{}, st.printErr(err, len(p.b))
				}
			}
			if err := p.write(it.s); err != nil {
				return Value{}, st.printErr(err, len(p.b))
			}
		}
		return strValue(string(p.b)), st.charge(len(p.b))
	})
	s("count", outInt, []param{req("sub"), opt("start", none), opt("end", none)}, func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
		sub, err := argStr("count", "sub", a[0])
		if err != nil {
			return Value{}, err
		}
		str, err := sliceArgs(in.s, a[1], a[2])
		if err != nil {
			return Value{}, err
		}
		if sub == "" {
			return intValue(int64(runeCount(str) + 1)), nil
		}
		return intValue(int64(strings.Count(str, sub))), nil
	})
	find := func(last, raise bool) builtinFn {
		return func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
			sub, err := argStr("find", "sub", a[0])
			if err != nil {
				return Value{}, err
			}
			start := int64(0)
			if a[1].k != None {
				if start, err = argInt("find", "start", a[1]); err != nil {
					return Value{}, err
				}
			}
			str, err := sliceArgs(in.s, a[1], a[2])
			if err != nil {
				return Value{}, err
			}
			var i int
			if last {
				i = strings.LastIndex(str, sub)
			} else {
				i = strings.Index(str, sub)
			}
			if i < 0 {
				if raise {
					return Value{}, fmt.Errorf("substring not found")
				}
				return intValue(-1), nil
			}
			if start < 0 {
				start = max(start+int64(runeCount(in.s)), 0)
			}
			return intValue(start + int64(runeCount(str[:i]))), nil
		}
	}
	rng := []param{req("sub"), opt("start", none), opt("end", none)}
	s("find", outInt, rng, find(false, false))
	s("rfind", outInt, rng, find(true, false))
	s("index", outInt, rng, find(false, true))
	s("rindex", outInt, rng, find(true, true))
	s("isdigit", outBool, nil, boolFn(func(x string) bool { return x != "" && allRunes(x, pyIsDigit) }))
	s("isdecimal", outBool, nil, boolFn(func(x string) bool { return x != "" && allRunes(x, pyIsDecimal) }))
	s("isnumeric", outBool, nil, boolFn(func(x string) bool { return x != "" && allRunes(x, pyIsNumeric) }))
	s("isalpha", outBool, nil, boolFn(func(x string) bool { return x != "" && allRunes(x, pyIsAlpha) }))
	s("isalnum", outBool, nil, boolFn(func(x string) bool { return x != "" && allRunes(x, pyIsAlnum) }))
	s("isascii", outBool, nil, boolFn(isASCII))
	s("isprintable", outBool, nil, boolFn(func(x string) bool { return allRunes(x, pyIsPrintable) }))
	s("isidentifier", outBool, nil, boolFn(func(x string) bool {
		for i, r := range x {
			if !(r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc))) {
				return false
			}
		}
		return x != ""
	}))
	remove := func(name string, cut func(s, affix string) (string, bool)) {
		s(name, outString, []param{req(name[len("remove"):])}, func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
			x, err := argStr(name, name[len("remove"):], a[0])
			if err != nil {
				return Value{}, err
			}
			r, _ := cut(in.s, x)
			return strValue(r), nil
		})
	}
	remove("removeprefix", strings.CutPrefix)
	remove("removesuffix", strings.CutSuffix)
	s("isspace", outBool, nil, boolFn(func(x string) bool { return x != "" && allRunes(x, pyIsSpace) }))
	s("islower", outBool, nil, boolFn(pyIsLower))
	s("isupper", outBool, nil, boolFn(pyIsUpper))
	s("istitle", outBool, nil, boolFn(pyIsTitle))
	pad := func(kind byte) builtinFn {
		return func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			w, err := argInt("ljust", "width", a[0])
			if err != nil {
				return Value{}, err
			}
			fill := " "
			if a[1].k == String {
				if runeCount(a[1].s) != 1 {
					return Value{}, fmt.Errorf("the fill character must be exactly one character long")
				}
				fill = a[1].s
			}
			n := runeCount(in.s)
			if int64(n) >= w {
				return in, nil
			}
			if err := st.charge(int(w) * len(fill)); err != nil {
				return Value{}, err
			}
			p := int(w) - n
			switch kind {
			case 'l':
				return strValue(in.s + strings.Repeat(fill, p)), nil
			case 'r':
				return strValue(strings.Repeat(fill, p) + in.s), nil
			}
			left := centerLeft(p, int(w))
			return strValue(strings.Repeat(fill, left) + in.s + strings.Repeat(fill, p-left)), nil
		}
	}
	s("ljust", outString, []param{req("width"), opt("fillchar", strValue(" "))}, pad('l'))
	s("rjust", outString, []param{req("width"), opt("fillchar", strValue(" "))}, pad('r'))
	s("center", outString, []param{req("width"), opt("fillchar", strValue(" "))}, pad('c'))
	s("zfill", outString, []param{req("width")}, func(st *state, in Value, a []Value, _ *extra) (Value, error) {
		w, err := argInt("zfill", "width", a[0])
		if err != nil {
			return Value{}, err
		}
		n := runeCount(in.s)
		if int64(n) >= w {
			return in, nil
		}
		if err := st.charge(int(w)); err != nil {
			return Value{}, err
		}
		sign, rest := "", in.s
		if rest != "" && (rest[0] == '+' || rest[0] == '-') {
			sign, rest = rest[:1], rest[1:]
		}
		return strValue(sign + strings.Repeat("0", int(w)-n) + rest), nil
	})
	part := func(last bool) builtinFn {
		return func(st *state, in Value, a []Value, _ *extra) (Value, error) {
			sep, err := argStr("partition", "sep", a[0])
			if err != nil {
				return Value{}, err
			}
			if sep == "" {
				return Value{}, fmt.Errorf("empty separator")
			}
			var i int
			if last {
				i = strings.LastIndex(in.s, sep)
			} else {
				i = strings.Index(in.s, sep)
			}
			if i < 0 {
				if last {
					return tupleValue([]Value{strValue(""), strValue(""), in}), nil
				}
				return tupleValue([]Value{in, strValue(""), strValue("")}), nil
			}
			return tupleValue([]Value{strValue(in.s[:i]), strValue(sep), strValue(in.s[i+len(sep):])}), nil
		}
	}
	s("partition", outUnknown, []param{req("sep")}, part(false))
	s("rpartition", outUnknown, []param{req("sep")}, part(true))
	s("format", outString, nil, strFormat)
	methods["format"].str.rest, methods["format"].str.anyKw = true, true
	s("expandtabs", outString, []param{opt("tabsize", intValue(8))}, func(st *state, in Value, a []Value, _ *extra) (Value, error) {
		n, err := argInt("expandtabs", "tabsize", a[0])
		if err != nil {
			return Value{}, err
		}
		// Two passes: the size, charged, then the string.
		size, col := 0, int64(0)
		for _, r := range in.s {
			switch r {
			case '\t':
				if n > 0 {
					k := n - col%n
					if k > int64(st.budgetLeft()-size) {
						return Value{}, st.tooBig(int(min(int64(size)+k, math.MaxInt)))
					}
					size += int(k)
					col += k
				}
			case '\n', '\r':
				size++
				col = 0
			default:
				size += utf8.RuneLen(r)
				col++
			}
		}
		if err := st.charge(size); err != nil {
			return Value{}, err
		}
		var b strings.Builder
		b.Grow(size)
		col = 0
		for _, r := range in.s {
			switch r {
			case '\t':
				if n > 0 {
					k := n - col%n
					for range k {
						b.WriteByte(' ')
					}
					col += k
				}
			case '\n', '\r':
				b.WriteRune(r)
				col = 0
			default:
				b.WriteRune(r)
				col++
			}
		}
		return strValue(b.String()), nil
	})

	d := func(name string, out jinja.Result, params []param, fn builtinFn) {
		m := methods[name]
		if m == nil {
			m = &methodSet{}
			methods[name] = m
		}
		m.dict = &builtinDef{name: name, params: params, out: out, fn: fn}
	}
	d("items", outUnknown, nil, func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
		v, err := itemsOf(st, in)
		return lazySeq("dict_items", v, err)
	})
	d("keys", outStrings, nil, func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
		keys := dictKeys(in)
		return lazySeq("dict_keys", listValue(keys), st.chargeItems(len(keys)))
	})
	d("values", outUnknown, nil, func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
		keys := dictKeys(in)
		if err := st.chargeItems(len(keys)); err != nil {
			return Value{}, err
		}
		out := make([]Value, len(keys))
		for i, k := range keys {
			out[i], _ = dictGet(in, k)
		}
		return lazySeq("dict_values", listValue(out), nil)
	})
	d("get", outMemberOf, []param{req("key"), takesUndefined(opt("default", none))}, func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
		if t := unhashable(a[0]); t != "" {
			return Value{}, fmt.Errorf("unhashable type: '%s'", t)
		}
		if v, ok := dictGet(in, a[0]); ok {
			return v, nil
		}
		return a[1], nil
	})
	d("copy", outSame, nil, func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
		out := NewOrderedDict()
		if err := mergeInto(out, in); err != nil {
			return Value{}, err
		}
		return DictValue(out), st.chargeItems(2 * out.Len())
	})
	for _, name := range []string{"pop", "popitem", "setdefault", "update", "clear"} {
		d(name, outUnknown, nil, nil)
		methods[name].dict = refuse(name, immutable)
	}

	l := func(name string, out jinja.Result, params []param, fn builtinFn) {
		m := methods[name]
		if m == nil {
			m = &methodSet{}
			methods[name] = m
		}
		m.list = &builtinDef{name: name, params: params, out: out, fn: fn}
	}
	l("count", outInt, []param{req("value")}, func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
		n := 0
		for i := 0; i < seqLen(in); i++ {
			if equal(seqAt(in, i), a[0]) {
				n++
			}
		}
		return intValue(int64(n)), nil
	})
	l("index", outInt, []param{req("value")}, func(_ *state, in Value, a []Value, _ *extra) (Value, error) {
		for i := 0; i < seqLen(in); i++ {
			if equal(seqAt(in, i), a[0]) {
				return intValue(int64(i)), nil
			}
		}
		return Value{}, fmt.Errorf("value is not in list")
	})
	l("copy", outSame, nil, func(st *state, in Value, _ []Value, _ *extra) (Value, error) {
		items, _ := values(in)
		return listValue(append([]Value(nil), items...)), st.chargeItems(len(items))
	})
	for _, name := range []string{"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"} {
		if methods[name] == nil {
			methods[name] = &methodSet{}
		}
		methods[name].list = refuse(name, immutable)
	}
	// The methods markupsafe.Markup wraps (in MarkupSafe 2.1, which
	// Debian's python3-jinja2 uses; 3.0 escapes fewer arguments and wraps
	// casefold and removeprefix too): on a markup string their string
	// arguments are escaped and the result is markup; split and its kind
	// return markup pieces.
	for _, name := range []string{"capitalize", "title", "lower", "upper", "replace", "ljust", "rjust", "lstrip", "rstrip",
		"center", "strip", "expandtabs", "swapcase", "zfill", "format", "partition", "rpartition"} {
		methods[name].str = markupMethod(methods[name].str, true)
	}
	for _, name := range []string{"split", "rsplit", "splitlines"} {
		methods[name].str = markupMethod(methods[name].str, false)
	}
	join := methods["join"].str
	markupJoin := *join
	markupJoin.fn = func(st *state, in Value, a []Value, ex *extra) (Value, error) {
		if !in.isMarkup() {
			return join.fn(st, in, a, ex)
		}
		// Markup.join escapes every item first (so it joins numbers too).
		items, err := values(a[0])
		if err != nil {
			return Value{}, err
		}
		esc := make([]Value, len(items))
		for i, it := range items {
			if esc[i], err = escapeValue(it); err != nil {
				return Value{}, err
			}
		}
		r, err := join.fn(st, in, []Value{listValue(esc)}, ex)
		return markupLike(in, r), err
	}
	methods["join"].str = &markupJoin
}

// markupMethod wraps a string method for markup receivers.
func markupMethod(d *builtinDef, escapeArgs bool) *builtinDef {
	w := *d
	w.fn = func(st *state, in Value, a []Value, ex *extra) (Value, error) {
		if !in.isMarkup() {
			return d.fn(st, in, a, ex)
		}
		if escapeArgs {
			esc := make([]Value, len(a))
			for i, x := range a {
				esc[i] = x
				if x.k == String {
					esc[i] = markupValue(htmlEscape(x.s))
					if x.isMarkup() {
						esc[i] = x
					}
				}
			}
			a = esc
			if ex != nil {
				e2 := &extra{kw: ex.kw}
				for _, x := range ex.rest {
					if x.k == String && !x.isMarkup() {
						x = markupValue(htmlEscape(x.s))
					}
					e2.rest = append(e2.rest, x)
				}
				if ex.kw != nil {
					e2.kw = NewOrderedDict()
					for i, k := range ex.kw.keys {
						x := ex.kw.vals[i]
						if x.k == String && !x.isMarkup() {
							x = markupValue(htmlEscape(x.s))
						}
						e2.kw.Set(k, x)
					}
				}
				ex = e2
			}
		}
		r, err := d.fn(st, in, a, ex)
		if err != nil {
			return r, err
		}
		if r.k == List || r.k == Tuple {
			return markupItems(r), nil
		}
		return markupLike(in, r), nil
	}
	return &w
}

// callMethod calls recv.name(args) for the receiver's type.
func methodFor(recv Value, name string) (*builtinDef, error) {
	m := tables().methods[name]
	var d *builtinDef
	if m != nil {
		switch recv.k {
		case String:
			d = m.str
		case Dict:
			d = m.dict
		case List, Tuple:
			d = m.list
		}
	}
	if d == nil {
		if recv.k == Undefined {
			return nil, fmt.Errorf("cannot call %s() of an undefined value", name)
		}
		return nil, fmt.Errorf("%s has no method %s()", typeName(recv), name)
	}
	if d.refused != "" {
		return nil, fmt.Errorf("%s.%s() is not supported: %s", typeName(recv), name, d.refused)
	}
	return d, nil
}

func allRunes(s string, f func(rune) bool) bool {
	for _, r := range s {
		if !f(r) {
			return false
		}
	}
	return true
}

// pySplit is Python's str.split and str.rsplit.
func pySplit(st *state, s string, sepV, maxV Value, right bool) (Value, error) {
	maxsplit, err := argInt("split", "maxsplit", maxV)
	if err != nil {
		return Value{}, err
	}
	var parts []string
	if sepV.k == None {
		// Count the fields first: the list is charged before it is made.
		n, in := 0, false
		for _, r := range s {
			sp := pyIsSpace(r)
			if !sp && !in {
				n++
			}
			in = !sp
		}
		if err := st.chargeItems(n); err != nil {
			return Value{}, err
		}
		fields := strings.FieldsFunc(s, pyIsSpace)
		if maxsplit >= 0 && int64(len(fields)) > maxsplit+1 {
			// Python keeps the rest of the string, from the first
			// character of the field, untouched.
			if right {
				rest := strings.TrimRightFunc(s, pyIsSpace)
				var tail []string
				for i := int64(0); i < maxsplit; i++ {
					j := strings.LastIndexFunc(rest, pyIsSpace)
					tail = append([]string{rest[j+1:]}, tail...)
					rest = strings.TrimRightFunc(rest[:j+1], pyIsSpace)
				}
				parts = append([]string{rest}, tail...)
			} else {
				rest := strings.TrimLeftFunc(s, pyIsSpace)
				for i := int64(0); i < maxsplit; i++ {
					j := strings.IndexFunc(rest, pyIsSpace)
					parts = append(parts, rest[:j])
					rest = strings.TrimLeftFunc(rest[j:], pyIsSpace)
				}
				parts = append(parts, rest)
			}
		} else {
			parts = fields
		}
	} else {
		sep, err := argStr("split", "sep", sepV)
		if err != nil {
			return Value{}, err
		}
		if sep == "" {
			return Value{}, fmt.Errorf("empty separator")
		}
		if err := st.chargeItems(strings.Count(s, sep) + 1); err != nil {
			return Value{}, err
		}
		n := -1
		if maxsplit >= 0 {
			n = int(min(maxsplit, math.MaxInt32)) + 1
		}
		if right && n > 0 {
			parts = rsplitN(s, sep, n)
		} else {
			parts = strings.SplitN(s, sep, n)
		}
	}
	if err := st.chargeItems(len(parts)); err != nil {
		return Value{}, err
	}
	out := make([]Value, len(parts))
	for i, p := range parts {
		out[i] = strValue(p)
	}
	return listValue(out), nil
}

func rsplitN(s, sep string, n int) []string {
	var out []string
	for len(out) < n-1 {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			break
		}
		out = append([]string{s[i+len(sep):]}, out...)
		s = s[:i]
	}
	return append([]string{s}, out...)
}

// sliceArgs applies the start and end arguments of str methods (in code
// points).
func sliceArgs(s string, start, end Value) (string, error) {
	if start.k == None && end.k == None {
		return s, nil
	}
	rs := []rune(s)
	n := int64(len(rs))
	norm := func(v Value, def int64) (int64, error) {
		if v.k == None {
			return def, nil
		}
		i, err := argInt("str", "index", v)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += n
		}
		return max(0, min(i, n)), nil
	}
	a, err := norm(start, 0)
	if err != nil {
		return "", err
	}
	b, err := norm(end, n)
	if err != nil {
		return "", err
	}
	if a >= b {
		return "", nil
	}
	return string(rs[a:b]), nil
}

// slice is x[start:stop:step] for lists, tuples and strings.
func slice(st *state, v, start, stop, step Value) (Value, error) {
	var n int64
	var runes []rune
	switch v.k {
	case String:
		if isASCII(v.s) {
			n = int64(len(v.s))
		} else {
			runes = []rune(v.s)
			n = int64(len(runes))
		}
	case List, Tuple:
		n = int64(seqLen(v))
	case Undefined:
		return Value{}, errUndefinedUse
	default:
		return Value{}, fmt.Errorf("%s cannot be sliced", typeName(v))
	}
	stp := int64(1)
	if step.k != None {
		s, err := argInt("slice", "step", step)
		if err != nil {
			return Value{}, err
		}
		stp = s
	}
	if stp == 0 {
		return Value{}, fmt.Errorf("slice step cannot be zero")
	}
	idx := func(x Value, def int64) (int64, error) {
		if x.k == None {
			return def, nil
		}
		i, err := argInt("slice", "index", x)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += n
		}
		lo, hi := int64(0), n
		if stp < 0 {
			lo, hi = -1, n-1
		}
		return max(lo, min(i, hi)), nil
	}
	var a, b int64
	var err error
	if stp > 0 {
		if a, err = idx(start, 0); err == nil {
			b, err = idx(stop, n)
		}
	} else {
		if a, err = idx(start, n-1); err == nil {
			b, err = idx(stop, -1)
		}
	}
	if err != nil {
		return Value{}, err
	}
	count := int64(0)
	if stp > 0 && b > a {
		count = (b - a + stp - 1) / stp
	} else if stp < 0 && a > b {
		count = (a - b - stp - 1) / -stp
	}
	if v.k == String {
		if runes == nil && stp == 1 {
			return markupLike(v, strValue(v.s[a:a+count])), nil
		}
		if err := st.charge(int(count) * 4); err != nil {
			return Value{}, err
		}
		var b strings.Builder
		for i, k := a, int64(0); k < count; i, k = i+stp, k+1 {
			if runes == nil {
				b.WriteByte(v.s[i])
			} else {
				b.WriteRune(runes[i])
			}
		}
		return markupLike(v, strValue(b.String())), nil
	}
	if err := st.chargeItems(int(count)); err != nil {
		return Value{}, err
	}
	out := make([]Value, count)
	for i, k := a, int64(0); k < count; i, k = i+stp, k+1 {
		out[k] = seqAt(v, int(i))
	}
	return Value{k: v.k, ref: &seqData{items: out}}, nil
}

// percentFormat is Python's printf-style "fmt % args".
func percentFormat(st *state, format string, args Value) (Value, error) {
	return percentFormatEscaped(st, format, args, false)
}

// percentFormatEscaped is format % args; with esc, as markup's % is: what
// %s and %r make of an argument is HTML-escaped (a markup string's %s as it
// is) before it is padded, and the result is markup.
func percentFormatEscaped(st *state, format string, args Value, esc bool) (Value, error) {
	var items []Value
	var mapping Value
	switch args.k {
	case Tuple:
		items, _ = values(args)
	case Dict:
		mapping = args
		items = []Value{args}
	default:
		items = []Value{args}
	}
	var b strings.Builder
	next := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return Value{}, fmt.Errorf("incomplete format")
		}
		var v Value
		named := false // v is the mapping's value (which may be undefined)
		if format[i] == '(' {
			j := strings.IndexByte(format[i:], ')')
			if j < 0 || mapping.k != Dict {
				return Value{}, fmt.Errorf("format requires a mapping")
			}
			key := format[i+1 : i+j]
			x, ok := dictGet(mapping, strValue(key))
			if !ok {
				return Value{}, fmt.Errorf("format: key %q not found", key)
			}
			v, named = x, true
			i += j + 1
		}
		// flags, width, precision
		j := i
		for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
			j++
		}
		for j < len(format) && (isDigitByte(format[j]) || format[j] == '.') {
			j++
		}
		if j >= len(format) {
			return Value{}, fmt.Errorf("incomplete format")
		}
		spec, verb := format[i:j], format[j]
		i = j
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if !named {
			if next >= len(items) {
				return Value{}, fmt.Errorf("not enough arguments for format string")
			}
			v = items[next]
			next++
		}
		s, err := printfConv(st, spec, verb, v, esc) // printf.go: charged as it is built
		if err != nil {
			return Value{}, err
		}
		b.WriteString(s)
	}
	// As CPython: an argument that has items (a dict, a list, Jinja's
	// Undefined) is never "not converted", whether or not the format used
	// it.
	if mapping.k != Dict && next < len(items) && !((args.k == List || args.k == Undefined) && len(items) == 1) {
		return Value{}, fmt.Errorf("not all arguments converted during string formatting")
	}
	if esc {
		return markupValue(b.String()), nil
	}
	return strValue(b.String()), nil
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// strFormat is Python's str.format, for {} {0} {name} {name.attr} and
// {x:spec} with the common specs.
func strFormat(st *state, in Value, _ []Value, ex *extra) (Value, error) {
	var pos []Value
	var kw *OrderedDict
	if ex != nil {
		pos, kw = ex.rest, ex.kw
	}
	s := in.s
	var b strings.Builder
	auto, charged := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			b.WriteByte('{')
			i++
			continue
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			b.WriteByte('}')
			i++
			continue
		case c == '}':
			return Value{}, fmt.Errorf("single '}' encountered in format string")
		case c != '{':
			b.WriteByte(c)
			continue
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return Value{}, fmt.Errorf("single '{' encountered in format string")
		}
		field := s[i+1 : i+j]
		i += j
		name, spec, _ := strings.Cut(field, ":")
		name, conv, _ := strings.Cut(name, "!")
		head, path := name, ""
		if k := strings.IndexAny(name, ".["); k >= 0 {
			head, path = name[:k], name[k:]
		}
		var v Value
		switch {
		case head == "":
			if auto >= len(pos) {
				return Value{}, fmt.Errorf("replacement index %d out of range", auto)
			}
			v = pos[auto]
			auto++
		case isDigitByte(head[0]):
			n, _ := strconv.Atoi(head)
			if n >= len(pos) {
				return Value{}, fmt.Errorf("replacement index %d out of range", n)
			}
			v = pos[n]
		default:
			var ok bool
			if kw != nil {
				v, ok = kw.getString(head)
			}
			if !ok {
				return Value{}, fmt.Errorf("format: missing argument %q", head)
			}
		}
		for path != "" {
			var err error
			if path[0] == '.' {
				k := strings.IndexAny(path[1:], ".[")
				if k < 0 {
					k = len(path) - 1
				}
				// Python's getattr: a dict's keys are not attributes, and a
				// missing attribute is an error, not undefined.
				attr := path[1 : k+1]
				if v.k != Dict {
					v, err = getAttr(v, attr)
				}
				if err == nil && (v.k == Dict || v.k == Undefined) {
					err = fmt.Errorf("format: %s has no attribute %q", typeName(v), attr)
				}
				path = path[k+1:]
			} else {
				k := strings.IndexByte(path, ']')
				if k < 0 {
					return Value{}, fmt.Errorf("missing ']' in format string")
				}
				key := path[1:k]
				container := v
				if n, e := strconv.Atoi(key); e == nil && isDigitByte(key[0]) {
					v, err = getItem(v, intValue(int64(n)))
				} else {
					v, err = getItem(v, strValue(key))
				}
				if err == nil && v.k == Undefined {
					err = fmt.Errorf("format: %s has no item [%s]", typeName(container), key)
				}
				path = path[k+1:]
			}
			if err != nil {
				return Value{}, err
			}
		}
		var out string
		var err error
		switch conv {
		case "":
		case "r", "a":
			out, err = reprString(v)
			v = strValue(out) // the spec then formats the repr, as a string
		case "s":
			out, err = str1(v)
			v = strValue(out)
		default:
			err = fmt.Errorf("Unknown conversion specifier %s", conv)
		}
		if err == nil {
			out, err = formatSpec(st, v, spec) // charged before it is built
		}
		if err != nil {
			return Value{}, err
		}
		b.WriteString(out)
		charged += len(out)
	}
	// What is left to charge is the format's own text, already built.
	return strValue(b.String()), st.charge(max(b.Len()-charged, 0))
}

// formatSpec applies a format spec ([[fill]align][sign][width][.precision][type]),
// charging st for what it writes before it builds it: the precision
// before the digits, the padding before the padded string.
func formatSpec(st *state, v Value, spec string) (string, error) {
	if spec == "" {
		out, err := str1(v)
		if err == nil {
			err = st.charge(len(out))
		}
		return out, err
	}
	// As Python's __format__: only strings and numbers take a spec (a
	// boolean as the integer it is); anything else refuses one.
	switch v.k {
	case Bool:
		v = intValue(v.n)
	case String, Int, Float:
	default:
		return "", fmt.Errorf("unsupported format string passed to %s.__format__", typeName(v))
	}
	fill, align := " ", byte(0)
	if len(spec) >= 2 && strings.IndexByte("<>^=", spec[1]) >= 0 {
		r, n := utf8.DecodeRuneInString(spec)
		if n == 1 {
			fill, align, spec = string(r), spec[1], spec[2:]
		}
	} else if spec != "" && strings.IndexByte("<>^=", spec[0]) >= 0 {
		align, spec = spec[0], spec[1:]
	}
	sign := ""
	if spec != "" && strings.IndexByte("+- ", spec[0]) >= 0 {
		sign, spec = spec[:1], spec[1:]
	}
	alt := strings.HasPrefix(spec, "#") // 0x, 0o, 0b before the digits
	spec = strings.TrimPrefix(spec, "#")
	if strings.HasPrefix(spec, "0") && align == 0 {
		fill, align = "0", '='
	}
	k := 0
	for k < len(spec) && isDigitByte(spec[k]) {
		k++
	}
	width, err := strconv.Atoi(spec[:k])
	if err != nil && k > 0 {
		return "", fmt.Errorf("Too many decimal digits in format string")
	}
	spec = spec[k:]
	group := ""
	if strings.HasPrefix(spec, ",") || strings.HasPrefix(spec, "_") {
		group, spec = spec[:1], spec[1:]
	}
	comma := group != ""
	prec := -1
	if strings.HasPrefix(spec, ".") {
		k = 1
		for k < len(spec) && isDigitByte(spec[k]) {
			k++
		}
		var err error
		if prec, err = strconv.Atoi(spec[1:k]); err != nil && k > 1 {
			return "", fmt.Errorf("Too many decimal digits in format string")
		}
		if prec > math.MaxInt32 {
			return "", fmt.Errorf("precision too big")
		}
		spec = spec[k:]
	}
	typ := spec
	// A float's digits are as many as its precision: charged before
	// they are made.
	charged := 0
	if prec > 0 && v.isNumber() && (v.k == Float && typ == "" || len(typ) == 1 && strings.Contains("fFeEgG%", typ)) {
		if err := st.charge(prec); err != nil {
			return "", err
		}
		charged = prec
	}
	var body, prefix string
	switch typ {
	case "", "s":
		if typ == "s" && v.isNumber() {
			return "", fmt.Errorf("unknown format code 's' for %s", typeName(v))
		}
		if comma && (typ == "s" || !v.isNumber()) {
			return "", fmt.Errorf("cannot specify '%s' with 's'", group)
		}
		if v.k == Float && typ == "" {
			if prec >= 0 {
				body = strconv.FormatFloat(v.float(), 'g', prec, 64)
			} else {
				body = string(appendFloat(nil, v.float()))
			}
			if comma {
				intPart, frac, found := strings.Cut(body, ".")
				body = groupThousands(intPart, group)
				if found {
					body += "." + frac
				}
			}
			break
		}
		if comma && v.k != Float {
			body = groupThousands(strconv.FormatInt(v.n, 10), group)
			if align == 0 {
				align = '>'
			}
			break
		}
		s, err := str1(v)
		if err != nil {
			return "", err
		}
		if prec >= 0 && runeCount(s) > prec {
			s = string([]rune(s)[:prec])
		}
		body = s
		if align == 0 {
			align = '<'
			if v.isNumber() {
				align = '>'
			}
		}
	case "d":
		if v.k != Int && v.k != Bool {
			return "", fmt.Errorf("unknown format code 'd' for %s", typeName(v))
		}
		body = strconv.FormatInt(v.n, 10)
		if comma {
			body = groupThousands(body, group)
		}
	case "f", "F", "e", "E", "g", "G", "%":
		if !v.isNumber() {
			return "", fmt.Errorf("unknown format code %q for %s", typ, typeName(v))
		}
		if prec < 0 {
			prec = 6
		}
		f := toFloat(v)
		switch typ {
		case "%":
			body = strconv.FormatFloat(f*100, 'f', prec, 64) + "%"
		case "F":
			body = strconv.FormatFloat(f, 'f', prec, 64)
		default:
			body = strconv.FormatFloat(f, typ[0], prec, 64)
		}
		if comma {
			intPart, frac, _ := strings.Cut(body, ".")
			body = groupThousands(intPart, group)
			if frac != "" {
				body += "." + frac
			}
		}
	case "x", "X", "o", "b":
		if v.k != Int && v.k != Bool {
			return "", fmt.Errorf("unknown format code %q for %s", typ, typeName(v))
		}
		base := map[string]int{"x": 16, "X": 16, "o": 8, "b": 2}[typ]
		body = strconv.FormatInt(v.n, base)
		if typ == "X" {
			body = strings.ToUpper(body)
		}
		if alt {
			prefix = "0" + typ
		}
	default:
		return "", fmt.Errorf("unsupported format spec %q", typ)
	}
	if v.isNumber() && typ != "s" {
		if strings.HasPrefix(body, "-") {
			sign, body = "-", body[1:]
		} else if sign == "-" {
			sign = ""
		}
	} else {
		sign = ""
	}
	sign += prefix
	if align == 0 {
		align = '>'
	}
	n := runeCount(sign + body)
	if size := len(sign) + len(body) + max(width-n, 0)*len(fill); size > charged {
		if err := st.charge(size - charged); err != nil {
			return "", err
		}
	}
	if n >= width {
		return sign + body, nil
	}
	p := strings.Repeat(fill, width-n)
	switch align {
	case '<':
		return sign + body + p, nil
	case '^':
		l := (width - n) / 2
		return strings.Repeat(fill, l) + sign + body + strings.Repeat(fill, width-n-l), nil
	case '=':
		return sign + p + body, nil
	}
	return p + sign + body, nil
}

func groupThousands(s, sep string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// centerLeft is how much of pad str.center puts on the left, as CPython
// computes it: half, plus one when both the padding and the width are odd.
func centerLeft(pad, width int) int { return pad/2 + (pad & width & 1) }
