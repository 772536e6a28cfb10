package message

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

// The JSON shape of the model, key by key, each table in the order its
// keys are written: the Chat Completions API's messages, content parts,
// tool calls and function tools, with Anthropic's cache_control and
// DeepSeek's reasoning_content. Each table is made the first time it is
// used, not when a program that links the package starts.

var messageCodec = sync.OnceValue(func() *codec[Message] {
	return (&codec[Message]{
		what:   "a message",
		layout: func(m *Message) **layout { return &m.layout },
		keys: []key[Message]{
			requiredString("role", func(m *Message) *string { return &m.Role }),
			optionalString("tool_call_id", func(m *Message) *string { return &m.ToolCallID }),
			optionalString("name", func(m *Message) *string { return &m.Name }),
			{name: "content", readsNull: true, has: func(m *Message) bool { return m.Form() != ContentAbsent },
				read: readContent, write: writeContent},
			optionalString("reasoning_content", func(m *Message) *string { return &m.ReasoningContent }),
			{name: "tool_calls", empty: "[]", has: func(m *Message) bool { return len(m.ToolCalls) > 0 },
				read: func(r *reader, m *Message, raw []byte) (err error) {
					m.ToolCalls, err = readList(r, raw, "a list of tool calls", toolCallCodec())
					return err
				},
				write: func(w *writer, m *Message) error { return writeList(w, m.ToolCalls, toolCallCodec()) }},
			cacheKey(func(m *Message) **CacheControl { return &m.CacheControl }),
		},
		// A message read without "content" has ContentAbsent; one read with
		// it has the form it was read in, or ContentAuto when that is the
		// form ContentAuto writes.
		done: func(m *Message) {
			read := ContentAbsent
			if m.layout != nil {
				read = m.layout.content
			}
			m.SetForm(ContentAuto)
			if m.Form() != read {
				m.SetForm(read)
			}
		},
		check: func(m *Message, _ []bool) error {
			switch f := m.Form(); {
			case f > ContentAbsent:
				return &FieldError{Path: "content", Msg: fmt.Sprintf("unknown content form %d", f), Err: ErrInvalid}
			case f == ContentString && (len(m.Parts) > 1 || len(m.Parts) == 1 && !m.Parts[0].plainText()):
				return &FieldError{Path: "content", Msg: "a string holds one text part without a cache mark, not " + describeParts(m.Parts), Err: ErrInvalid}
			case (f == ContentNull || f == ContentAbsent) && len(m.Parts) > 0:
				return &FieldError{Path: "content", Msg: fmt.Sprintf("content that is %s has no parts, not %s", formName[f], describeParts(m.Parts)), Err: ErrInvalid}
			}
			return nil
		},
	}).init()
})

var formName = map[ContentForm]string{ContentNull: "null", ContentAbsent: "left out"}

func describeParts(parts []Part) string {
	if len(parts) == 1 {
		return "a " + string(parts[0].Type) + " part"
	}
	return fmt.Sprintf("%d parts", len(parts))
}

func readContent(r *reader, m *Message, raw []byte) error {
	switch {
	case isNull(raw):
		m.SetForm(ContentNull)
	case raw[0] == '"':
		s, err := r.str(raw)
		if err != nil {
			return err
		}
		if s != "" {
			m.Parts = []Part{{Type: PartText, Text: s}}
		}
		m.SetForm(ContentString)
	case raw[0] == '[':
		parts, err := readList(r, raw, "a list of parts", partCodec())
		if err != nil {
			return err
		}
		m.Parts = parts
		m.SetForm(ContentList)
	default:
		return r.errHere("want a string, a list of parts or null, got " + kindOf(raw))
	}
	return nil
}

func writeContent(w *writer, m *Message) error {
	switch m.Form() {
	case ContentString:
		text := ""
		if len(m.Parts) == 1 {
			text = m.Parts[0].Text
		}
		w.str(text)
	case ContentList:
		return writeList(w, m.Parts, partCodec())
	default:
		w.null()
	}
	return nil
}

// partPayload is the index of the key that holds a part's payload, by
// part type, and partKeys the names of the keys by index.
var (
	partPayload = map[PartType]int{PartText: 1, PartImage: 2, PartAudio: 3, PartFile: 4}
	partKeys    = []string{"type", "text", "image_url", "input_audio", "file", "cache_control"}
)

var partTypes = []string{string(PartText), string(PartImage), string(PartAudio), string(PartFile)}

var partCodec = sync.OnceValue(func() *codec[Part] {
	return (&codec[Part]{
		what:   "a content part",
		noNull: true,
		keys: []key[Part]{
			{name: "type", required: true,
				read: func(r *reader, p *Part, raw []byte) error {
					s, err := r.str(raw)
					if err != nil {
						return err
					}
					if _, ok := partPayload[PartType(s)]; !ok {
						return r.errHere(unknownPartType(s))
					}
					p.Type = PartType(s)
					return nil
				},
				write: func(w *writer, p *Part) error { w.str(string(p.Type)); return nil }},
			{name: "text", has: func(p *Part) bool { return p.Type == PartText },
				read:  func(r *reader, p *Part, raw []byte) (err error) { p.Text, err = r.str(raw); return err },
				write: func(w *writer, p *Part) error { w.str(p.Text); return nil }},
			{name: "image_url", has: func(p *Part) bool { return p.Type == PartImage }, sub: imageCodec()},
			objectKey("input_audio", func(p *Part) **Audio { return &p.Audio }, audioCodec()),
			objectKey("file", func(p *Part) **File { return &p.File }, fileCodec()),
			cacheKey(func(p *Part) **CacheControl { return &p.CacheControl }),
		},
		check: checkPart,
	}).init()
})

func unknownPartType(s string) string {
	msg := fmt.Sprintf("%q is not a part type", s)
	if best := suggest.Closest(s, partTypes); best != "" {
		return msg + fmt.Sprintf("; did you mean %q?", best)
	}
	return msg + " (want " + strings.Join(partTypes, ", ") + ")"
}

// checkPart holds a part's fields to its type: the payload of its type
// and no other.
func checkPart(p *Part, present []bool) error {
	want, ok := partPayload[p.Type]
	if !ok {
		return &FieldError{Path: "type", Msg: unknownPartType(string(p.Type)), Err: ErrInvalid}
	}
	set := []bool{1: p.Text != "", 2: p.URL != "" || p.Detail != "", 3: p.Audio != nil, 4: p.File != nil}
	if present != nil {
		set = present
	}
	for i := 1; i <= 4; i++ {
		if i != want && set[i] {
			return &FieldError{Path: partKeys[i], Msg: fmt.Sprintf("not a field of a %s part", p.Type), Err: ErrInvalid}
		}
	}
	if present != nil && !present[want] {
		return &FieldError{Msg: fmt.Sprintf("a %s part needs %q", p.Type, partKeys[want]), Err: ErrInvalid}
	}
	switch {
	case p.Type == PartAudio && p.Audio == nil:
		return &FieldError{Msg: "an input_audio part needs its Audio", Err: ErrInvalid}
	case p.Type == PartFile && p.File == nil:
		return &FieldError{Msg: "a file part needs its File", Err: ErrInvalid}
	}
	return nil
}

var imageDetails = []string{"auto", "low", "high", "original"}

// imageCodec is the image_url object of a PartImage.
var imageCodec = sync.OnceValue(func() *codec[Part] {
	return (&codec[Part]{
		what:   "an image_url",
		noNull: true,
		keys: []key[Part]{
			{name: "url", required: true,
				read: func(r *reader, p *Part, raw []byte) (err error) {
					if p.URL, err = r.str(raw); err != nil {
						return err
					}
					if err := imageURL(p.URL); err != nil {
						return r.fail(err)
					}
					return nil
				},
				write: func(w *writer, p *Part) error { w.str(p.URL); return nil }},
			{name: "detail", has: func(p *Part) bool { return p.Detail != "" },
				read: func(r *reader, p *Part, raw []byte) (err error) {
					p.Detail, err = r.str(raw)
					if err == nil && !slices.Contains(imageDetails, p.Detail) {
						err = r.errHere(fmt.Sprintf("%q is not an image detail (want %s)", p.Detail, strings.Join(imageDetails, ", ")))
					}
					return err
				},
				write: func(w *writer, p *Part) error { w.str(p.Detail); return nil }},
		},
		check: func(p *Part, present []bool) error {
			if present == nil {
				if err := imageURL(p.URL); err != nil {
					return &FieldError{Path: "url", Msg: err.(*FieldError).Msg, Err: ErrInvalid}
				}
				if p.Detail != "" && !slices.Contains(imageDetails, p.Detail) {
					return &FieldError{Path: "detail", Msg: fmt.Sprintf("%q is not an image detail (want %s)", p.Detail, strings.Join(imageDetails, ", ")), Err: ErrInvalid}
				}
			}
			return nil
		},
	}).init()
})

// imageURL checks that u is an http(s) or data: URL, the two forms chat
// APIs take.
func imageURL(u string) error {
	lower := strings.ToLower(u[:min(len(u), len("https://"))])
	if strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "data:") {
		return nil
	}
	short := u
	if len(short) > 40 {
		short = short[:40] + "…"
	}
	return &FieldError{Msg: fmt.Sprintf("%q is not an http(s) or data: URL", short), Err: ErrInvalid}
}

var audioCodec = sync.OnceValue(func() *codec[Audio] {
	return (&codec[Audio]{
		what:   "an input_audio",
		layout: func(a *Audio) **layout { return &a.layout },
		keys: []key[Audio]{
			requiredString("data", func(a *Audio) *string { return &a.Data }),
			requiredString("format", func(a *Audio) *string { return &a.Format }),
		},
	}).init()
})

var fileCodec = sync.OnceValue(func() *codec[File] {
	return (&codec[File]{
		what:   "a file",
		layout: func(f *File) **layout { return &f.layout },
		keys: []key[File]{
			optionalString("filename", func(f *File) *string { return &f.Filename }),
			optionalString("file_data", func(f *File) *string { return &f.Data }),
			optionalString("file_id", func(f *File) *string { return &f.ID }),
		},
		check: func(f *File, _ []bool) error {
			if f.Data == "" && f.ID == "" {
				return &FieldError{Msg: "a file needs file_data or file_id", Err: ErrInvalid}
			}
			return nil
		},
	}).init()
})

var cacheTTLs = []string{"5m", "1h"}

var cacheCodec = sync.OnceValue(func() *codec[CacheControl] {
	return (&codec[CacheControl]{
		what:   "a cache_control",
		layout: func(c *CacheControl) **layout { return &c.layout },
		keys: []key[CacheControl]{
			constant[CacheControl]("type", "ephemeral", true),
			{name: "ttl", has: func(c *CacheControl) bool { return c.TTL != "" },
				read: func(r *reader, c *CacheControl, raw []byte) (err error) {
					c.TTL, err = r.str(raw)
					if err == nil && !slices.Contains(cacheTTLs, c.TTL) {
						err = r.errHere(fmt.Sprintf("%q is not a cache TTL (want 5m or 1h)", c.TTL))
					}
					return err
				},
				write: func(w *writer, c *CacheControl) error { w.str(c.TTL); return nil }},
		},
		check: func(c *CacheControl, _ []bool) error {
			if c.TTL != "" && !slices.Contains(cacheTTLs, c.TTL) {
				return &FieldError{Path: "ttl", Msg: fmt.Sprintf("%q is not a cache TTL (want 5m or 1h)", c.TTL), Err: ErrInvalid}
			}
			return nil
		},
	}).init()
})

var toolCallCodec = sync.OnceValue(func() *codec[ToolCall] {
	return (&codec[ToolCall]{
		what:   "a tool call",
		layout: func(c *ToolCall) **layout { return &c.layout },
		keys: []key[ToolCall]{
			optionalString("id", func(c *ToolCall) *string { return &c.ID }),
			constant[ToolCall]("type", "function", false),
			{name: "function", required: true, sub: functionCallCodec()},
		},
	}).init()
})

// functionCallCodec is the function object of a tool call.
var functionCallCodec = sync.OnceValue(func() *codec[ToolCall] {
	return (&codec[ToolCall]{
		what: "a function call",
		keys: []key[ToolCall]{
			requiredString("name", func(c *ToolCall) *string { return &c.Name }),
			{name: "arguments", required: true,
				read: func(r *reader, c *ToolCall, raw []byte) (err error) {
					switch raw[0] {
					case '"':
						c.Arguments, err = r.str(raw)
					case '{':
						c.Arguments, c.ObjectArguments = string(raw), true
					default:
						err = r.errHere("want a string or an object, got " + kindOf(raw))
					}
					return err
				},
				write: func(w *writer, c *ToolCall) error {
					if c.ObjectArguments {
						return w.rawObject(c.Arguments)
					}
					w.str(c.Arguments)
					return nil
				}},
		},
	}).init()
})

var toolCodec = sync.OnceValue(func() *codec[Tool] {
	return (&codec[Tool]{
		what:   "a tool",
		layout: func(t *Tool) **layout { return &t.layout },
		keys: []key[Tool]{
			constant[Tool]("type", "function", false),
			{name: "function", required: true, sub: functionCodec()},
			cacheKey(func(t *Tool) **CacheControl { return &t.CacheControl }),
		},
	}).init()
})

// functionCodec is the function object of a tool.
var functionCodec = sync.OnceValue(func() *codec[Tool] {
	return (&codec[Tool]{
		what: "a function",
		keys: []key[Tool]{
			requiredString("name", func(t *Tool) *string { return &t.Name }),
			optionalString("description", func(t *Tool) *string { return &t.Description }),
			{name: "parameters", has: func(t *Tool) bool { return len(t.Parameters) > 0 },
				read: func(r *reader, t *Tool, raw []byte) error {
					if raw[0] != '{' {
						return r.errHere("want a JSON Schema object, got " + kindOf(raw))
					}
					t.Parameters = bytes.Clone(raw)
					return nil
				},
				write: func(w *writer, t *Tool) error { return w.rawObject(string(t.Parameters)) }},
			{name: "strict", has: func(t *Tool) bool { return t.Strict != nil },
				read: func(r *reader, t *Tool, raw []byte) error {
					switch string(raw) {
					case "true", "false":
						b := string(raw) == "true"
						t.Strict = &b
						return nil
					}
					return r.errHere("want a boolean, got " + kindOf(raw))
				},
				write: func(w *writer, t *Tool) error {
					w.boolean(*t.Strict)
					return nil
				}},
		},
	}).init()
})

// requiredString is a key every object has, with a string that is not
// empty.
func requiredString[T any](name string, field func(*T) *string) key[T] {
	return key[T]{name: name, required: true,
		read: func(r *reader, v *T, raw []byte) error {
			s, err := r.str(raw)
			if err == nil && s == "" {
				err = r.errHere("empty")
			}
			*field(v) = s
			return err
		},
		write: func(w *writer, v *T) error {
			if *field(v) == "" {
				return w.failf("empty")
			}
			w.str(*field(v))
			return nil
		}}
}

// optionalString is a key written when its string is not empty.
func optionalString[T any](name string, field func(*T) *string) key[T] {
	return key[T]{name: name, empty: `""`,
		has:   func(v *T) bool { return *field(v) != "" },
		read:  func(r *reader, v *T, raw []byte) (err error) { *field(v), err = r.str(raw); return err },
		write: func(w *writer, v *T) error { w.str(*field(v)); return nil }}
}

// constant is a key whose value is always value ("type": "function").
// A required one must be read; one that is not may be left out, and is
// then left out when the object is written again.
func constant[T any](name, value string, required bool) key[T] {
	return key[T]{name: name, required: required,
		read: func(r *reader, _ *T, raw []byte) error {
			s, err := r.str(raw)
			if err == nil && s != value {
				err = r.errHere(fmt.Sprintf("%q is not supported (want %q)", s, value))
			}
			return err
		},
		write: func(w *writer, _ *T) error { w.str(value); return nil }}
}

// objectKey is a key whose value is an object of another type, held by
// pointer; nil leaves it out.
func objectKey[T, O any](name string, field func(*T) **O, c *codec[O]) key[T] {
	return key[T]{name: name,
		has: func(v *T) bool { return *field(v) != nil },
		read: func(r *reader, v *T, raw []byte) error {
			o := new(O)
			if err := c.decode(r, o, raw); err != nil {
				return err
			}
			*field(v) = o
			return nil
		},
		write: func(w *writer, v *T) error { return c.encode(w, *field(v)) }}
}

func cacheKey[T any](field func(*T) **CacheControl) key[T] {
	return objectKey("cache_control", field, cacheCodec())
}

func readList[T any](r *reader, raw []byte, what string, c *codec[T]) ([]T, error) {
	items, err := r.list(raw, what)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	out := make([]T, len(items))
	for i, item := range items {
		r.push(fmt.Sprintf("[%d]", i))
		err := c.decode(r, &out[i], item)
		r.pop()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func writeList[T any](w *writer, items []T, c *codec[T]) error {
	w.open('[')
	for i := range items {
		w.item(i == 0)
		w.index(i)
		err := c.encode(w, &items[i])
		w.pop()
		if err != nil {
			return err
		}
	}
	w.close(']')
	return nil
}

// MarshalJSON writes the message in the Chat Completions shape. A
// message decoded from JSON is written as it was read.
func (m Message) MarshalJSON() ([]byte, error) { return marshal(messageCodec(), &m) }

// UnmarshalJSON reads a message in the Chat Completions shape, strictly:
// an unknown field, a duplicate, a null where a value belongs or a value
// of the wrong type is a *FieldError naming its path.
func (m *Message) UnmarshalJSON(data []byte) error { return unmarshal(messageCodec(), m, data) }

// MarshalJSON writes {"type": …, …} as the part's type has it.
func (p Part) MarshalJSON() ([]byte, error) { return marshal(partCodec(), &p) }

// UnmarshalJSON reads a content part of one of the four types.
func (p *Part) UnmarshalJSON(data []byte) error { return unmarshal(partCodec(), p, data) }

// MarshalJSON writes {"id": …, "type": "function", "function": {…}}.
func (c ToolCall) MarshalJSON() ([]byte, error) { return marshal(toolCallCodec(), &c) }

// UnmarshalJSON reads a function tool call; "arguments" is a string or
// an object (ObjectArguments).
func (c *ToolCall) UnmarshalJSON(data []byte) error { return unmarshal(toolCallCodec(), c, data) }

// MarshalJSON writes {"type": "function", "function": {…}}.
func (t Tool) MarshalJSON() ([]byte, error) { return marshal(toolCodec(), &t) }

// UnmarshalJSON reads a function tool.
func (t *Tool) UnmarshalJSON(data []byte) error { return unmarshal(toolCodec(), t, data) }

// MarshalJSON writes {"type": "ephemeral"} and the TTL if there is one.
func (c CacheControl) MarshalJSON() ([]byte, error) { return marshal(cacheCodec(), &c) }

// UnmarshalJSON reads {"type": "ephemeral", "ttl": …}.
func (c *CacheControl) UnmarshalJSON(data []byte) error { return unmarshal(cacheCodec(), c, data) }

// MarshalJSON writes {"data": …, "format": …}.
func (a Audio) MarshalJSON() ([]byte, error) { return marshal(audioCodec(), &a) }

// UnmarshalJSON reads {"data": …, "format": …}.
func (a *Audio) UnmarshalJSON(data []byte) error { return unmarshal(audioCodec(), a, data) }

// MarshalJSON writes {"filename": …, "file_data": …, "file_id": …}, each
// when set.
func (f File) MarshalJSON() ([]byte, error) { return marshal(fileCodec(), &f) }

// UnmarshalJSON reads {"filename": …, "file_data": …, "file_id": …}.
func (f *File) UnmarshalJSON(data []byte) error { return unmarshal(fileCodec(), f, data) }

func marshal[T any](c *codec[T], v *T) ([]byte, error) {
	var w writer
	if err := c.encode(&w, v); err != nil {
		return nil, err
	}
	return w.b, nil
}

// trimJSONSpace trims the whitespace JSON allows around a value: space,
// tab, newline and carriage return, not the other characters
// bytes.TrimSpace would take (a form feed, U+0085, U+00A0), which make
// the text not JSON.
func trimJSONSpace(data []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(data) > 0 && isSpace(data[0]) {
		data = data[1:]
	}
	for len(data) > 0 && isSpace(data[len(data)-1]) {
		data = data[:len(data)-1]
	}
	return data
}

func unmarshal[T any](c *codec[T], v *T, data []byte) error {
	var out T
	if err := c.decode(&reader{}, &out, trimJSONSpace(data)); err != nil {
		return err
	}
	*v = out
	return nil
}

// DecodeMessages reads a JSON list of messages, as a chat request's
// "messages" holds them. An error is a *FieldError whose path starts at
// the list: messages[3].tool_calls[0].function.argumnets.
func DecodeMessages(data []byte) ([]Message, error) {
	return decodeList(data, "messages", "a list of messages", messageCodec())
}

// EncodeMessages writes msgs as a JSON list; an error is a *FieldError
// whose path starts at the list (messages[2].content).
func EncodeMessages(msgs []Message) ([]byte, error) {
	return encodeList(msgs, "messages", messageCodec())
}

// DecodeTools reads a JSON list of function tools, as a chat request's
// "tools" holds them; errors name their path from tools.
func DecodeTools(data []byte) ([]Tool, error) {
	return decodeList(data, "tools", "a list of tools", toolCodec())
}

// EncodeTools writes tools as a JSON list.
func EncodeTools(tools []Tool) ([]byte, error) {
	return encodeList(tools, "tools", toolCodec())
}

func decodeList[T any](data []byte, root, what string, c *codec[T]) ([]T, error) {
	r := &reader{path: []string{root}}
	out, err := readList(r, trimJSONSpace(data), what, c)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []T{}
	}
	return out, nil
}

func encodeList[T any](items []T, root string, c *codec[T]) ([]byte, error) {
	w := &writer{path: []string{root}}
	if err := writeList(w, items, c); err != nil {
		return nil, err
	}
	return w.b, nil
}
