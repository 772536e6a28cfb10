//promptkit:allow-inline the template engine's lexer: its subject is template syntax
package manager

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// syntaxError is a parse problem at a position; the loader turns it into an
// *Error with the template's name and path.
type syntaxError struct {
	p    pos
	kind error // ErrTemplate or ErrUnsupported
	msg  string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.p.line, e.p.col, e.msg) }

func errAt(p pos, format string, args ...any) *syntaxError {
	return &syntaxError{p: p, kind: ErrTemplate, msg: fmt.Sprintf(format, args...)}
}

// positions maps byte offsets of one source to line and rune column.
type positions struct {
	src        string
	lineStarts []int
	// the last position computed (lastLine 1-based, 0 for none), to
	// count on from (see at)
	lastLine, lastOff, lastCol int
}

func newPositions(src string) *positions {
	ls := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			ls = append(ls, i+1)
		}
	}
	return &positions{src: src, lineStarts: ls}
}

func (ps *positions) at(off int) pos {
	line := sort.Search(len(ps.lineStarts), func(i int) bool { return ps.lineStarts[i] > off }) - 1
	start := ps.lineStarts[line]
	if off > len(ps.src) {
		off = len(ps.src)
	}
	// The lexer asks for nearby offsets, mostly in increasing order: count
	// runes from the last answer when it is on the same line, so a very
	// long line costs linear time, not quadratic.
	var col int
	switch {
	case ps.lastLine == line+1 && ps.lastOff <= off:
		col = ps.lastCol + utf8.RuneCountInString(ps.src[ps.lastOff:off])
	case ps.lastLine == line+1 && off-start > ps.lastOff-off:
		col = ps.lastCol - utf8.RuneCountInString(ps.src[off:ps.lastOff])
	default:
		col = utf8.RuneCountInString(ps.src[start:off]) + 1
	}
	ps.lastLine, ps.lastOff, ps.lastCol = line+1, off, col
	return pos{line: line + 1, col: col}
}

// A segment is one piece of the source: text, an output tag or a statement tag.
type segKind int

const (
	segText segKind = iota
	segOutput
	segStmt
)

type segment struct {
	kind segKind
	p    pos
	text string  // segText: the text, whitespace control already applied
	toks []token // segOutput, segStmt: the tokens inside the delimiters
	end  pos     // position just after the closing delimiter
}

type tokKind int

const (
	tokName tokKind = iota
	tokString
	tokInt
	tokFloat
	tokOp
	tokEOF
)

type token struct {
	kind tokKind
	p    pos
	s    string // name, operator or decoded string
	i    int64
	f    float64
}

func (t token) String() string {
	switch t.kind {
	case tokString:
		return strconv.Quote(t.s)
	case tokInt:
		return strconv.FormatInt(t.i, 10)
	case tokFloat:
		return strconv.FormatFloat(t.f, 'g', -1, 64)
	case tokEOF:
		return "end of tag"
	}
	return t.s
}

// scan splits Jinja source into segments, applying whitespace control
// ({%- -%} {{- -}} {#- -#}), dropping comments, keeping {% raw %} verbatim
// and dropping one trailing newline at the end, as Jinja does by default.
func scan(src string) ([]segment, error) {
	ps := newPositions(src)
	var segs []segment
	i := 0
	lstripNext := false
	addText := func(text string, off int) {
		if lstripNext {
			trimmed := strings.TrimLeft(text, " \t\r\n")
			off += len(text) - len(trimmed)
			text = trimmed
			lstripNext = false
		}
		if text != "" {
			segs = append(segs, segment{kind: segText, p: ps.at(off), text: text})
		}
	}
	rstripPrev := func() {
		if n := len(segs); n > 0 && segs[n-1].kind == segText {
			segs[n-1].text = strings.TrimRight(segs[n-1].text, " \t\r\n")
			if segs[n-1].text == "" {
				segs = segs[:n-1]
			}
		}
	}
	for i < len(src) {
		j := nextDelim(src, i)
		if j < 0 {
			addText(src[i:], i)
			break
		}
		addText(src[i:j], i)
		open := src[j : j+2]
		start := j
		j += 2
		if j < len(src) && src[j] == '-' {
			rstripPrev()
			j++
		} else if j < len(src) && src[j] == '+' && open == "{%" {
			j++
		}
		switch open {
		case "{#":
			k := strings.Index(src[j:], "#}")
			if k < 0 {
				return nil, errAt(ps.at(start), "unclosed comment: missing \"#}\"")
			}
			end := j + k
			if end > j && src[end-1] == '-' {
				lstripNext = true
			}
			i = end + 2
			continue
		case "{{", "{%":
			closer := "}}"
			if open == "{%" {
				closer = "%}"
			}
			toks, end, trimAfter, err := lexTag(src, j, closer, ps)
			if err != nil {
				return nil, err
			}
			kind := segOutput
			if open == "{%" {
				kind = segStmt
			}
			seg := segment{kind: kind, p: ps.at(start), toks: toks, end: ps.at(end)}
			i = end
			lstripNext = trimAfter
			// {% raw %}: everything up to {% endraw %} is text.
			if kind == segStmt && len(toks) == 2 && toks[0].kind == tokName && toks[0].s == "raw" {
				body, after, stripBefore, stripAfter, err := scanRaw(src, i, ps)
				if err != nil {
					return nil, errAt(seg.p, "%v", err)
				}
				if lstripNext {
					body = strings.TrimLeft(body, " \t\r\n")
					lstripNext = false
				}
				if stripBefore {
					body = strings.TrimRight(body, " \t\r\n")
				}
				if body != "" {
					segs = append(segs, segment{kind: segText, p: ps.at(i), text: body})
				}
				i = after
				lstripNext = stripAfter
				continue
			}
			segs = append(segs, seg)
		}
	}
	// Jinja drops a single trailing newline of the template.
	if n := len(segs); n > 0 && segs[n-1].kind == segText && strings.HasSuffix(src, "\n") {
		t := segs[n-1].text
		switch {
		case strings.HasSuffix(t, "\r\n"):
			segs[n-1].text = t[:len(t)-2]
		case strings.HasSuffix(t, "\n"):
			segs[n-1].text = t[:len(t)-1]
		}
		if segs[n-1].text == "" {
			segs = segs[:n-1]
		}
	}
	return segs, nil
}

// nextDelim finds the next "{{", "{%" or "{#" at or after i.
func nextDelim(src string, i int) int {
	for {
		k := strings.IndexByte(src[i:], '{')
		if k < 0 || i+k+1 >= len(src) {
			return -1
		}
		c := src[i+k+1]
		if c == '{' || c == '%' || c == '#' {
			return i + k
		}
		i += k + 1
	}
}

// scanRaw finds the {% endraw %} that closes a raw block starting at i.
func scanRaw(src string, i int, ps *positions) (body string, after int, stripBefore, stripAfter bool, err error) {
	for k := i; ; {
		j := strings.Index(src[k:], "{%")
		if j < 0 {
			return "", 0, false, false, fmt.Errorf("unclosed {%% raw %%}: missing {%% endraw %%}")
		}
		j += k
		p := j + 2
		sb := false
		if p < len(src) && (src[p] == '-' || src[p] == '+') {
			sb = src[p] == '-'
			p++
		}
		rest := strings.TrimLeft(src[p:], " \t\r\n")
		if strings.HasPrefix(rest, "endraw") {
			q := len(src) - len(rest) + len("endraw")
			rest2 := strings.TrimLeft(src[q:], " \t\r\n")
			q = len(src) - len(rest2)
			sa := false
			if strings.HasPrefix(rest2, "-%}") {
				sa = true
				q += 3
			} else if strings.HasPrefix(rest2, "%}") {
				q += 2
			} else {
				k = j + 2
				continue
			}
			return src[i:j], q, sb, sa, nil
		}
		k = j + 2
	}
}

// lexTag tokenizes the inside of a tag starting at i up to closer. It
// returns the tokens, the offset after the closer and whether the closer
// asked to strip whitespace after it.
func lexTag(src string, i int, closer string, ps *positions) ([]token, int, bool, error) {
	var toks []token
	depth := 0 // brackets: a "}}" inside a dict literal does not close the tag
	for {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= len(src) {
			return nil, 0, false, errAt(ps.at(i), "unclosed tag: missing %q", closer)
		}
		if depth == 0 {
			if strings.HasPrefix(src[i:], "-"+closer) {
				return append(toks, token{kind: tokEOF, p: ps.at(i)}), i + 3, true, nil
			}
			if strings.HasPrefix(src[i:], closer) {
				return append(toks, token{kind: tokEOF, p: ps.at(i)}), i + 2, false, nil
			}
		}
		p := ps.at(i)
		c := src[i]
		switch {
		case c == '_' || isASCIILetter(c):
			j := i + 1
			for j < len(src) && (src[j] == '_' || isASCIILetter(src[j]) || isDigit(src[j])) {
				j++
			}
			toks = append(toks, token{kind: tokName, p: p, s: src[i:j]})
			i = j
		case isDigit(c):
			j := i
			for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
				j++
			}
			isFloat := false
			if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
				isFloat = true
				j++
				for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && isDigit(src[k]) {
					isFloat = true
					j = k
					for j < len(src) && isDigit(src[j]) {
						j++
					}
				}
			}
			lit := strings.ReplaceAll(src[i:j], "_", "")
			if isFloat {
				f, err := strconv.ParseFloat(lit, 64)
				if err != nil {
					return nil, 0, false, errAt(p, "bad number %q", src[i:j])
				}
				toks = append(toks, token{kind: tokFloat, p: p, f: f})
			} else {
				n, err := strconv.ParseInt(lit, 10, 64)
				if err != nil {
					return nil, 0, false, errAt(p, "bad number %q", src[i:j])
				}
				toks = append(toks, token{kind: tokInt, p: p, i: n})
			}
			i = j
		case c == '"' || c == '\'':
			s, j, err := lexString(src, i)
			if err != nil {
				return nil, 0, false, errAt(p, "%v", err)
			}
			toks = append(toks, token{kind: tokString, p: p, s: s})
			i = j
		default:
			op := ""
			for _, cand := range []string{"//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ".", ":", "|", "="} {
				if strings.HasPrefix(src[i:], cand) {
					op = cand
					break
				}
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(src[i:])
				return nil, 0, false, errAt(p, "unexpected character %q in tag", r)
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth > 0 {
					depth--
				}
			}
			toks = append(toks, token{kind: tokOp, p: p, s: op})
			i += len(op)
		}
	}
}

func lexString(src string, i int) (string, int, error) {
	q := src[i]
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		c := src[j]
		switch {
		case c == q:
			return b.String(), j + 1, nil
		case c == '\\' && j+1 < len(src):
			j++
			switch e := src[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'u':
				if j+4 < len(src) {
					if n, err := strconv.ParseUint(src[j+1:j+5], 16, 32); err == nil {
						b.WriteRune(rune(n))
						j += 4
						break
					}
				}
				b.WriteString(`\u`)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			j++
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", 0, fmt.Errorf("unclosed string literal")
}

func isASCIILetter(c byte) bool { return c < utf8.RuneSelf && unicode.IsLetter(rune(c)) }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
