package engine

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

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
	s.open, s.start, s.first = true, len(st.out), len(s.parts)
}

// flush ends the current text part, trimmed of surrounding whitespace.
func (s *chatSink) flush(st *state) {
	text := st.out[s.start:]
	a := s.start + len(text) - len(bytes.TrimLeftFunc(text, unicode.IsSpace))
	b := s.start + len(bytes.TrimRightFunc(text, unicode.IsSpace))
	if b > a {
		s.parts = append(s.parts, sinkPart{a: a, b: b})
	}
	s.start = len(st.out)
}

func (s *chatSink) addImage(st *state, u string) error {
	if len(st.out)+s.nurl+len(u) > st.max {
		st.over = true
		return errOutput
	}
	s.nurl += len(u)
	s.flush(st)
	s.parts = append(s.parts, sinkPart{a: -1, b: len(s.urls)})
	s.urls = append(s.urls, u)
	return nil
}

// end closes the current message; role is one of ChatRoles (checked at
// load for a literal, before the block runs for an expression).
func (s *chatSink) end(st *state, role string) {
	s.flush(st)
	s.msgs = append(s.msgs, sinkMsg{role: roleIndex(role), first: s.first, end: len(s.parts)})
	s.open = false
}

// release empties the sink, keeping its slices' memory, and returns it
// to the pool. Nothing it held escapes: finish copies what it returns.
// A sink that grew past a few hundred parts is left to the collector,
// and the image URLs (they can be megabytes) are dropped.
func (s *chatSink) release() {
	if cap(s.parts) > 256 || cap(s.msgs) > 256 {
		return
	}
	clear(s.urls)
	*s = chatSink{msgs: s.msgs[:0], parts: s.parts[:0], urls: s.urls[:0]}
	sinkPool.Put(s)
}

// finish returns the messages, out being the render's whole output: text
// parts are substrings of it. The usual one message of one part takes one
// allocation.
func (s *chatSink) finish(out string) []message.Message {
	var msgs []message.Message
	var parts []message.Part
	if len(s.msgs) == 1 && len(s.parts) == 1 {
		one := new(struct {
			m [1]message.Message
			p [1]message.Part
		})
		msgs, parts = one.m[:], one.p[:]
	} else {
		msgs, parts = make([]message.Message, len(s.msgs)), make([]message.Part, len(s.parts))
	}
	for i, p := range s.parts {
		if p.a < 0 {
			parts[i] = message.Part{Type: message.PartImage, URL: s.urls[p.b]}
		} else {
			parts[i] = message.Part{Type: message.PartText, Text: out[p.a:p.b]}
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

// roleIndex is role's index in ChatRoles, or -1.
func roleIndex(role string) int { return slices.Index(ChatRoles, role) }

func validRole(r string) bool { return roleIndex(r) >= 0 }

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
