//promptkit:allow-inline the Jinja lexer: its subject is template syntax
package jinja

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The lexer is a state machine in the manner of text/template/parse: each
// state function lexes one kind of thing and returns the next state.
// Unlike text/template's, it runs to completion into a slice (the parser
// looks ahead freely) and applies Jinja's whitespace rules itself, so the
// parser sees text exactly as Jinja would print it.

type itemType int

const (
	itemEOF        itemType = iota
	itemText                // template text, whitespace control applied
	itemVarBegin            // {{
	itemVarEnd              // }}
	itemBlockBegin          // {%
	itemBlockEnd            // %}
	itemName                // an identifier (keywords are names too)
	itemString              // a string literal; val is its decoded value
	itemInt                 // an integer literal; val is its text, underscores removed
	itemFloat               // a float literal; val is its text, underscores removed
	itemOp                  // an operator or punctuation
	itemError               // where a tag failed to lex; the lexer reports the problem
)

type item struct {
	typ itemType
	pos Pos
	val string
}

func (i item) String() string {
	switch i.typ {
	case itemEOF:
		return "end of template"
	case itemVarEnd, itemBlockEnd:
		return "end of tag"
	case itemString:
		return quote(i.val)
	case itemText:
		return "text"
	}
	return i.val
}

// Options are the Jinja environment settings that change how source is
// read. The zero value is Jinja's default environment.
type Options struct {
	TrimBlocks          bool // drop the first newline after a block tag or comment
	LStripBlocks        bool // strip spaces and tabs from a line's start up to a block tag or comment
	KeepTrailingNewline bool // keep a single trailing newline of the source
}

// Normalize returns src as Jinja reads it: "\r\n" and "\r" become "\n" (as
// Jinja's newline_sequence does), a leading UTF-8 byte-order mark is
// dropped, and, unless keepTrailingNewline, one trailing newline is dropped.
func Normalize(src string, keepTrailingNewline bool) string {
	src = strings.TrimPrefix(src, "\ufeff")
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	if !keepTrailingNewline {
		src = strings.TrimSuffix(src, "\n")
	}
	return src
}

type stateFn func(*lexer) stateFn

type lexer struct {
	src       string
	opt       Options
	pos       int
	items     []item
	lineStart bool  // what was consumed last ended a line (Jinja's line_starting)
	depth     int   // open brackets inside the current tag
	opens     []int // where they opened
	closer    string
	tagStart  int
	errs      ErrorList
}

// lex tokenizes normalized source. A tag that fails to lex is reported and
// ends in an itemError, then its closer, and lexing goes on after it, so
// one pass reports a problem in every tag; a problem that runs to the end
// of the source (an unclosed comment, tag or string) ends the items.
func lex(src string, opt Options) ([]item, ErrorList) {
	if !utf8.ValidString(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return nil, ErrorList{errInvalidUTF8(Pos(i))}
	}
	// About four items a tag (its delimiters, a name or two) and one of
	// text between tags; sized once, a large template's items are not
	// copied again and again as the slice grows.
	l := &lexer{src: src, opt: opt, lineStart: true, items: make([]item, 0, 4*strings.Count(src, "{")+16)}
	for state := lexText; state != nil; {
		state = state(l)
	}
	return l.items, l.errs
}

func (l *lexer) emit(t itemType, pos int, val string) {
	l.items = append(l.items, item{typ: t, pos: Pos(pos), val: val})
}

// failEOF records a problem that leaves nothing to lex: the items end
// (with an itemError when a tag is open).
func (l *lexer) failEOF(e *Error, inTag bool) stateFn {
	l.errs = append(l.errs, e)
	if inTag {
		l.emit(itemError, int(e.Pos), e.Msg)
	}
	l.emit(itemEOF, len(l.src), "")
	return nil
}

// failTag records a problem inside a tag and skips to the tag's next
// closer at or after from, which it emits, so the parser skips the tag as
// one it could not parse.
func (l *lexer) failTag(e *Error, from int) stateFn {
	l.errs = append(l.errs, e)
	l.emit(itemError, int(e.Pos), e.Msg)
	k := strings.Index(l.src[from:], l.closer)
	if k < 0 {
		l.emit(itemEOF, len(l.src), "")
		return nil
	}
	k += from
	strip := k > from && l.src[k-1] == '-'
	keep := k > from && l.src[k-1] == '+' && l.closer == "%}"
	if l.closer == "}}" {
		l.emit(itemVarEnd, k, "}}")
	} else {
		l.emit(itemBlockEnd, k, "%}")
	}
	l.pos = k + 2
	l.afterTag(strip, keep, l.closer == "%}")
	return lexText
}

// nextDelim finds the next "{{", "{%" or "{#" at or after i.
func nextDelim(src string, i int) int {
	for {
		k := strings.IndexByte(src[i:], '{')
		if k < 0 || i+k+1 >= len(src) {
			return -1
		}
		if c := src[i+k+1]; c == '{' || c == '%' || c == '#' {
			return i + k
		}
		i += k + 1
	}
}

// lexText lexes text up to the next tag or comment, and the tag's opening.
func lexText(l *lexer) stateFn {
	start := l.pos
	j := nextDelim(l.src, l.pos)
	if j < 0 {
		if start < len(l.src) {
			l.emit(itemText, start, l.src[start:])
		}
		l.emit(itemEOF, len(l.src), "")
		return nil
	}
	text := l.src[start:j]
	open := l.src[j : j+2]
	sign := byte(0)
	if j+2 < len(l.src) && (l.src[j+2] == '-' || l.src[j+2] == '+') {
		sign = l.src[j+2]
	}
	isBlock := open != "{{"
	if open == "{%" {
		if end, ok := l.rawStart(j); ok {
			return l.raw(start, text, sign, j, end)
		}
	}
	text = l.stripBefore(text, sign, isBlock)
	if text != "" {
		l.emit(itemText, start, text)
	}
	l.tagStart = j
	l.pos = j + 2
	if sign != 0 {
		l.pos++
	}
	l.lineStart = false
	switch open {
	case "{#":
		return lexComment
	case "{{":
		l.emit(itemVarBegin, j, "{{")
		l.closer = "}}"
	default:
		l.emit(itemBlockBegin, j, "{%")
		l.closer = "%}"
	}
	l.depth, l.opens = 0, l.opens[:0]
	return lexInside
}

// stripBefore applies the whitespace control of a tag opening to the text
// before it: "-" strips all whitespace; otherwise lstrip_blocks strips a
// block tag's or comment's indentation when only whitespace precedes it on
// its line.
func (l *lexer) stripBefore(text string, sign byte, isBlock bool) string {
	switch {
	case sign == '-':
		return strings.TrimRightFunc(text, isSpace)
	case sign == '+' || !isBlock || !l.opt.LStripBlocks:
		return text
	}
	lpos := strings.LastIndexByte(text, '\n') + 1
	if (lpos > 0 || l.lineStart) && strings.TrimFunc(text[lpos:], isSpace) == "" {
		return text[:lpos]
	}
	return text
}

// afterTag applies a tag's closing to what follows: "-" consumes all
// whitespace; otherwise, for block tags and comments, trim_blocks consumes
// one newline. "+" on a block tag's closing keeps the newline.
func (l *lexer) afterTag(strip, keep, block bool) {
	switch {
	case strip:
		rest := l.src[l.pos:]
		n := len(rest) - len(strings.TrimLeftFunc(rest, isSpace))
		l.lineStart = n > 0 && rest[n-1] == '\n'
		l.pos += n
	case block && !keep && l.opt.TrimBlocks && l.pos < len(l.src) && l.src[l.pos] == '\n':
		l.pos++
		l.lineStart = true
	default:
		l.lineStart = false
	}
}

// lexComment skips a comment; Jinja comments may span lines.
func lexComment(l *lexer) stateFn {
	k := strings.Index(l.src[l.pos:], "#}")
	if k < 0 {
		return l.failEOF(errUnclosedComment(Pos(l.tagStart)), false)
	}
	end := l.pos + k
	strip := end > l.pos && l.src[end-1] == '-'
	keep := end > l.pos && l.src[end-1] == '+'
	l.pos = end + 2
	l.afterTag(strip, keep, true)
	return lexText
}

// rawStart reports whether a {% raw %} tag starts at j, and where it ends.
func (l *lexer) rawStart(j int) (int, bool) {
	i := j + 2
	if i < len(l.src) && (l.src[i] == '-' || l.src[i] == '+') {
		i++
	}
	i = skipSpace(l.src, i)
	if !strings.HasPrefix(l.src[i:], "raw") {
		return 0, false
	}
	i += 3
	if i < len(l.src) && isNameByte(l.src[i]) {
		return 0, false
	}
	i = skipSpace(l.src, i)
	switch {
	case strings.HasPrefix(l.src[i:], "-%}"):
		return i + 3, true
	case strings.HasPrefix(l.src[i:], "%}"):
		return i + 2, true
	}
	return 0, false
}

// raw lexes {% raw %}…{% endraw %}: the body is text, tags and all. Jinja
// applies the whitespace control of both tags, and trim_blocks after
// endraw but not after raw.
func (l *lexer) raw(textStart int, text string, sign byte, tagStart, bodyStart int) stateFn {
	text = l.stripBefore(text, sign, true)
	if text != "" {
		l.emit(itemText, textStart, text)
	}
	if l.src[bodyStart-3] == '-' {
		rest := l.src[bodyStart:]
		bodyStart += len(rest) - len(strings.TrimLeftFunc(rest, isSpace))
	}
	for k := bodyStart; ; {
		j := strings.Index(l.src[k:], "{%")
		if j < 0 {
			return l.failEOF(errUnclosedRaw(Pos(tagStart)), false)
		}
		j += k
		i := j + 2
		esign := byte(0)
		if i < len(l.src) && (l.src[i] == '-' || l.src[i] == '+') {
			esign = l.src[i]
			i++
		}
		i = skipSpace(l.src, i)
		if !strings.HasPrefix(l.src[i:], "endraw") || (i+6 < len(l.src) && isNameByte(l.src[i+6])) {
			k = j + 2
			continue
		}
		i = skipSpace(l.src, i+6)
		var strip, keep bool
		switch {
		case strings.HasPrefix(l.src[i:], "-%}"):
			strip, i = true, i+3
		case strings.HasPrefix(l.src[i:], "+%}"):
			keep, i = true, i+3
		case strings.HasPrefix(l.src[i:], "%}"):
			i += 2
		default:
			k = j + 2
			continue
		}
		l.lineStart = false
		body := l.stripBefore(l.src[bodyStart:j], esign, true)
		if body != "" {
			l.emit(itemText, bodyStart, body)
		}
		l.pos = i
		l.afterTag(strip, keep, true)
		return lexText
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isSpace(r) {
			break
		}
		i += n
	}
	return i
}

// lexInside lexes the inside of {{ }} or {% %} up to its closing.
func lexInside(l *lexer) stateFn {
	l.pos = skipSpace(l.src, l.pos)
	if l.pos >= len(l.src) {
		if len(l.opens) > 0 {
			// The closer was there, but inside a bracket: the bracket is
			// the mistake.
			o := l.opens[len(l.opens)-1]
			return l.failEOF(errUnclosedBracket(Pos(o), l.src[o], l.closer), true)
		}
		return l.failEOF(errUnclosedTag(Pos(l.tagStart), l.closer), true)
	}
	rest := l.src[l.pos:]
	if l.depth == 0 {
		var strip, keep bool
		n := 0
		switch {
		case strings.HasPrefix(rest, "-"+l.closer):
			strip, n = true, 3
		case l.closer == "%}" && strings.HasPrefix(rest, "+%}"):
			keep, n = true, 3
		case strings.HasPrefix(rest, l.closer):
			n = 2
		}
		if n > 0 {
			if l.closer == "}}" {
				l.emit(itemVarEnd, l.pos, "}}")
			} else {
				l.emit(itemBlockEnd, l.pos, "%}")
			}
			l.pos += n
			l.afterTag(strip, keep, l.closer == "%}")
			return lexText
		}
	}
	c := rest[0]
	switch {
	case c == '"' || c == '\'':
		return lexString
	case c >= '0' && c <= '9':
		return lexNumber
	case c == '_' || c >= utf8.RuneSelf || isASCIILetter(c):
		r, _ := utf8.DecodeRuneInString(rest)
		if isIdentStart(r) {
			return lexName
		}
		return l.failTag(errUnexpectedChar(Pos(l.pos), r), l.pos)
	}
	for _, op := range operators {
		if strings.HasPrefix(rest, op) {
			switch op {
			case "(", "[", "{":
				l.depth++
				l.opens = append(l.opens, l.pos)
			case ")", "]", "}":
				// As Jinja's lexer: a closing bracket must match the last
				// one opened.
				want := map[string]byte{")": '(', "]": '[', "}": '{'}[op]
				if l.depth == 0 {
					return l.failTag(errUnbalanced(Pos(l.pos), op, 0), l.pos)
				}
				if o := l.opens[len(l.opens)-1]; l.src[o] != want {
					return l.failTag(errUnbalanced(Pos(l.pos), op, l.src[o]), l.pos)
				}
				l.depth--
				l.opens = l.opens[:len(l.opens)-1]
			}
			l.emit(itemOp, l.pos, op)
			l.pos += len(op)
			return lexInside
		}
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return l.failTag(errUnexpectedChar(Pos(l.pos), r), l.pos)
}

// operators are Jinja's, longest first.
var operators = []string{"//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">",
	"(", ")", "[", "]", "{", "}", ",", ".", ":", "|", "=", ";"}

func lexName(l *lexer) stateFn {
	start := l.pos
	for l.pos < len(l.src) {
		r, n := utf8.DecodeRuneInString(l.src[l.pos:])
		if !isIdentContinue(r) {
			break
		}
		l.pos += n
	}
	l.emit(itemName, start, l.src[start:l.pos])
	return lexInside
}

// isIdentStart and isIdentContinue are Python's identifier characters
// (str.isidentifier, which Jinja's lexer checks names with): "_" and
// XID_Start, then XID_Continue — letters, letter numbers and the
// Other_ID_Start characters (℘, ℮, ᢅ), then also marks, digits,
// connector punctuation and the Other_ID_Continue characters (·), less
// pattern syntax and the few characters NFKC normalization would change
// into something else.
func isIdentStart(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || isASCIILetter(byte(r))
	}
	return isIDStart(r) && !unicode.Is(notXIDStart, r)
}

func isIdentContinue(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || isASCIILetter(byte(r)) || ('0' <= r && r <= '9')
	}
	return (isIDStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) &&
		!unicode.Is(unicode.Pattern_Syntax, r)) && !unicode.Is(notXIDContinue, r)
}

// isIDStart is Unicode's ID_Start.
func isIDStart(r rune) bool {
	return (unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)) &&
		!unicode.Is(unicode.Pattern_Syntax, r)
}

// notXIDStart and notXIDContinue are ID_Start and ID_Continue less
// XID_Start and XID_Continue (Unicode's DerivedCoreProperties.txt).
var (
	notXIDStart = &unicode.RangeTable{R16: []unicode.Range16{
		{0x037a, 0x037a, 1}, {0x0e33, 0x0eb3, 0x80}, {0x309b, 0x309c, 1}, {0xfc5e, 0xfc63, 1},
		{0xfdfa, 0xfdfb, 1}, {0xfe70, 0xfe7e, 2}, {0xff9e, 0xff9f, 1},
	}}
	notXIDContinue = &unicode.RangeTable{R16: []unicode.Range16{
		{0x037a, 0x037a, 1}, {0x309b, 0x309c, 1}, {0xfc5e, 0xfc63, 1},
		{0xfdfa, 0xfdfb, 1}, {0xfe70, 0xfe7e, 2},
	}}
)

// lexNumber lexes Jinja's integers (decimal, 0b, 0o, 0x, with "_"
// separators) and floats (a fraction, an exponent or both).
func lexNumber(l *lexer) stateFn {
	start := l.pos
	s := l.src
	digits := func(i int, ok func(byte) bool) int {
		for i < len(s) && (ok(s[i]) || (s[i] == '_' && i+1 < len(s) && ok(s[i+1]))) {
			i++
		}
		return i
	}
	if s[start] == '0' && start+1 < len(s) {
		var ok func(byte) bool
		switch s[start+1] | 0x20 {
		case 'b':
			ok = func(c byte) bool { return c == '0' || c == '1' }
		case 'o':
			ok = func(c byte) bool { return c >= '0' && c <= '7' }
		case 'x':
			ok = isHexDigit
		}
		if ok != nil {
			i := start + 2
			if i < len(s) && s[i] == '_' {
				i++
			}
			if end := digits(i, ok); end > i {
				l.pos = end
				l.emit(itemInt, start, strings.ReplaceAll(s[start:end], "_", ""))
				return lexInside
			}
		}
	}
	i := digits(start, isDigit)
	isFloat := false
	if start > 0 && s[start-1] == '.' {
		// As Jinja's float pattern ((?<!\.)…): no float starts right after
		// a dot, so items.0.1 is items[0][1].
		l.pos = i
		l.emit(itemInt, start, strings.ReplaceAll(s[start:i], "_", ""))
		return lexInside
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		isFloat = true
		i = digits(i+1, isDigit)
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		k := i + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			isFloat = true
			i = digits(k, isDigit)
		}
	}
	t := itemInt
	switch {
	case isFloat && !afterDot(s, start):
		t = itemFloat
	case s[start] == '0':
		// As Python's, a decimal integer does not start with 0 (but 00
		// and 0_0 are zero): 012 is 0 followed by 12, which the parser
		// refuses. A float may: 012.5 is 12.5.
		i = digits(start, func(c byte) bool { return c == '0' })
	case isFloat:
		// As Jinja's: after a dot a number is an integer, so x.0.1 is
		// x[0][1] (and x.1e5 is x[1] followed by e5).
		i = digits(start, isDigit)
	}
	l.pos = i
	l.emit(t, start, strings.ReplaceAll(s[start:i], "_", ""))
	return lexInside
}

// afterDot reports whether the number at i follows a "." directly.
func afterDot(s string, i int) bool { return i > 0 && s[i-1] == '.' }

// lexString lexes a quoted string and decodes its escapes as Python's
// unicode_escape codec does, which is what Jinja applies.
func lexString(l *lexer) stateFn {
	start := l.pos
	q := l.src[start]
	i := start + 1
	for i < len(l.src) && l.src[i] != q {
		if l.src[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(l.src) {
		return l.failTag(errUnclosedString(Pos(start)), start+1)
	}
	l.pos = i + 1
	v, bad := unescape(l.src[start+1 : i])
	if bad != nil {
		bad.Pos += Pos(start + 1)
		return l.failTag(bad, l.pos)
	}
	l.emit(itemString, start, v)
	return lexInside
}

// unescape decodes Python's backslash escapes; an unknown escape stays as
// written, as in Python. An escape Python refuses (\x4, \U00110000) is
// refused, positioned at its backslash in s.
func unescape(s string) (string, *Error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case '\n':
			// a backslash-newline is a line continuation
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := 0, 0
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			b.WriteRune(rune(v))
			i += n - 1
		case 'x', 'u', 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			v, ok := hexValue(s, i+1, width)
			if !ok || !utf8.ValidRune(rune(v)) {
				end := i + 1
				for end < len(s) && end < i+1+width && isHexDigit(s[end]) {
					end++
				}
				return "", errBadEscape(Pos(i-1), s[i-1:end], e, ok)
			}
			b.WriteRune(rune(v))
			i += width
		case 'N':
			return "", errNamedEscape(Pos(i - 1))
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String(), nil
}

func hexValue(s string, i, width int) (int, bool) {
	if i+width > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[i : i+width]) {
		switch {
		case isDigit(c):
			v = v*16 + int(c-'0')
		case isHexDigit(c):
			v = v*16 + int(c|0x20-'a') + 10
		default:
			return 0, false
		}
	}
	return v, true
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool    { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
func isNameByte(c byte) bool    { return c == '_' || isASCIILetter(c) || isDigit(c) }

// isSpace is Python's str.isspace, which Jinja's whitespace rules use: Go's
// unicode.IsSpace and the ASCII separators U+001C to U+001F.
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }
