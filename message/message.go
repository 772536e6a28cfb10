// Package message is the chat message every part of promptkit speaks:
// manager renders templates into messages, rag assembles them, contextstack
// keeps a conversation's history in them. It is its own small package so a
// program can hold, build and marshal messages without importing the
// template engine.
//
// A Message marshals to the JSON shape chat APIs accept (OpenAI's and the
// many that copy it):
//
//	{"role": "system", "content": "text"}
//	{"role": "user", "content": [{"type": "text", "text": "…"}, {"type": "image_url", "image_url": {"url": "…"}}]}
package message

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The roles of chat messages. A template's chat blocks produce the first
// three; a tool message answers one tool call and is appended by the host.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// PartType is the kind of a message part. Its values are the "type"
// strings of chat APIs.
type PartType string

// The kinds of message parts.
const (
	PartText  PartType = "text"
	PartImage PartType = "image_url"
)

// Part is one piece of a message's content: text, or an image.
type Part struct {
	Type PartType
	Text string // the text of a PartText
	URL  string // the image of a PartImage: an http(s) URL or a data:image/…;base64, URL
}

// Message is one chat message. Parts holds its content in order: a
// message without images has at most one text part; {{ x | image }}
// splits the text around each image. Parts is nil for an empty message.
//
// Messages marshal to JSON in the shape chat APIs accept:
//
//	{"role": "system", "content": "text"}
//	{"role": "user", "content": [{"type": "text", "text": "…"}, {"type": "image_url", "image_url": {"url": "…"}}]}
//
// content is a string when the message is empty or is one text part, and
// a list of parts otherwise. Both forms unmarshal.
type Message struct {
	Role  string
	Parts []Part
	Name  string // the tool's name, for a RoleTool message; JSON "name", omitted when empty
}

// Text returns a message of one text part (none when text is empty).
func Text(role, text string) Message {
	m := Message{Role: role}
	if text != "" {
		m.Parts = []Part{{Type: PartText, Text: text}}
	}
	return m
}

// Text returns the message's text parts joined by newlines; images are
// left out.
func (m Message) Text() string {
	if len(m.Parts) == 1 && m.Parts[0].Type == PartText {
		return m.Parts[0].Text
	}
	var texts []string
	for _, p := range m.Parts {
		if p.Type == PartText {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

type messageJSON struct {
	Role    string          `json:"role"`
	Name    string          `json:"name,omitempty"`
	Content json.RawMessage `json:"content"`
}

// MarshalJSON writes {"role": …, "content": …}.
func (m Message) MarshalJSON() ([]byte, error) {
	var content any
	switch {
	case len(m.Parts) == 0:
		content = ""
	case len(m.Parts) == 1 && m.Parts[0].Type == PartText:
		content = m.Parts[0].Text
	default:
		content = m.Parts
	}
	c, err := marshalJSON(content)
	if err != nil {
		return nil, err
	}
	return marshalJSON(messageJSON{Role: m.Role, Name: m.Name, Content: c})
}

// UnmarshalJSON reads a message whose content is a string or a list of
// parts.
func (m *Message) UnmarshalJSON(data []byte) error {
	var j messageJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	out := Message{Role: j.Role, Name: j.Name}
	c := bytes.TrimSpace(j.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
	case c[0] == '"':
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return err
		}
		if s != "" {
			out.Parts = []Part{{Type: PartText, Text: s}}
		}
	default:
		if err := json.Unmarshal(c, &out.Parts); err != nil {
			return err
		}
	}
	*m = out
	return nil
}

type partJSON struct {
	Type     PartType      `json:"type"`
	Text     *string       `json:"text,omitempty"`
	ImageURL *imageURLJSON `json:"image_url,omitempty"`
}

type imageURLJSON struct {
	URL string `json:"url"`
}

// MarshalJSON writes {"type": "text", "text": …} or
// {"type": "image_url", "image_url": {"url": …}}.
func (p Part) MarshalJSON() ([]byte, error) {
	switch p.Type {
	case PartText:
		return marshalJSON(partJSON{Type: p.Type, Text: &p.Text})
	case PartImage:
		return marshalJSON(partJSON{Type: p.Type, ImageURL: &imageURLJSON{URL: p.URL}})
	}
	return nil, fmt.Errorf("message: unknown message part type %q", p.Type)
}

// UnmarshalJSON reads a text or image_url part.
func (p *Part) UnmarshalJSON(data []byte) error {
	var j partJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	switch {
	case j.Type == PartText && j.Text != nil:
		*p = Part{Type: PartText, Text: *j.Text}
	case j.Type == PartImage && j.ImageURL != nil:
		*p = Part{Type: PartImage, URL: j.ImageURL.URL}
	default:
		return fmt.Errorf("message: unsupported message part %s (want a text or image_url part)", data)
	}
	return nil
}

// marshalJSON is json.Marshal without HTML escaping: a prompt's "<", ">"
// and "&" stay readable. (An encoder that escapes, as json.Marshal does,
// still escapes them in its own output.)
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
