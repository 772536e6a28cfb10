package message

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

// The JSON of messages is read and written by one codec per object type:
// a table of its keys in the order they are written (json.go has the
// tables). Reading is strict — a key the table does not have, a
// duplicate, a null or a value of the wrong type is a *FieldError naming
// its path — and records how the object was written when that is not the
// way the value would write itself (a key left out that is normally
// written, an empty or null value): writing follows the record, so what
// was read is written back the same. The order of keys is not recorded:
// keys are written in the table's order, so messages equal in everything
// but the order of their JSON keys are equal values.

// key is one key of the JSON objects of type T.
type key[T any] struct {
	name string
	// has reports whether v has a value for the key; nil means always
	// (role, type), so a key read from JSON is written back.
	has func(v *T) bool
	// required keys must be in an object read from JSON.
	required bool
	// empty is the JSON of the key's empty value ("" or []): an object
	// read with it so is written with it so. "" for keys that have none.
	empty string
	// readsNull: read takes a null itself (content), rather than the
	// codec recording it.
	readsNull bool
	read      func(r *reader, v *T, raw []byte) error
	write     func(w *writer, v *T) error
	// sub is the codec of an object that is the key's value but whose
	// fields are fields of T (image_url of a Part, function of a
	// ToolCall): read and written by the codec, its record kept beside
	// T's.
	sub *codec[T]
}

// codec reads and writes the JSON objects of type T.
type codec[T any] struct {
	what   string // "a message", "a tool call": for errors
	keys   []key[T]
	layout func(v *T) **layout // where T keeps its record; nil: T keeps none
	// noNull refuses null for every key: a type that keeps no record (a
	// Part, small as the chat blocks' results need it) cannot write a
	// null back.
	noNull bool
	// check, when set, validates a value before it is written (present
	// is nil) and after it is read (present tells which keys the object
	// had): a part's fields against its type, say. The path of its
	// *FieldError is relative to the object.
	check func(v *T, present []bool) error
	// done, when set, completes a value read from JSON before its layout
	// is compared with its own (a message's content form).
	done  func(v *T)
	names []string
}

// layout records how an object read from JSON was written, when that is
// not how its value writes itself: its keys, each with whether its value
// was null or empty, and those of the object of its sub key. A layout is
// never changed after it is made, so copies of a value share it.
type layout struct {
	keys, sub []entry
	content   ContentForm // a Message's, when not ContentAuto
}

type entry struct {
	key   uint8 // index in the codec's keys
	state uint8 // entryValue, entryNull or entryEmpty
}

const (
	entryValue uint8 = iota
	entryNull
	entryEmpty
)

func (c *codec[T]) init() *codec[T] {
	for _, k := range c.keys {
		c.names = append(c.names, k.name)
	}
	return c
}

func (c *codec[T]) index(name string) int {
	for i, k := range c.keys {
		if k.name == name {
			return i
		}
	}
	return -1
}

// canonical is the record of how v writes itself: the keys it has, in
// the table's order.
func (c *codec[T]) canonical(v *T) []entry {
	var out []entry
	for i, k := range c.keys {
		if k.has == nil || k.has(v) {
			out = append(out, entry{key: uint8(i)})
		}
	}
	return out
}

// encode writes v as a JSON object.
func (c *codec[T]) encode(w *writer, v *T) error {
	var l *layout
	if c.layout != nil {
		l = *c.layout(v)
	}
	if l == nil || l.keys == nil {
		return c.encodeWith(w, v, nil)
	}
	return c.encodeWith(w, v, l.keys)
}

// encodeWith writes v as a JSON object, with the keys, nulls and empty
// values of the layout rec, or as v writes itself when rec is nil.
func (c *codec[T]) encodeWith(w *writer, v *T, rec []entry) error {
	if c.check != nil {
		if err := c.check(v, nil); err != nil {
			return w.fail(err)
		}
	}
	w.open('{')
	first := true
	for i := range c.keys {
		k := &c.keys[i]
		state, recorded := entryValue, rec == nil
		for _, e := range rec {
			if int(e.key) == i {
				state, recorded = e.state, true
			}
		}
		var value func() error
		switch {
		case k.has == nil && !recorded:
			// a key written always, that the object read did not have
		case k.has == nil || k.has(v):
			value = func() error { return c.writeValue(w, v, k) }
		case recorded && state == entryNull:
			value = func() error { w.null(); return nil }
		case recorded && state == entryEmpty:
			value = func() error { w.empty(k.empty); return nil }
		}
		if value == nil {
			continue
		}
		w.key(first, k.name)
		first = false
		w.push(k.name)
		err := value()
		w.pop()
		if err != nil {
			return err
		}
	}
	w.close('}')
	return nil
}

func (c *codec[T]) writeValue(w *writer, v *T, k *key[T]) error {
	if k.sub == nil {
		return k.write(w, v)
	}
	var rec []entry
	if c.layout != nil {
		if l := *c.layout(v); l != nil {
			rec = l.sub
		}
	}
	return k.sub.encodeWith(w, v, rec)
}

// decode reads the JSON object data into v, which is zero, and records
// its layout when it differs from v's own.
func (c *codec[T]) decode(r *reader, v *T, data []byte) error {
	keys, sub, err := c.decodeKeys(r, v, data)
	if err != nil {
		return err
	}
	if !slices.Equal(keys, c.canonical(v)) || !c.sameSub(v, sub) {
		if c.layout == nil {
			return r.errHere(c.what + " written in a form it cannot be written back in")
		}
		l := *c.layout(v) // made by this decoding (a message's content form), so not shared yet
		if l == nil {
			l = &layout{}
			*c.layout(v) = l
		}
		l.keys, l.sub = keys, sub
	}
	return nil
}

// sameSub reports whether the record of the sub object is how v writes
// it.
func (c *codec[T]) sameSub(v *T, sub []entry) bool {
	for _, k := range c.keys {
		if k.sub != nil && (k.has == nil || k.has(v)) {
			return slices.Equal(sub, k.sub.canonical(v))
		}
	}
	return sub == nil
}

func (c *codec[T]) decodeKeys(r *reader, v *T, data []byte) (rec, sub []entry, err error) {
	members, err := r.object(data, c.what)
	if err != nil {
		return nil, nil, err
	}
	present := make([]bool, len(c.keys))
	for _, m := range members {
		i := c.index(m.key)
		if i < 0 {
			return nil, nil, r.unknown(m.key, c.what, c.names)
		}
		if present[i] {
			return nil, nil, r.errAt(m.key, "duplicate field")
		}
		present[i] = true
		k := &c.keys[i]
		e := entry{key: uint8(i)}
		switch {
		case isNull(m.raw) && !k.readsNull:
			if k.has == nil || k.sub != nil || c.noNull {
				return nil, nil, r.errAt(m.key, "want a value, got null")
			}
			e.state = entryNull
		case k.sub != nil:
			r.push(m.key)
			sub, _, err = k.sub.decodeKeys(r, v, m.raw)
			r.pop()
		default:
			r.push(m.key)
			err = k.read(r, v, m.raw)
			r.pop()
		}
		if err != nil {
			return nil, nil, err
		}
		rec = append(rec, e)
	}
	// A key read with a value that v does not write (an empty string or
	// list) is recorded so; the keys are written in the table's order,
	// whatever order they were read in.
	for i, e := range rec {
		if k := &c.keys[e.key]; e.state == entryValue && k.has != nil && !k.has(v) {
			rec[i].state = entryEmpty
		}
	}
	slices.SortFunc(rec, func(a, b entry) int { return int(a.key) - int(b.key) })
	for i, k := range c.keys {
		if k.required && !present[i] {
			return nil, nil, r.errHere(fmt.Sprintf("missing field %q", k.name))
		}
	}
	if c.done != nil {
		c.done(v)
	}
	if c.check != nil {
		if err := c.check(v, present); err != nil {
			return nil, nil, r.fail(err)
		}
	}
	return rec, sub, nil
}

// reader reads JSON, keeping the path of the value it is at.
type reader struct {
	path []string
}

// pathString is the path of the current value: "messages[3].tool_calls[0]".
func pathString(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func (r *reader) push(p string) { r.path = append(r.path, p) }
func (r *reader) pop()          { r.path = r.path[:len(r.path)-1] }

func (r *reader) errHere(msg string) error {
	return &FieldError{Path: pathString(r.path), Msg: msg, Err: ErrInvalid}
}

func (r *reader) errAt(key, msg string) error {
	r.push(key)
	defer r.pop()
	return r.errHere(msg)
}

// fail gives a check's error the current path.
func (r *reader) fail(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Path: joinPath(pathString(r.path), fe.Path), Msg: fe.Msg, Err: fe.Err}
	}
	return r.errHere(err.Error())
}

func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case b[0] == '[':
		return a + b
	}
	return a + "." + b
}

func (r *reader) unknown(name, what string, known []string) error {
	msg := "unknown field"
	if s := suggest.Closest(name, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		msg += fmt.Sprintf(" (%s has: %s)", what, strings.Join(known, ", "))
	}
	r.push(keyPath(name))
	defer r.pop()
	return &FieldError{Path: pathString(r.path), Msg: msg, Err: ErrUnknownField}
}

// keyPath is how a key the model does not know appears in a path: as it
// is when it is a name, quoted in brackets otherwise (["a.b"]).
func keyPath(name string) string {
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return "[" + strconv.Quote(name) + "]"
		}
	}
	if name == "" {
		return `[""]`
	}
	return name
}

type member struct {
	key string
	raw []byte
}

// object reads the members of the JSON object data, in order.
func (r *reader) object(data []byte, what string) ([]member, error) {
	if len(data) == 0 || data[0] != '{' {
		return nil, r.errHere(fmt.Sprintf("want %s (a JSON object), got %s", what, kindOf(data)))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, r.syntax(err)
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, r.syntax(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, r.syntax(err)
		}
		out = append(out, member{key: t.(string), raw: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, r.syntax(err)
	}
	return out, nil
}

// list reads the items of the JSON array data.
func (r *reader) list(data []byte, what string) ([][]byte, error) {
	if len(data) == 0 || data[0] != '[' {
		return nil, r.errHere(fmt.Sprintf("want %s, got %s", what, kindOf(data)))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, r.syntax(err)
	}
	var out [][]byte
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, r.syntax(err)
		}
		out = append(out, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, r.syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, r.errHere("unexpected data after the JSON value")
	}
	return out, nil
}

func (r *reader) syntax(err error) error {
	msg := "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
	if se, ok := err.(*json.SyntaxError); ok {
		msg = fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return r.errHere(msg)
}

// str reads a JSON string.
func (r *reader) str(data []byte) (string, error) {
	if len(data) == 0 || data[0] != '"' {
		return "", r.errHere("want a string, got " + kindOf(data))
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return "", r.syntax(err)
	}
	return s, nil
}

// kindOf names the JSON type of data for an error.
func kindOf(data []byte) string {
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isNull(data []byte) bool { return string(data) == "null" }

// writer writes JSON, keeping the path of the value it is at for errors:
// as text into b, or as tokens to tw when it is set (WriteMessages).
type writer struct {
	b    []byte
	tw   TokenWriter
	path []string
}

// open and close write the brackets of an object or a list.
func (w *writer) open(c byte) {
	switch {
	case w.tw == nil:
		w.b = append(w.b, c)
	case c == '{':
		w.tw.BeginObject()
	default:
		w.tw.BeginList()
	}
}

func (w *writer) close(c byte) {
	switch {
	case w.tw == nil:
		w.b = append(w.b, c)
	case c == '}':
		w.tw.EndObject()
	default:
		w.tw.EndList()
	}
}

// item separates an item of a list from the one before.
func (w *writer) item(first bool) {
	if w.tw == nil && !first {
		w.b = append(w.b, ',')
	}
}

// key writes an object's key; its value follows.
func (w *writer) key(first bool, name string) {
	if w.tw != nil {
		w.tw.Key(name)
		return
	}
	w.item(first)
	w.str(name)
	w.b = append(w.b, ':')
}

func (w *writer) null() {
	if w.tw != nil {
		w.tw.Null()
		return
	}
	w.b = append(w.b, "null"...)
}

func (w *writer) boolean(b bool) {
	if w.tw != nil {
		w.tw.Bool(b)
		return
	}
	w.b = strconv.AppendBool(w.b, b)
}

// empty writes a key's empty value: "" or [].
func (w *writer) empty(text string) {
	switch {
	case w.tw == nil:
		w.b = append(w.b, text...)
	case text == "[]":
		w.tw.BeginList()
		w.tw.EndList()
	default:
		w.tw.String("")
	}
}

func (w *writer) push(p string) { w.path = append(w.path, p) }
func (w *writer) pop()          { w.path = w.path[:len(w.path)-1] }

// fail gives an error the path being written.
func (w *writer) fail(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Path: joinPath(pathString(w.path), fe.Path), Msg: fe.Msg, Err: fe.Err}
	}
	return &FieldError{Path: pathString(w.path), Msg: err.Error(), Err: ErrInvalid}
}

func (w *writer) failf(format string, args ...any) error {
	return &FieldError{Path: pathString(w.path), Msg: fmt.Sprintf(format, args...), Err: ErrInvalid}
}

// index writes the path of list item i.
func (w *writer) index(i int) { w.push("[" + strconv.Itoa(i) + "]") }

// str writes s as a JSON string, as encoding/json writes it without HTML
// escaping: a prompt's <, > and & stay readable.
func (w *writer) str(s string) {
	if w.tw != nil {
		w.tw.String(s)
		return
	}
	const hex = "0123456789abcdef"
	b := append(w.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	w.b = append(b, '"')
}

// rawObject writes s, the JSON text of an object, as it is.
func (w *writer) rawObject(s string) error {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || t[0] != '{' {
		return w.failf("not a JSON object")
	}
	if w.tw != nil {
		if err := w.tw.JSON(t); err != nil {
			return w.failf("not a JSON object: %v", err)
		}
		return nil
	}
	if !json.Valid([]byte(t)) {
		return w.failf("not a JSON object")
	}
	w.b = append(w.b, s...)
	return nil
}
