package jsontree

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Reading valid JSON in one pass. The text is known to be one valid JSON
// value with only space around it, so the reader checks nothing but the
// keys of each object: it takes each node from a slab, each key from a
// table of the keys read so far (an index.json repeats a handful of keys
// over thousands of entries), each string without escapes as one copy of
// its bytes, and a string with escapes through encoding/json, so that it
// decodes exactly as the token reader does.

// smallObject is the number of members up to which a repeated key is
// found by comparing with each earlier one rather than through a map.
const smallObject = 16

type validParser struct {
	data []byte
	pos  int
	slab []Node
	keys map[string]string
}

func parseValid(data []byte) (*Node, error) {
	p := &validParser{data: data, keys: map[string]string{}}
	return p.value()
}

func (p *validParser) node() *Node {
	if len(p.slab) == 0 {
		p.slab = make([]Node, min(max(len(p.data)/32, 8), 1024))
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	return n
}

func (p *validParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

// value reads the value at pos, after any space.
func (p *validParser) value() (*Node, error) {
	p.space()
	n := p.node()
	n.Off = p.pos
	switch p.data[p.pos] {
	case '{':
		n.Kind = '{'
		if err := p.object(n); err != nil {
			return nil, err
		}
	case '[':
		n.Kind = '['
		p.pos++
		p.space()
		if p.data[p.pos] == ']' {
			p.pos++
			break
		}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
			p.space()
			c := p.data[p.pos]
			p.pos++ // , or ]
			if c == ']' {
				break
			}
		}
	case '"':
		n.Kind, n.Str = '"', p.str(false)
	case 't':
		n.Kind, n.Bool = 't', true
		p.pos += len("true")
	case 'f':
		n.Kind = 't'
		p.pos += len("false")
	case 'n':
		n.Kind = 'n'
		p.pos += len("null")
	default: // a number: -, digits, ., e, E, +
		start := p.pos
		for p.pos < len(p.data) {
			c := p.data[p.pos]
			if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				p.pos++
				continue
			}
			break
		}
		n.Kind, n.Num = '0', json.Number(p.data[start:p.pos])
	}
	n.End = p.pos
	return n, nil
}

func (p *validParser) object(n *Node) error {
	p.pos++ // {
	p.space()
	if p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	var index map[string]bool
	for {
		p.space()
		koff := p.pos
		key := p.str(true)
		if index == nil && len(n.Members) >= smallObject {
			index = make(map[string]bool, 2*smallObject)
			for _, m := range n.Members {
				index[m.Key] = true
			}
		}
		twice := false
		if index != nil {
			twice = index[key]
			index[key] = true
		} else {
			for _, m := range n.Members {
				if m.Key == key {
					twice = true
					break
				}
			}
		}
		if twice {
			return &SyntaxError{Off: koff, Msg: fmt.Sprintf("key %q twice in one object", key)}
		}
		p.space()
		p.pos++ // :
		v, err := p.value()
		if err != nil {
			return err
		}
		if n.Members == nil {
			n.Members = make([]Member, 0, 4)
		}
		n.Members = append(n.Members, Member{Key: key, KeyOff: koff, Value: v})
		p.space()
		c := p.data[p.pos]
		p.pos++ // , or }
		if c == '}' {
			return nil
		}
	}
}

// str reads the string at pos. A key is taken from the table of keys
// read so far, or added to it.
func (p *validParser) str(key bool) string {
	p.pos++ // "
	start := p.pos
	escaped, wide := false, false
	for {
		c := p.data[p.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			escaped = true
			p.pos += 2 // the escape's first byte cannot be "
			continue
		}
		wide = wide || c >= utf8.RuneSelf
		p.pos++
	}
	raw := p.data[start:p.pos]
	p.pos++ // "
	if escaped || wide && !utf8.Valid(raw) {
		// Decoded as encoding/json decodes it: escapes, and U+FFFD for
		// each invalid byte.
		var s string
		_ = json.Unmarshal(p.data[start-1:p.pos], &s) // valid: the text is
		return s
	}
	if key {
		if s, ok := p.keys[string(raw)]; ok {
			return s
		}
		s := string(raw)
		p.keys[s] = s
		return s
	}
	return string(raw)
}
