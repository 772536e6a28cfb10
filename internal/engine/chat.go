package engine

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seed-e7d2830f/promptkit/message"
)

// Chat templates render to messages. Messages are collected structurally
// while the template runs: a chat block marks where its text starts and
// ends in the render's output, and {{ x | image }} adds an image part.
// Nothing is ever recovered by parsing rendered text, so no value —
// whatever it contains — can end a message, start one or change its role.

// chatSink collects the messages of one render. Text parts are recorded
// as spans of the output and get their text when the render is done, as
// substrings of the one output string.
type chatSink struct {
	msgs  []sinkMsg
	parts []sinkPart
	urls  []string // the image parts' URLs
	nurl  int      // bytes of image URLs, counted against the output limit
	open  bool     // a block is running (blocks do not nest)
	start int      // offset in the output where the current text part starts
	first int      // index in parts of the current message's first part
}

// The sink's records hold no pointers but urls, so recording a message
// costs no write barrier and a pooled sink is reset without clearing.
type (
	sinkMsg  struct{ role, first, end int } // role: an index in ChatRoles
	sinkPart struct{ a, b int }             // a text part's span of the output; a < 0: the image urls[b]
)

func (s *chatSink) begin(st *state) {
	s.open, s.start, s.first = true, st.out.Len(), len(s.parts)
}

// flush ends the current text part, trimmed of surrounding whitespace.
func (s *chatSink) flush(st *state) {
	a, b := trimmed(st.out.text()[s.start:])
	a, b = s.start+a, s.start+b
	if b > a {
		s.parts = append(s.parts, sinkPart{a: a, b: b})
	}
	s.start = st.out.Len()
}

func (s *chatSink) addImage(st *state, u string) error {
	if st.out.Len()+s.nurl+len(u) > st.max {
		st.over = true
		return errOutput
	}
	s.nurl += len(u)
	s.flush(st)
	s.parts = append(s.parts, sinkPart{a: -1, b: len(s.urls)})
	s.urls = append(s.urls, u)
	return nil
}

// end closes the current message; role is an index in ChatRoles (checked
// at load for a literal, before the block runs for an expression).
func (s *chatSink) end(st *state, role int) {
	s.flush(st)
	s.msgs = append(s.msgs, sinkMsg{role: role, first: s.first, end: len(s.parts)})
	s.open = false
}

// reset empties the sink, keeping its slices' memory for the next render
// of the state it belongs to. Nothing it held escapes: finish copies what
// it returns. Slices grown past a few hundred records are left to the
// collector, and the image URLs (they can be megabytes) are dropped.
func (s *chatSink) reset() {
	// Field by field, each slice resliced in place: that stores only its
	// length, where a whole new chatSink would store every pointer again.
	if cap(s.parts) > 256 || cap(s.msgs) > 256 {
		s.msgs, s.parts = nil, nil
	}
	s.msgs, s.parts = s.msgs[:0], s.parts[:0]
	if len(s.urls) > 0 {
		clear(s.urls)
		s.urls = s.urls[:0]
	}
	s.nurl, s.open, s.start, s.first = 0, false, 0, 0
}

// finish returns the messages, out being the render's whole output: text
// parts are substrings of it. Up to eight messages and eight parts take
// one allocation, holding both.
func (s *chatSink) finish(out string) []message.Message {
	msgs, parts := messageSlices(len(s.msgs), len(s.parts))
	// Field by field: the parts are fresh and zero, and each pointer
	// stored while the collector marks costs a write barrier.
	for i, p := range s.parts {
		if p.a < 0 {
			parts[i].Type, parts[i].URL = message.PartImage, s.urls[p.b]
		} else {
			parts[i].Type, parts[i].Text = message.PartText, out[p.a:p.b]
		}
	}
	for i, m := range s.msgs {
		msgs[i].Role = ChatRoles[m.role]
		if m.end > m.first {
			msgs[i].Parts = parts[m.first:m.end:m.end]
		}
	}
	return msgs
}

// messageSlices returns n messages and k parts. The messages and parts
// of a render are allocated together, in a block of a size class that
// holds both (a chat prompt has a few messages of one part each); only
// larger ones take two allocations.
func messageSlices(n, k int) ([]message.Message, []message.Part) {
	type (
		block1 struct {
			m [1]message.Message
			p [1]message.Part
		}
		block2 struct {
			m [2]message.Message
			p [2]message.Part
		}
		block4 struct {
			m [4]message.Message
			p [4]message.Part
		}
		block8 struct {
			m [8]message.Message
			p [8]message.Part
		}
	)
	switch c := max(n, k); {
	case c == 0:
		return []message.Message{}, nil
	case c <= 1:
		b := new(block1)
		return b.m[:n:n], b.p[:k:k]
	case c <= 2:
		b := new(block2)
		return b.m[:n:n], b.p[:k:k]
	case c <= 4:
		b := new(block4)
		return b.m[:n:n], b.p[:k:k]
	case c <= 8:
		b := new(block8)
		return b.m[:n:n], b.p[:k:k]
	}
	return make([]message.Message, n), make([]message.Part, k)
}

// trimmed returns the span of text without its leading and trailing
// white space (unicode.IsSpace). Outside ASCII, the spaces are few
// (spaceAt lists them), so the ends are matched as bytes, without
// decoding a rune: most messages begin and end with a letter, and in the
// default set's Chinese few of those are ASCII.
func trimmed(text string) (a, b int) {
	if text == "" {
		return 0, 0
	}
	if !maySpaceStart[text[0]] && !maySpaceEnd[text[len(text)-1]] {
		return 0, len(text) // the common case: a letter at each end
	}
	for a < len(text) {
		n := spaceAt(text[a:])
		if n == 0 {
			break
		}
		a += n
	}
	b = len(text)
	for b > a {
		n := spaceEnding(text[a:b])
		if n == 0 {
			break
		}
		b -= n
	}
	return a, b
}

// spaceAt returns the length of the white space rune text begins with,
// or 0. Outside ASCII, unicode.IsSpace holds for U+0085, U+00A0, U+1680,
// U+2000–U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 only.
func spaceAt(text string) int {
	if text == "" {
		return 0
	}
	c := text[0]
	if c < utf8.RuneSelf {
		if asciiSpace[c] {
			return 1
		}
		return 0
	}
	if len(text) >= 2 && c == 0xc2 && (text[1] == 0x85 || text[1] == 0xa0) {
		return 2
	}
	if len(text) >= 3 && isSpace3(c, text[1], text[2]) {
		return 3
	}
	return 0
}

// spaceEnding is spaceAt for the rune text ends with.
func spaceEnding(text string) int {
	n := len(text)
	if n == 0 {
		return 0
	}
	c := text[n-1]
	if c < utf8.RuneSelf {
		if asciiSpace[c] {
			return 1
		}
		return 0
	}
	if n >= 2 && text[n-2] == 0xc2 && (c == 0x85 || c == 0xa0) {
		return 2
	}
	if n >= 3 && isSpace3(text[n-3], text[n-2], c) {
		return 3
	}
	return 0
}

// isSpace3 reports whether the three bytes encode a white space rune.
func isSpace3(a, b, c byte) bool {
	switch a {
	case 0xe1: // U+1680
		return b == 0x9a && c == 0x80
	case 0xe2:
		switch b {
		case 0x80: // U+2000–U+200A, U+2028, U+2029, U+202F
			return c >= 0x80 && (c <= 0x8a || c == 0xa8 || c == 0xa9 || c == 0xaf)
		case 0x81: // U+205F
			return c == 0x9f
		}
	case 0xe3: // U+3000
		return b == 0x80 && c == 0x80
	}
	return false
}

// asciiSpace is unicode.IsSpace for ASCII.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// maySpaceStart holds the bytes a white space rune can begin with, and
// maySpaceEnd those it can end with (see spaceAt): text whose first byte
// is not in the one and last byte not in the other has nothing to trim.
var maySpaceStart, maySpaceEnd = func() (start, end [256]bool) {
	for c, sp := range asciiSpace {
		start[c], end[c] = sp, sp
	}
	start[0xc2], start[0xe1], start[0xe2], start[0xe3] = true, true, true, true
	for c := 0x80; c <= 0x8a; c++ { // U+1680, U+2000–U+200A, U+3000
		end[c] = true
	}
	for _, c := range []byte{0x85, 0xa0, 0xa8, 0xa9, 0xaf, 0x9f} {
		end[c] = true
	}
	return start, end
}()

// roleIndex is role's index in ChatRoles, or -1.
func roleIndex(role string) int { return slices.Index(ChatRoles, role) }

// allowedRole reports whether role is one of a chat block's allow= roles:
// a role that is not a literal comes from a value, and may only be one
// of those (the front end refuses such a block without allow=).
func allowedRole(allow []string, role string) bool { return slices.Contains(allow, role) }

// imageURL turns the value of {{ x | image }} into an image part's URL:
// an http(s) URL, a data:image/…;base64, URL, or raw bytes of a PNG,
// JPEG, GIF or WebP image (which becomes a data URL). It never reads a
// file: a string that is neither kind of URL is an error.
func imageURL(v Value) (string, error) {
	switch {
	case v.k == String:
		return imageString(v.s)
	case v.k == Object:
		if b, ok := v.ref.(hostBytes); ok {
			mime := sniffImage(b)
			if mime == "" {
				return "", fmt.Errorf("image: the %d bytes are not a PNG, JPEG, GIF or WebP image", len(b))
			}
			return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b), nil
		}
	}
	return "", fmt.Errorf("image: want an http(s) URL, a data:image/…;base64, URL or bytes, not %s", typeName(v))
}

func imageString(s string) (string, error) {
	lower := strings.ToLower(s[:min(len(s), len("https://"))])
	switch {
	case strings.HasPrefix(lower, "https://"), strings.HasPrefix(lower, "http://"):
		u, err := url.Parse(s)
		if err != nil {
			if ue, ok := err.(*url.Error); ok {
				err = ue.Err
			}
			return "", fmt.Errorf("image: invalid URL %s: %v", quoteShort(s), err)
		}
		if u.Host == "" {
			return "", fmt.Errorf("image: URL %s has no host", quoteShort(s))
		}
		return s, nil
	case strings.HasPrefix(lower, "data:"):
		return dataURL(s)
	}
	return "", fmt.Errorf("image: %s is not an http(s) or data:image URL (promptkit never reads files; pass the image's bytes instead)", quoteShort(s))
}

// dataURL checks a data:image/<type>;base64,<payload> URL.
func dataURL(s string) (string, error) {
	head, payload, ok := strings.Cut(s, ",")
	if !ok {
		return "", fmt.Errorf("image: data URL %s has no comma", quoteShort(s))
	}
	mime, isB64 := strings.CutSuffix(strings.ToLower(head[len("data:"):]), ";base64")
	sub, isImage := strings.CutPrefix(mime, "image/")
	if !isImage || !isB64 || sub == "" || strings.ContainsFunc(sub, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '+' || r == '-')
	}) {
		return "", fmt.Errorf("image: data URL %s is not data:image/<type>;base64,…", quoteShort(s))
	}
	if _, err := base64.StdEncoding.DecodeString(payload); err != nil {
		return "", fmt.Errorf("image: data URL %s has invalid base64: %v", quoteShort(s), err)
	}
	return s, nil
}

// sniffImage returns the MIME type of an image by its signature, or "".
func sniffImage(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}
