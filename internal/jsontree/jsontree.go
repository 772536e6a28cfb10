// Package jsontree reads a JSON document into a tree of values that keep
// where they are in the text (byte offsets), so a loader that reads a file
// once names the line and column of every problem it finds — one a schema
// finds, a key twice in one object, a value a later check refuses — and
// can splice new text after a value without rewriting the file. Package
// fixture reads fixture files with it, and the manager index.json's call
// contracts and the files they name.
package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Node is one JSON value of a file, with where it is: the byte offsets of
// its first byte and one past its last.
type Node struct {
	Kind     byte // '{', '[', '"', '0' (number), 't' (true/false), 'n' (null)
	Off, End int
	Members  []Member    // an object's, in file order
	Items    []*Node     // an array's
	Str      string      // a string's value
	Num      json.Number // a number's
	Bool     bool        // a boolean's
}

// Member is one key of an object and its value.
type Member struct {
	Key    string
	KeyOff int // the offset of the key's opening quote
	Value  *Node
}

// Get returns the value of key in an object node, or nil (also for a nil
// node, so lookups chain).
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != '{' {
		return nil
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Text returns a string node's value; "" for a nil node.
func (n *Node) Text() string {
	if n == nil {
		return ""
	}
	return n.Str
}

// KeyOffset returns the offset of key in an object node (the node's own
// offset when it has no such key).
func (n *Node) KeyOffset(key string) int {
	for _, m := range n.Members {
		if m.Key == key {
			return m.KeyOff
		}
	}
	return n.Off
}

// Raw is the node's JSON text in data, the text it was parsed from.
func (n *Node) Raw(data []byte) []byte { return data[n.Off:n.End] }

// At follows an instance location of the schema library (object keys and
// array indexes as strings) from n, as far as it leads.
func (n *Node) At(loc []string) *Node {
	cur := n
	for _, tok := range loc {
		switch cur.Kind {
		case '{':
			next := cur.Get(tok)
			if next == nil {
				return cur
			}
			cur = next
		case '[':
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) {
				return cur
			}
			cur = cur.Items[i]
		default:
			return cur
		}
	}
	return cur
}

// Pointer returns the value the JSON pointer ptr (RFC 6901: "" is n
// itself, "/a/0" the first item of n's key a) names below n.
func (n *Node) Pointer(ptr string) (*Node, bool) {
	if ptr == "" {
		return n, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	cur := n
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur.Kind {
		case '{':
			if cur = cur.Get(tok); cur == nil {
				return nil, false
			}
		case '[':
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) || tok != strconv.Itoa(i) {
				return nil, false
			}
			cur = cur.Items[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// SyntaxError is a problem with the JSON text itself, at a byte offset.
type SyntaxError struct {
	Off int
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Parse reads one JSON value, and nothing after it, into nodes. A
// key twice in one object is an error: encoding/json would keep the last
// silently, and a key written twice is a mistake.
//
// Text that encoding/json finds valid (json.Valid, which allocates
// nothing) is read in one pass by hand (fast.go); anything else is read
// token by token by encoding/json's decoder, whose error, and offset, the
// caller gets. Both give the same tree for the same valid text
// (FuzzParse).
func Parse(data []byte) (*Node, error) {
	if json.Valid(data) {
		return parseValid(data)
	}
	return parseTokens(data)
}

// parseTokens is Parse through encoding/json's tokens.
func parseTokens(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &treeParser{data: data, dec: dec}
	n, err := p.value()
	if err != nil {
		return nil, p.positioned(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &SyntaxError{Off: p.start(), Msg: "unexpected data after the JSON value"}
	}
	return n, nil
}

type treeParser struct {
	data []byte
	dec  *json.Decoder
}

// start is the offset of the next token: the decoder's offset is just
// past the last one, before the whitespace and separators that follow it.
func (p *treeParser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (p *treeParser) positioned(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// The offset is at, or just before, the byte the decoder refused
		// (before the separator and space that precede it): point at it.
		off := min(max(int(se.Offset), 0), len(p.data))
		for off < len(p.data) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
			off++
		}
		return &SyntaxError{Off: off, Msg: "invalid JSON: " + se.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &SyntaxError{Off: len(p.data), Msg: "invalid JSON: unexpected end of the file"}
	}
	var te *SyntaxError
	if errors.As(err, &te) {
		return te
	}
	return &SyntaxError{Off: p.start(), Msg: "invalid JSON: " + err.Error()}
}

func (p *treeParser) value() (*Node, error) {
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &Node{Off: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.Kind = '{'
			seen := map[string]bool{}
			for p.dec.More() {
				koff := p.start()
				ktok, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				key := ktok.(string) // the decoder allows only strings here
				if seen[key] {
					return nil, &SyntaxError{Off: koff, Msg: fmt.Sprintf("key %q twice in one object", key)}
				}
				seen[key] = true
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.Members = append(n.Members, Member{Key: key, KeyOff: koff, Value: v})
			}
		case '[':
			n.Kind = '['
			for p.dec.More() {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, v)
			}
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.Kind, n.Str = '"', t
	case json.Number:
		n.Kind, n.Num = '0', t
	case bool:
		n.Kind, n.Bool = 't', t
	case nil:
		n.Kind = 'n'
	}
	n.End = int(p.dec.InputOffset())
	return n, nil
}
