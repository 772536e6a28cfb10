package manager

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/flosch/pongo2/v6"
)

// funcs is the helper object templates reach as _pkf: the Jinja
// operations pongo2's dialect lacks. pongo2 calls its methods by
// reflection, so only the constructs that need them pay for it.
type funcs struct {
	None      noneType
	Undefined *struct{} // a nil pointer: pongo2 sees it as nil (undefined)
}

var helpers = &funcs{}

func vals(vs []*pongo2.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = unwrap(v)
	}
	return out
}

// V returns its argument: it turns any expression into a pongo2 variable
// path, to which filters can be applied.
func (*funcs) V(v *pongo2.Value) any { return unwrap(v) }

func (*funcs) List(vs ...*pongo2.Value) any { return vals(vs) }

func (*funcs) Dict(vs ...*pongo2.Value) (any, error) {
	m := make(map[string]any, len(vs)/2)
	for i := 0; i+1 < len(vs); i += 2 {
		k, ok := asString(unwrap(vs[i]))
		if !ok {
			return nil, fmt.Errorf("dict keys must be strings, not %s", kindName(unwrap(vs[i])))
		}
		m[k] = unwrap(vs[i+1])
	}
	return m, nil
}

func (*funcs) Attr(v, name *pongo2.Value) any { return getAttr(unwrap(v), name.String()) }

func (*funcs) Index(v, key *pongo2.Value) any { return getItem(unwrap(v), unwrap(key)) }

func (*funcs) Slice(v, start, stop, step *pongo2.Value) (any, error) {
	x := unwrap(v)
	var items []any
	s, isStr := asString(x)
	if isStr {
		for _, r := range s {
			items = append(items, string(r))
		}
	} else {
		var err error
		if items, err = iterate(x); err != nil {
			return nil, err
		}
	}
	n := int64(len(items))
	st := int64(1)
	if i, ok := toInt(unwrap(step)); ok {
		st = i
	}
	if st == 0 {
		return nil, fmt.Errorf("slice step cannot be zero")
	}
	norm := func(v *pongo2.Value, def int64) int64 {
		i, ok := toInt(unwrap(v))
		if !ok {
			return def
		}
		if i < 0 {
			i += n
		}
		lo, hi := int64(0), n
		if st < 0 {
			lo, hi = -1, n-1
		}
		return max(lo, min(i, hi))
	}
	var a, b int64
	if st > 0 {
		a, b = norm(start, 0), norm(stop, n)
	} else {
		a, b = norm(start, n-1), norm(stop, -1)
	}
	var out []any
	for i := a; (st > 0 && i < b) || (st < 0 && i > b); i += st {
		out = append(out, items[i])
	}
	if isStr {
		var sb strings.Builder
		for _, c := range out {
			sb.WriteString(c.(string))
		}
		return sb.String(), nil
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

func (*funcs) Not(v *pongo2.Value) bool { return !truthy(unwrap(v)) }

func (*funcs) Neg(v *pongo2.Value) (any, error) { return arith("-", int64(0), unwrap(v)) }

// Cat is Jinja's ~: every operand converted with str() and joined.
func (*funcs) Cat(vs ...*pongo2.Value) (string, error) {
	var b strings.Builder
	for _, v := range vs {
		s := pyStr(unwrap(v))
		if err := checkValueSize(b.Len() + len(s)); err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// maxValueBytes bounds a string (or, at 8 bytes an item, a list) that a
// template builds with ~, +, *, join, replace or indent, so that a few
// doublings cannot exhaust the host's memory before the output limit is
// reached.
const maxValueBytes = DefaultMaxOutputBytes

// errValueSize is what checkValueSize reports; render maps it to an
// ErrOutputLimit error naming the template.
var errValueSize = errors.New("manager: value too large")

func checkValueSize(n int) error {
	if n > maxValueBytes || n < 0 {
		return valueSizeError(n)
	}
	return nil
}

func valueSizeError(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: a value built in the template would exceed %d bytes", errValueSize, maxValueBytes)
	}
	return fmt.Errorf("%w: a value built in the template would be %d bytes, over the limit of %d", errValueSize, n, maxValueBytes)
}

// And and Or return an operand, as Python's and/or do.
func (*funcs) And(a, b *pongo2.Value) any {
	if x := unwrap(a); !truthy(x) {
		return x
	}
	return unwrap(b)
}

func (*funcs) Or(a, b *pongo2.Value) any {
	if x := unwrap(a); truthy(x) {
		return x
	}
	return unwrap(b)
}

func (*funcs) If(c, a, b *pongo2.Value) any {
	if truthy(unwrap(c)) {
		return unwrap(a)
	}
	return unwrap(b)
}

func (*funcs) Op(op, a, b *pongo2.Value) (any, error) {
	x, y := unwrap(a), unwrap(b)
	switch o := op.String(); o {
	case "==":
		return pyEq(x, y), nil
	case "!=":
		return !pyEq(x, y), nil
	case "<", "<=", ">", ">=":
		c, err := pyCompare(x, y)
		if err != nil {
			return nil, err
		}
		switch o {
		case "<":
			return c < 0, nil
		case "<=":
			return c <= 0, nil
		case ">":
			return c > 0, nil
		}
		return c >= 0, nil
	default:
		return arith(o, x, y)
	}
}

// arith implements + - * / // % ** with Python's rules: int op int stays
// int (but / is true division), strings and lists concatenate with +.
func arith(op string, x, y any) (any, error) {
	if op == "+" {
		if sx, ok := asString(x); ok {
			if sy, ok := asString(y); ok {
				if err := checkValueSize(len(sx) + len(sy)); err != nil {
					return nil, err
				}
				return sx + sy, nil
			}
		}
		rx, ry := reflect.ValueOf(x), reflect.ValueOf(y)
		if isSeq(rx) && isSeq(ry) {
			a, _ := iterate(x)
			b, _ := iterate(y)
			if err := checkValueSize(8 * (len(a) + len(b))); err != nil {
				return nil, err
			}
			return append(append([]any{}, a...), b...), nil
		}
	}
	if op == "*" {
		if s, ok := asString(x); ok {
			if n, ok := toInt(y); ok {
				n = max(n, 0)
				if len(s) > 0 && n > int64(maxValueBytes/len(s)) {
					return nil, valueSizeError(-1)
				}
				return strings.Repeat(s, int(n)), nil
			}
		}
	}
	ix, okx := toInt(x)
	iy, oky := toInt(y)
	if okx && oky && !isFloat(x) && !isFloat(y) {
		switch op {
		case "+":
			return ix + iy, nil
		case "-":
			return ix - iy, nil
		case "*":
			return ix * iy, nil
		case "/":
			if iy == 0 {
				return nil, fmt.Errorf("division by zero")
			}
			return float64(ix) / float64(iy), nil
		case "//":
			if iy == 0 {
				return nil, fmt.Errorf("division by zero")
			}
			q := ix / iy
			if (ix%iy != 0) && ((ix < 0) != (iy < 0)) {
				q--
			}
			return q, nil
		case "%":
			if iy == 0 {
				return nil, fmt.Errorf("modulo by zero")
			}
			m := ix % iy
			if m != 0 && ((m < 0) != (iy < 0)) {
				m += iy
			}
			return m, nil
		case "**":
			if iy >= 0 {
				// Square and multiply: the same wrapped int64 as multiplying
				// iy times, in log(iy) steps (a loop could hang the host).
				r, b := int64(1), ix
				for e := iy; e > 0; e >>= 1 {
					if e&1 == 1 {
						r *= b
					}
					b *= b
				}
				return r, nil
			}
			return math.Pow(float64(ix), float64(iy)), nil
		}
	}
	fx, okx := toFloat(x)
	fy, oky := toFloat(y)
	if !okx || !oky {
		return nil, fmt.Errorf("unsupported operand kinds for %s: %s and %s", op, kindName(x), kindName(y))
	}
	switch op {
	case "+":
		return fx + fy, nil
	case "-":
		return fx - fy, nil
	case "*":
		return fx * fy, nil
	case "/":
		if fy == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return fx / fy, nil
	case "//":
		if fy == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return math.Floor(fx / fy), nil
	case "%":
		if fy == 0 {
			return nil, fmt.Errorf("modulo by zero")
		}
		m := math.Mod(fx, fy)
		if m != 0 && ((m < 0) != (fy < 0)) {
			m += fy
		}
		return m, nil
	case "**":
		return math.Pow(fx, fy), nil
	}
	return nil, fmt.Errorf("unknown operator %s", op)
}

// maxRange bounds range(): a template cannot allocate without limit.
const maxRange = 100000

func (*funcs) Range(vs ...*pongo2.Value) (any, error) {
	var a [3]int64
	for i, v := range vs {
		n, ok := toInt(unwrap(v))
		if !ok {
			return nil, fmt.Errorf("range() needs integers, not %s", kindName(unwrap(v)))
		}
		a[i] = n
	}
	start, stop, step := int64(0), a[0], int64(1)
	if len(vs) >= 2 {
		start, stop = a[0], a[1]
	}
	if len(vs) == 3 {
		step = a[2]
	}
	if step == 0 {
		return nil, fmt.Errorf("range() step cannot be zero")
	}
	var out []any
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		if len(out) >= maxRange {
			return nil, fmt.Errorf("range() is limited to %d items", maxRange)
		}
		out = append(out, i)
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

// mapping returns v as a reflect map, or an error naming its kind.
func mapping(v any, method string) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Map {
		return rv, fmt.Errorf("%s() needs a mapping, not %s", method, kindName(v))
	}
	return rv, nil
}

func (*funcs) Items(v *pongo2.Value) (any, error) {
	rv, err := mapping(unwrap(v), "items")
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, k := range sortedMapKeys(rv) {
		out = append(out, []any{k.Interface(), rv.MapIndex(k).Interface()})
	}
	return out, nil
}

func (*funcs) Keys(v *pongo2.Value) (any, error) {
	rv, err := mapping(unwrap(v), "keys")
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, k := range sortedMapKeys(rv) {
		out = append(out, k.Interface())
	}
	return out, nil
}

func (*funcs) Values(v *pongo2.Value) (any, error) {
	rv, err := mapping(unwrap(v), "values")
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, k := range sortedMapKeys(rv) {
		out = append(out, rv.MapIndex(k).Interface())
	}
	return out, nil
}

func (*funcs) Get(v *pongo2.Value, kd ...*pongo2.Value) (any, error) {
	if _, err := mapping(unwrap(v), "get"); err != nil {
		return nil, err
	}
	if r := getItem(unwrap(v), unwrap(kd[0])); r != nil {
		return r, nil
	}
	if len(kd) > 1 {
		return unwrap(kd[1]), nil
	}
	return none, nil
}

func (*funcs) Upper(v *pongo2.Value) string { return strings.ToUpper(pyStr(unwrap(v))) }
func (*funcs) Lower(v *pongo2.Value) string { return strings.ToLower(pyStr(unwrap(v))) }

func (*funcs) Strip(v *pongo2.Value, chars ...*pongo2.Value) string {
	if len(chars) > 0 {
		return strings.Trim(pyStr(unwrap(v)), pyStr(unwrap(chars[0])))
	}
	return strings.TrimSpace(pyStr(unwrap(v)))
}

func (*funcs) StartsWith(v, p *pongo2.Value) bool {
	return strings.HasPrefix(pyStr(unwrap(v)), pyStr(unwrap(p)))
}

func (*funcs) EndsWith(v, p *pongo2.Value) bool {
	return strings.HasSuffix(pyStr(unwrap(v)), pyStr(unwrap(p)))
}

func (*funcs) Split(v *pongo2.Value, sep ...*pongo2.Value) any {
	s := pyStr(unwrap(v))
	var parts []string
	if len(sep) > 0 && unwrap(sep[0]) != nil && unwrap(sep[0]) != any(none) {
		parts = strings.Split(s, pyStr(unwrap(sep[0])))
	} else {
		parts = strings.Fields(s)
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

func (*funcs) Replace(v, a, b *pongo2.Value) (string, error) {
	return replaceN(pyStr(unwrap(v)), pyStr(unwrap(a)), pyStr(unwrap(b)), -1)
}

// replaceN is strings.Replace with the size of the result checked first.
func replaceN(s, old, new string, n int) (string, error) {
	if len(new) > len(old) {
		c := strings.Count(s, old)
		if old == "" {
			c = utf8.RuneCountInString(s) + 1
		}
		if n >= 0 && n < c {
			c = n
		}
		if c > 0 && len(new)-len(old) > (maxValueBytes-len(s))/c {
			return "", valueSizeError(-1)
		}
	}
	return strings.Replace(s, old, new, n), nil
}

func (*funcs) Args(vs ...*pongo2.Value) any {
	p := &argPack{}
	for _, v := range vs {
		if kw, ok := unwrap(v).(kwArg); ok {
			if p.kw == nil {
				p.kw = map[string]any{}
			}
			p.kw[kw.name] = kw.v
			continue
		}
		p.args = append(p.args, unwrap(v))
	}
	return p
}

func (*funcs) Kw(name, v *pongo2.Value) any { return kwArg{name: name.String(), v: unwrap(v)} }

// Defined reports whether a name is bound: a local (loop variable, set or
// with) or a variable that was passed or has a declared default.
func (*funcs) Defined(ctx *pongo2.ExecutionContext, name *pongo2.Value) bool {
	n := name.String()
	if _, ok := ctx.Private[n]; ok {
		return true
	}
	_, ok := ctx.Public[n]
	return ok
}

func (*funcs) NotUndefined(v *pongo2.Value) bool { return unwrap(v) != nil }

func (*funcs) Float(s *pongo2.Value) (any, error) { return strconv.ParseFloat(s.String(), 64) }

func (*funcs) Unquote(s *pongo2.Value) (any, error) { return strconv.Unquote(s.String()) }

var testNames = map[string]bool{
	"none": true, "true": true, "false": true, "boolean": true, "string": true, "number": true,
	"integer": true, "float": true, "mapping": true, "sequence": true, "iterable": true,
	"even": true, "odd": true, "divisibleby": true, "eq": true, "lower": true, "upper": true,
}

func (*funcs) Test(name, v *pongo2.Value, args ...*pongo2.Value) (bool, error) {
	x := unwrap(v)
	arg := func() any {
		if len(args) > 0 {
			return unwrap(args[0])
		}
		return nil
	}
	rv := reflect.ValueOf(x)
	switch name.String() {
	case "none":
		return x == any(none), nil
	case "true":
		return x == true, nil
	case "false":
		return x == false, nil
	case "boolean":
		_, ok := x.(bool)
		return ok, nil
	case "string":
		_, ok := asString(x)
		return ok, nil
	case "number":
		_, isBool := x.(bool)
		_, ok := toFloat(x)
		return ok && !isBool, nil
	case "integer":
		_, isBool := x.(bool)
		_, ok := toInt(x)
		return ok && !isBool, nil
	case "float":
		return isFloat(x), nil
	case "mapping":
		return rv.Kind() == reflect.Map, nil
	case "sequence":
		return isSeq(rv) || rv.Kind() == reflect.String || rv.Kind() == reflect.Map, nil
	case "iterable":
		_, err := iterate(x)
		return x != nil && err == nil, nil
	case "even", "odd":
		i, ok := toInt(x)
		if !ok {
			return false, fmt.Errorf("test %s needs an integer, not %s", name.String(), kindName(x))
		}
		return (i%2 == 0) == (name.String() == "even"), nil
	case "divisibleby":
		i, ok1 := toInt(x)
		d, ok2 := toInt(arg())
		if !ok1 || !ok2 || d == 0 {
			return false, fmt.Errorf("test divisibleby needs two integers, the second not zero")
		}
		return i%d == 0, nil
	case "eq":
		return pyEq(x, arg()), nil
	case "lower":
		s := pyStr(x)
		return s == strings.ToLower(s), nil
	case "upper":
		s := pyStr(x)
		return s == strings.ToUpper(s), nil
	}
	return false, fmt.Errorf("unknown test %q", name.String())
}
