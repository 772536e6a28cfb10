package engine

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
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
	msgs   []message.Message
	ranges [][2]int // each message's parts: parts[first:end]
	parts  []message.Part
	spans  []span // the text parts' text: spans of the output
	urls   int    // bytes of image URLs, counted against the output limit
	open   bool   // a block is running (blocks do not nest)
	start  int    // offset in the output where the current text part starts
	first  int    // index in parts of the current message's first part
}

type span struct{ part, a, b int }

func (s *chatSink) begin(st *state) {
	s.open, s.start, s.first = true, len(st.out), len(s.parts)
}

// flush ends the current text part, trimmed of surrounding whitespace.
func (s *chatSink) flush(st *state) {
	text := st.out[s.start:]
	a := s.start + len(text) - len(bytes.TrimLeftFunc(text, unicode.IsSpace))
	b := s.start + len(bytes.TrimRightFunc(text, unicode.IsSpace))
	if b > a {
		s.spans = append(s.spans, span{part: len(s.parts), a: a, b: b})
		s.parts = append(s.parts, message.Part{Type: message.PartText})
	}
	s.start = len(st.out)
}

func (s *chatSink) addImage(st *state, u string) error {
	if len(st.out)+s.urls+len(u) > st.max {
		st.over = true
		return errOutput
	}
	s.urls += len(u)
	s.flush(st)
	s.parts = append(s.parts, message.Part{Type: message.PartImage, URL: u})
	return nil
}

func (s *chatSink) end(st *state, role string) {
	s.flush(st)
	s.msgs = append(s.msgs, message.Message{Role: role})
	s.ranges = append(s.ranges, [2]int{s.first, len(s.parts)})
	s.open = false
}

// finish returns the messages, out being the render's whole output.
func (s *chatSink) finish(out string) []message.Message {
	parts := make([]message.Part, len(s.parts))
	copy(parts, s.parts)
	for _, sp := range s.spans {
		parts[sp.part].Text = out[sp.a:sp.b]
	}
	msgs := make([]message.Message, len(s.msgs))
	copy(msgs, s.msgs)
	for i, r := range s.ranges {
		if r[1] > r[0] {
			msgs[i].Parts = parts[r[0]:r[1]:r[1]]
		}
	}
	return msgs
}

func validRole(r string) bool {
	for _, x := range ChatRoles {
		if r == x {
			return true
		}
	}
	return false
}

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
