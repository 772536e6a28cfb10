package tokens

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A tokenizer.json is mostly its vocabulary (an object of 100,000 to
// 260,000 strings to ids) and its merges (as many pairs). encoding/json
// reads them through reflection, one map assignment and one interface at
// a time, in seconds; these two readers take the same JSON in a fraction
// of that. Only strings with a backslash go through encoding/json.

// vocabJSON is model.vocab: token → id.
type vocabJSON map[string]int32

// mergesJSON is model.merges, each "a b" or ["a", "b"], as pairs; a
// string that is not two tokens around one space is kept as [s, ""] with
// ok false, for bpe to report with its index.
type mergesJSON []mergePair

type mergePair struct {
	l, r string
	ok   bool
}

var errJSON = errors.New("malformed")

type jsonReader struct {
	b []byte
	i int
}

func (p *jsonReader) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\n' || p.b[p.i] == '\r' || p.b[p.i] == '\t') {
		p.i++
	}
}

func (p *jsonReader) eat(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonReader) str() (string, error) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", fmt.Errorf("%w: want a string at byte %d", errJSON, p.i)
	}
	start := p.i + 1
	escaped := false
	for j := start; j < len(p.b); j++ {
		switch p.b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			p.i = j + 1
			if !escaped {
				return string(p.b[start:j]), nil
			}
			var s string
			if err := json.Unmarshal(p.b[start-1:j+1], &s); err != nil {
				return "", err
			}
			return s, nil
		}
	}
	return "", fmt.Errorf("%w: unterminated string at byte %d", errJSON, start-1)
}

func (p *jsonReader) int32() (int32, error) {
	p.ws()
	j := p.i
	if j < len(p.b) && p.b[j] == '-' {
		j++
	}
	for j < len(p.b) && '0' <= p.b[j] && p.b[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(string(p.b[p.i:j]), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: want an id at byte %d", errJSON, p.i)
	}
	p.i = j
	return int32(n), nil
}

func (v *vocabJSON) UnmarshalJSON(b []byte) error {
	p := &jsonReader{b: b}
	m := make(vocabJSON, len(b)/20)
	if !p.eat('{') {
		return fmt.Errorf("%w: model.vocab is not an object", errJSON)
	}
	if !p.eat('}') {
		for {
			k, err := p.str()
			if err != nil {
				return err
			}
			if !p.eat(':') {
				return fmt.Errorf("%w: want ':' at byte %d", errJSON, p.i)
			}
			id, err := p.int32()
			if err != nil {
				return err
			}
			m[k] = id
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				break
			}
			return fmt.Errorf("%w: want ',' or '}' at byte %d", errJSON, p.i)
		}
	}
	*v = m
	return nil
}

func (ms *mergesJSON) UnmarshalJSON(b []byte) error {
	p := &jsonReader{b: b}
	out := make(mergesJSON, 0, len(b)/12)
	if !p.eat('[') {
		return fmt.Errorf("%w: model.merges is not a list", errJSON)
	}
	if !p.eat(']') {
		for {
			var mp mergePair
			if p.eat('[') {
				l, err := p.str()
				if err != nil {
					return err
				}
				if !p.eat(',') {
					return fmt.Errorf("%w: a merge is not a pair at byte %d", errJSON, p.i)
				}
				r, err := p.str()
				if err != nil {
					return err
				}
				if !p.eat(']') {
					return fmt.Errorf("%w: a merge is not a pair at byte %d", errJSON, p.i)
				}
				mp = mergePair{l, r, true}
			} else {
				s, err := p.str()
				if err != nil {
					return err
				}
				l, r, ok := strings.Cut(s, " ")
				mp = mergePair{l, r, ok && !strings.Contains(r, " ")}
				if !mp.ok {
					mp.l = s
				}
			}
			out = append(out, mp)
			if p.eat(',') {
				continue
			}
			if p.eat(']') {
				break
			}
			return fmt.Errorf("%w: want ',' or ']' at byte %d", errJSON, p.i)
		}
	}
	*ms = out
	return nil
}
