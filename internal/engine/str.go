package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jsonfields"
)

// How values print: str() for {{ x }}, repr() inside lists and dicts, as
// Python prints them. A container that contains itself prints as Python
// prints it ([...], {...}); nesting deeper than maxPrintDepth is an error.

const maxPrintDepth = 200

var errPrintDepth = fmt.Errorf("value nested deeper than %d levels", maxPrintDepth)

// printer appends a value's printed form to a buffer, tracking the
// containers it is inside (for cycles) and the size it may write.
type printer struct {
	b     []byte
	stack []uintptr
	limit int // bytes b may reach; beyond it the value is too large
}

var errPrintSize = fmt.Errorf("printed form too large")

// strString is str(v).
func strString(v Value) (string, error) {
	if v.k == String {
		return v.s, nil
	}
	p := printer{limit: math.MaxInt}
	if err := p.str(v); err != nil {
		return "", err
	}
	return string(p.b), nil
}

// reprString is repr(v).
func reprString(v Value) (string, error) {
	p := printer{limit: math.MaxInt}
	if err := p.repr(v, 0); err != nil {
		return "", err
	}
	return string(p.b), nil
}

func (p *printer) write(s string) error {
	if len(p.b)+len(s) > p.limit {
		return errPrintSize
	}
	p.b = append(p.b, s...)
	return nil
}

// str appends str(v).
func (p *printer) str(v Value) error {
	switch v.k {
	case Undefined:
		return undefinedUse(v, "converted to text")
	case String:
		return p.write(v.s)
	case Object:
		switch o := v.ref.(type) {
		case hostStruct:
			if s, ok := o.text(); ok {
				return p.write(s)
			}
		}
	}
	return p.repr(v, 0)
}

func (p *printer) repr(v Value, depth int) error {
	if depth > maxPrintDepth {
		return errPrintDepth
	}
	if len(p.b) > p.limit {
		return errPrintSize
	}
	switch v.k {
	case Undefined:
		return p.write("Undefined") // repr(Undefined), inside a list or dict
	case None:
		return p.write("None")
	case Bool:
		if v.n != 0 {
			return p.write("True")
		}
		return p.write("False")
	case Int:
		p.b = strconv.AppendInt(p.b, v.n, 10)
		return nil
	case BigInt:
		return p.write(bigString(v))
	case Float:
		p.b = appendFloat(p.b, v.float())
		return nil
	case String:
		if len(p.b)+len(v.s)+2 > p.limit {
			return errPrintSize // before quoting it
		}
		if v.isMarkup() {
			return p.write("Markup(" + pyQuote(v.s) + ")")
		}
		return p.write(pyQuote(v.s))
	case List, Tuple:
		if depth == 0 && atLeast(v, p.limit-len(p.b)) {
			return errPrintSize // known too large before printing any of it
		}
		open, close := "[", "]"
		if v.k == Tuple {
			open, close = "(", ")"
		}
		if ptr, ok := refPointer(v); ok {
			if p.inside(ptr) {
				return p.write(open + "..." + close)
			}
			p.stack = append(p.stack, ptr)
			defer func() { p.stack = p.stack[:len(p.stack)-1] }()
		}
		n := seqLen(v)
		p.b = append(p.b, open...)
		for i := 0; i < n; i++ {
			if i > 0 {
				p.b = append(p.b, ", "...)
			}
			if err := p.repr(seqAt(v, i), depth+1); err != nil {
				return err
			}
		}
		if v.k == Tuple && n == 1 {
			p.b = append(p.b, ',')
		}
		p.b = append(p.b, close...)
		return nil
	case Dict:
		if ptr, ok := refPointer(v); ok {
			if p.inside(ptr) {
				return p.write("{...}")
			}
			p.stack = append(p.stack, ptr)
			defer func() { p.stack = p.stack[:len(p.stack)-1] }()
		}
		p.b = append(p.b, '{')
		for i, k := range dictKeys(v) {
			if i > 0 {
				p.b = append(p.b, ", "...)
			}
			if err := p.repr(k, depth+1); err != nil {
				return err
			}
			p.b = append(p.b, ": "...)
			x, _ := dictGet(v, k)
			if err := p.repr(x, depth+1); err != nil {
				return err
			}
		}
		p.b = append(p.b, '}')
		return nil
	}
	return p.object(v, depth)
}

func (p *printer) inside(ptr uintptr) bool {
	for _, q := range p.stack {
		if q == ptr {
			return true
		}
	}
	return false
}

// object prints the objects: namespaces and structs as their data, the
// rest as Python names them.
func (p *printer) object(v Value, depth int) error {
	switch o := v.ref.(type) {
	case hostBytes:
		return p.write("b" + pyQuoteBytes(o))
	case *namespace:
		if err := p.write("<Namespace "); err != nil {
			return err
		}
		if err := p.repr(Value{k: Dict, ref: o.attrs}, depth+1); err != nil {
			return err
		}
		return p.write(">")
	case hostStruct:
		if s, ok := o.text(); ok {
			return p.write(pyQuote(s))
		}
		if o.p.IsValid() {
			if p.inside(o.p.Pointer()) {
				return p.write("{...}")
			}
			p.stack = append(p.stack, o.p.Pointer())
			defer func() { p.stack = p.stack[:len(p.stack)-1] }()
		}
		p.b = append(p.b, '{')
		n := 0
		for _, f := range jsonfields.Of(o.v.Type()) {
			fv, ok := f.Value(o.v)
			if !ok {
				continue // omitted, as encoding/json omits it
			}
			x := fromReflect(fv)
			if n > 0 {
				p.b = append(p.b, ", "...)
			}
			n++
			p.b = append(p.b, pyQuote(f.Name)...)
			p.b = append(p.b, ": "...)
			if err := p.repr(x, depth+1); err != nil {
				return err
			}
		}
		p.b = append(p.b, '}')
		return nil
	case *macro:
		return p.write("<Macro '" + o.def.name + "'>")
	case *module:
		return p.write("<Template module '" + o.file + "'>")
	case *builtin:
		return p.write("<built-in function " + o.name + ">")
	case *boundMethod:
		return p.write("<built-in method " + o.name + " of " + typeName(o.recv) + " object>")
	case *loopObj:
		return p.write("<LoopContext " + strconv.Itoa(o.index+1) + "/" + strconv.Itoa(o.n) + ">")
	case *cycler:
		return p.write("<Cycler>")
	case *joiner:
		return p.write("<Joiner>")
	case hostOpaque:
		return p.write("<Go " + o.typ + ">")
	}
	return p.write(fmt.Sprintf("<%T>", v.ref))
}

// atLeast reports whether the printed form of v surely exceeds n bytes,
// from the lengths of the strings it holds (one pass over its items, no
// printing).
func atLeast(v Value, n int) bool {
	total := 0
	var walk func(v Value, depth int) bool
	walk = func(v Value, depth int) bool {
		if depth > 8 {
			return false
		}
		switch v.k {
		case String:
			total += len(v.s) + 2
		case List, Tuple:
			for i := 0; i < seqLen(v) && total <= n; i++ {
				if walk(seqAt(v, i), depth+1) {
					return true
				}
			}
		}
		return total > n
	}
	return walk(v, 0)
}

// appendFloat formats a float as Python's repr does: the shortest digits
// that round-trip, ".0" for integral values, exponent form outside
// 1e-4..1e16.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		return append(b, "nan"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		mant, ex := e[:i], e[i+1:]
		sign := ex[0]
		digits := strings.TrimLeft(ex[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		b = append(b, mant...)
		b = append(b, 'e', sign)
		return append(b, digits...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[start:] {
		if c == '.' {
			return b
		}
	}
	return append(b, ".0"...)
}

// pyQuote quotes a string as Python's repr does.
func pyQuote(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '\\' && c != '\''
	}
	if plain {
		return "'" + s + "'" // the common case: nothing to escape
	}
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || pyIsPrintable(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyQuoteBytes quotes bytes as Python's repr of bytes does.
func pyQuoteBytes(bs []byte) string {
	q := byte('\'')
	if strings.IndexByte(string(bs), '\'') >= 0 && strings.IndexByte(string(bs), '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, c := range bs {
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == q:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}
