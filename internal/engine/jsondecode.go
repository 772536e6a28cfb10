package engine

import (
	"fmt"
	"math/big"
	mbits "math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/seed-e7d2830f/promptkit/message"
)

// Decoding JSON into values, in one pass over the bytes: what a chat
// template is applied to (messages, tools, documents, settings) arrives
// as JSON, and reading it is most of an application's cost. The values are
// those Python's json.loads makes: objects are dicts that keep their keys'
// order (a repeated key keeps its first place and its last value), a
// number without a fraction or exponent is an integer (154.0 stays a
// float), null is None. The grammar is encoding/json's, byte for byte:
// what it refuses is refused, and strings are read as it reads them
// (invalid UTF-8 and lone surrogates become U+FFFD).
//
// It allocates little: one copy of the input, whose substrings are the
// strings that need no unescaping; one buffer for those that do; and the
// items of every list and dict carved from shared slabs, sized exactly
// once each container is complete. A dict of up to smallDict keys has no
// hash index (see dict.go).

// maxJSONDepth bounds the nesting of values: a value inside more than
// that many arrays and objects is an error.
const maxJSONDepth = 1000

// DecodeJSON decodes one JSON value, with nothing but whitespace around
// it, into values. The values are never changed afterwards, so they can
// be shared by any number of renders at once.
func DecodeJSON(data []byte) (Value, error) {
	// The stack holds the items of the open containers: a conversation's
	// list of messages and the message being read.
	d := jsonDecoder{src: string(data), stack: make([]Value, 0, min(len(data)/48+8, 256))}
	return d.top(0)
}

// top reads the one value of the input, with only space around it,
// inside depth containers.
func (d *jsonDecoder) top(depth int) (Value, error) {
	d.skipSpace()
	v, err := d.value(depth)
	if err != nil {
		return Value{}, err
	}
	if d.skipSpace(); d.pos < len(d.src) {
		return Value{}, d.errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// CheckJSON reports whether data is what DecodeJSON accepts, with the
// error DecodeJSON would give, without building the values: an input the
// template never reads is checked, not decoded.
func CheckJSON(data []byte) error {
	// The check keeps no part of the text, so it reads data in place.
	d := jsonDecoder{src: unsafe.String(unsafe.SliceData(data), len(data)), check: true}
	_, err := d.top(0)
	return err
}

type jsonDecoder struct {
	src string
	pos int
	// check reads without building: containers and strings are skipped
	// once they are known to be valid, and every value is None.
	check bool
	// stack holds the items of the containers being read (a dict's keys
	// and values alternate), from the outermost; a container takes its
	// items off the top when it closes.
	stack []Value
	// slab is where the closed containers' items are carved from, seqs
	// and dicts where their headers are; esc holds unescaped strings.
	slab  []Value
	seqs  []seqData
	dicts []OrderedDict
	esc   strings.Builder
	// carved is how many values the slabs gave out: with the bytes read
	// so far, it sizes the next slab for the rest of the input.
	carved int
}

// SyntaxError is a JSON text that is not valid, with the line and column
// (counted in bytes from 1) where it stops being so.
type SyntaxError struct {
	Msg          string
	Offset       int
	Line, Column int
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s (line %d, column %d)", e.Msg, e.Line, e.Column)
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	off := min(d.pos, len(d.src))
	before := d.src[:off]
	line := strings.Count(before, "\n") + 1
	col := off - strings.LastIndexByte(before, '\n')
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Offset: off, Line: line, Column: col}
}

// unexpected reports the byte at pos, or the end of the input.
func (d *jsonDecoder) unexpected(context string) error {
	if d.pos >= len(d.src) {
		return d.errorf("unexpected end of JSON input")
	}
	return d.errorf("invalid character %s %s", quoteChar(d.src[d.pos]), context)
}

// quoteChar formats a byte as encoding/json's messages do.
func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < utf8.RuneSelf:
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte %#02x", c)
}

func (d *jsonDecoder) skipSpace() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value reads the value at pos (after any space) and the space after it.
func (d *jsonDecoder) value(depth int) (Value, error) {
	if depth > maxJSONDepth {
		return Value{}, d.errorf("JSON nested deeper than %d levels", maxJSONDepth)
	}
	if d.pos >= len(d.src) {
		return Value{}, d.unexpected("")
	}
	var v Value
	var err error
	switch c := d.src[d.pos]; {
	case c == '"' && d.check:
		err = d.skipStr()
	case c == '"':
		var s string
		s, err = d.str()
		v = strValue(s)
	case c == '{' || c == '[':
		if c == '{' {
			v, err = d.object(depth + 1)
		} else {
			v, err = d.array(depth + 1)
		}
	case c == '-' || c >= '0' && c <= '9':
		v, err = d.number()
	case c == 't':
		v, err = d.literal("true", vTrue)
	case c == 'f':
		v, err = d.literal("false", vFalse)
	case c == 'n':
		v, err = d.literal("null", none)
	default:
		return Value{}, d.unexpected("looking for beginning of value")
	}
	if err != nil {
		return Value{}, err
	}
	d.skipSpace()
	return v, nil
}

func (d *jsonDecoder) literal(word string, v Value) (Value, error) {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.src) || d.src[d.pos] != word[i] {
			return Value{}, d.unexpected("in literal " + word + " (expecting " + quoteChar(word[i]) + ")")
		}
		d.pos++
	}
	return v, nil
}

func (d *jsonDecoder) array(depth int) (Value, error) {
	d.pos++ // [
	d.skipSpace()
	base := len(d.stack)
	if d.pos < len(d.src) && d.src[d.pos] == ']' {
		d.pos++
		return d.list(base), nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return Value{}, err
		}
		if !d.check {
			d.stack = append(d.stack, v)
		}
		if d.pos >= len(d.src) {
			return Value{}, d.unexpected("")
		}
		switch d.src[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
		case ']':
			d.pos++
			return d.list(base), nil
		default:
			return Value{}, d.unexpected("after array element")
		}
	}
}

func (d *jsonDecoder) object(depth int) (Value, error) {
	d.pos++ // {
	d.skipSpace()
	base := len(d.stack)
	if d.pos < len(d.src) && d.src[d.pos] == '}' {
		d.pos++
		return d.dict(base), nil
	}
	for {
		if d.pos >= len(d.src) || d.src[d.pos] != '"' {
			return Value{}, d.unexpected("looking for beginning of object key string")
		}
		var k string
		var err error
		if d.check {
			err = d.skipStr()
		} else {
			k, err = d.str()
		}
		if err != nil {
			return Value{}, err
		}
		d.skipSpace()
		if d.pos >= len(d.src) || d.src[d.pos] != ':' {
			return Value{}, d.unexpected("after object key")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return Value{}, err
		}
		if !d.check {
			d.stack = append(d.stack, strValue(k), v)
		}
		if d.pos >= len(d.src) {
			return Value{}, d.unexpected("")
		}
		switch d.src[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
		case '}':
			d.pos++
			return d.dict(base), nil
		default:
			return Value{}, d.unexpected("after object key:value pair")
		}
	}
}

// carve returns n values of the slab, to be filled and never appended to.
func (d *jsonDecoder) carve(n int) []Value {
	if n > len(d.slab) {
		// A conversation spends about 17 bytes of JSON a value (a key,
		// a string), a tool's schema 11: the first slab has a value
		// for every 16 bytes, the next as many as the rest of the input
		// holds at the rate read so far, and a quarter more. Values
		// written as tokens (ValueWriter) have no text: each slab is half
		// as large as all before it.
		size := len(d.src) / 16
		switch {
		case len(d.src) == 0:
			size = d.carved / 2
		case d.carved > 0:
			size = (len(d.src) - d.pos) * d.carved / max(d.pos, 1) * 5 / 4
		}
		d.slab = make([]Value, max(n, min(max(size, 16), 4096)))
	}
	d.carved += n
	s := d.slab[:n:n]
	d.slab = d.slab[n:]
	return s
}

// headers is how many list or dict headers to make at once: one for
// every per bytes of the input, or 16 for values written as tokens.
func (d *jsonDecoder) headers(per int) int {
	if len(d.src) == 0 {
		return 16
	}
	return min(len(d.src)/per+1, 64)
}

// list closes a list whose items are the stack's above base.
func (d *jsonDecoder) list(base int) Value {
	if d.check {
		return none
	}
	items := d.carve(len(d.stack) - base)
	copy(items, d.stack[base:])
	d.stack = d.stack[:base]
	if len(d.seqs) == 0 {
		d.seqs = make([]seqData, d.headers(256))
	}
	s := &d.seqs[0]
	d.seqs = d.seqs[1:]
	s.items = items
	return Value{k: List, ref: s}
}

// dict closes a dict whose keys and values alternate on the stack above
// base. A repeated key keeps its first place and takes its last value,
// as in a Python dict.
func (d *jsonDecoder) dict(base int) Value {
	if d.check {
		return none
	}
	pairs := d.stack[base:]
	n := len(pairs) / 2
	kv := d.carve(2 * n)
	keys, vals := kv[:0:n], kv[n:n:2*n]
	var index map[dictKey]int
	if n > smallDict {
		index = make(map[dictKey]int, n)
	}
	for i := 0; i < len(pairs); i += 2 {
		k := pairs[i]
		at := -1
		if index != nil {
			if j, ok := index[dictKey{k: String, s: k.s}]; ok {
				at = j
			} else {
				index[dictKey{k: String, s: k.s}] = len(keys)
			}
		} else {
			for j := range keys {
				if keys[j].s == k.s {
					at = j
					break
				}
			}
		}
		if at >= 0 {
			vals[at] = pairs[i+1]
			continue
		}
		keys = append(keys, k)
		vals = append(vals, pairs[i+1])
	}
	if len(keys) <= smallDict {
		index = nil // repeated keys made it small
	}
	d.stack = d.stack[:base]
	if len(d.dicts) == 0 {
		d.dicts = make([]OrderedDict, d.headers(96))
	}
	o := &d.dicts[0]
	d.dicts = d.dicts[1:]
	o.keys, o.vals, o.index = keys, vals, index
	return Value{k: Dict, ref: o}
}

// number reads a number: an integer when it has neither a fraction nor an
// exponent, a float otherwise, as Python's json reads it.
func (d *jsonDecoder) number() (Value, error) {
	start := d.pos
	integer := true
	if d.src[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.src) && d.src[d.pos] == '0':
		d.pos++
	case d.pos < len(d.src) && d.src[d.pos] >= '1' && d.src[d.pos] <= '9':
		d.digits()
	default:
		return Value{}, d.unexpected("in numeric literal")
	}
	if d.pos < len(d.src) && d.src[d.pos] == '.' {
		integer = false
		d.pos++
		if d.digits() == 0 {
			return Value{}, d.unexpected("after decimal point in numeric literal")
		}
	}
	if d.pos < len(d.src) && (d.src[d.pos] == 'e' || d.src[d.pos] == 'E') {
		integer = false
		d.pos++
		if d.pos < len(d.src) && (d.src[d.pos] == '+' || d.src[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return Value{}, d.unexpected("in exponent of numeric literal")
		}
	}
	lit := d.src[start:d.pos]
	if integer {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return intValue(n), nil
		}
		d.pos = start
		return d.bigInt(lit)
	}
	// Beyond the float range is ±inf, as float() makes it; the grammar
	// is checked above, so ErrRange is the only error.
	f, _ := strconv.ParseFloat(lit, 64)
	return floatValue(f), nil
}

// bigInt is the one place where an integer beyond the 64-bit range
// becomes a value: arbitrary precision, as Python's json reads it (the
// input's size bounds it; what a template builds from it is bounded by
// the render's memory budget).
func (d *jsonDecoder) bigInt(lit string) (Value, error) {
	b, ok := new(big.Int).SetString(lit, 10)
	if !ok { // the grammar is checked before
		return Value{}, d.errorf("invalid integer %s", lit)
	}
	d.pos += len(lit)
	return bigValue(b), nil
}

func (d *jsonDecoder) digits() int {
	start := d.pos
	for d.pos < len(d.src) && d.src[d.pos] >= '0' && d.src[d.pos] <= '9' {
		d.pos++
	}
	return d.pos - start
}

// str reads a string. One without escapes or bytes to replace is a
// substring of the input.
func (d *jsonDecoder) str() (string, error) {
	d.pos++ // "
	start := d.pos
	j, high := d.scan(start)
	if j < len(d.src) && d.src[j] == '"' && (high&msb == 0 || utf8.ValidString(d.src[start:j])) {
		d.pos = j + 1
		return d.src[start:j], nil
	}
	return d.unescape(start)
}

// skipStr reads past a string, as str would read it, without building
// it: only an escape or a control character can make a string invalid.
func (d *jsonDecoder) skipStr() error {
	d.pos++ // "
	for {
		j, _ := d.scan(d.pos)
		d.pos = j
		if j >= len(d.src) {
			return d.unexpected("")
		}
		switch d.src[j] {
		case '"':
			d.pos++
			return nil
		case '\\':
			d.pos++
			if d.pos >= len(d.src) {
				return d.unexpected("")
			}
			switch d.src[d.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				d.pos++
				if _, err := d.hex4(); err != nil {
					return err
				}
			default:
				return d.unexpected("in string escape code")
			}
		default:
			return d.unexpected("in string literal")
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// scan returns the position of the first byte from i on that a string
// cannot hold as it is (", \ or a control character), or len(src), and
// the bits of the bytes before it (high&msb: one of them is not ASCII).
// It reads eight bytes at a time, the last few one at a time.
func (d *jsonDecoder) scan(i int) (int, uint64) {
	s := d.src
	var high uint64
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		q, b := x^(lsb*'"'), x^(lsb*'\\')
		// A byte is zero, or below 0x20, exactly when such a test sets
		// its top bit in one of the eight (the borrows aside, which only
		// follow a byte that is): the lowest bit set is the first such
		// byte.
		if m := ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*0x20)&^x) & msb; m != 0 {
			k := mbits.TrailingZeros64(m) / 8
			return i + k, high | x&(1<<(8*k)-1)
		}
		high |= x
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		high |= uint64(c)
	}
	return i, high
}

// unescape reads a string that started at start and holds escapes or
// bytes to replace into the escape buffer: escapes are decoded, invalid
// UTF-8 becomes U+FFFD, as encoding/json decodes strings.
func (d *jsonDecoder) unescape(start int) (string, error) {
	b := &d.esc
	if b.Cap()-b.Len() < 16 {
		// The strings written so far keep the old buffer; a new one
		// holds the rest.
		*b = strings.Builder{}
		b.Grow(max(len(d.src)/4, 64))
	}
	from := b.Len()
	for i := start; ; {
		j, high := d.scan(i)
		if run := d.src[i:j]; high&msb == 0 || utf8.ValidString(run) {
			b.WriteString(run)
		} else {
			for _, r := range run { // each invalid byte is U+FFFD
				b.WriteRune(r)
			}
		}
		d.pos = j
		if j >= len(d.src) {
			return "", d.unexpected("")
		}
		switch d.src[j] {
		case '"':
			d.pos++
			return b.String()[from:], nil
		case '\\':
			d.pos++
			if err := d.escape(); err != nil {
				return "", err
			}
			i = d.pos
		default:
			return "", d.unexpected("in string literal")
		}
	}
}

// escape reads the escape after a \ into the escape buffer.
func (d *jsonDecoder) escape() error {
	b := &d.esc
	if d.pos >= len(d.src) {
		return d.unexpected("")
	}
	e := d.src[d.pos]
	d.pos++
	switch e {
	case '"', '\\', '/':
		b.WriteByte(e)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, err := d.hex4()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			// A pair is one character; a lone half is U+FFFD, and what
			// follows it is read on its own.
			r2 := rune(-1)
			if d.pos+1 < len(d.src) && d.src[d.pos] == '\\' && d.src[d.pos+1] == 'u' {
				save := d.pos
				d.pos += 2
				if x, err := d.hex4(); err == nil {
					r2 = x
				}
				d.pos = save
			}
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				d.pos += 6
				r = dec
			} else {
				r = utf8.RuneError
			}
		}
		b.WriteRune(r)
	default:
		d.pos--
		return d.unexpected("in string escape code")
	}
	return nil
}

// hex4 reads the four hex digits of a \u escape.
func (d *jsonDecoder) hex4() (rune, error) {
	var r rune
	for i := 0; i < 4; i++ {
		if d.pos >= len(d.src) {
			return 0, d.unexpected("")
		}
		c := d.src[d.pos]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, d.unexpected("in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(c)
		d.pos++
	}
	return r, nil
}

// Member returns the member key of a dict, and whether v is a dict that
// has it.
func Member(v Value, key string) (Value, bool) {
	if v.k != Dict {
		return Value{}, false
	}
	return dictGetString(v, key)
}

// ValueWriter builds a value from JSON given as tokens: a typed
// conversation or list of tools (message.WriteMessages, WriteTools) reads
// as the same values as its JSON text would, without the text. Its zero
// value is ready; Value returns what was written.
type ValueWriter struct {
	d    jsonDecoder
	open []int // where each open container's items start on the stack
}

var _ message.TokenWriter = (*ValueWriter)(nil)

func (w *ValueWriter) push(v Value) { w.d.stack = append(w.d.stack, v) }
func (w *ValueWriter) begin() {
	if w.open == nil { // room for a conversation's nesting and a message's items
		w.open, w.d.stack = make([]int, 0, 16), make([]Value, 0, 64)
	}
	w.open = append(w.open, len(w.d.stack))
}
func (w *ValueWriter) end() int {
	base := w.open[len(w.open)-1]
	w.open = w.open[:len(w.open)-1]
	return base
}

func (w *ValueWriter) BeginObject()    { w.begin() }
func (w *ValueWriter) EndObject()      { w.push(w.d.dict(w.end())) }
func (w *ValueWriter) BeginList()      { w.begin() }
func (w *ValueWriter) EndList()        { w.push(w.d.list(w.end())) }
func (w *ValueWriter) Key(name string) { w.push(strValue(name)) }
func (w *ValueWriter) String(s string) { w.push(strValue(s)) }
func (w *ValueWriter) Bool(b bool)     { w.push(boolValue(b)) }
func (w *ValueWriter) Null()           { w.push(none) }

// JSON decodes text, one JSON value, in place.
func (w *ValueWriter) JSON(text string) error {
	src, pos := w.d.src, w.d.pos
	defer func() { w.d.src, w.d.pos = src, pos }()
	w.d.src, w.d.pos = text, 0
	v, err := w.d.top(len(w.open))
	if err != nil {
		return err
	}
	w.push(v)
	return nil
}

// CheckWriter is a ValueWriter that builds nothing: it refuses what a
// ValueWriter refuses (a JSON text that is invalid, or nested too deep
// with the containers around it), for an input the template never reads.
// Its zero value is ready.
type CheckWriter struct{ depth int }

var _ message.TokenWriter = (*CheckWriter)(nil)

func (w *CheckWriter) BeginObject() { w.depth++ }
func (w *CheckWriter) EndObject()   { w.depth-- }
func (w *CheckWriter) BeginList()   { w.depth++ }
func (w *CheckWriter) EndList()     { w.depth-- }
func (*CheckWriter) Key(string)     {}
func (*CheckWriter) String(string)  {}
func (*CheckWriter) Bool(bool)      {}
func (*CheckWriter) Null()          {}

// JSON checks text, one JSON value, as ValueWriter.JSON reads it.
func (w *CheckWriter) JSON(text string) error {
	d := jsonDecoder{src: text, check: true}
	_, err := d.top(w.depth)
	return err
}

// Value returns the value written: the last one written at the top.
func (w *ValueWriter) Value() Value {
	if len(w.open) > 0 || len(w.d.stack) == 0 {
		return undefined
	}
	return w.d.stack[len(w.d.stack)-1]
}
