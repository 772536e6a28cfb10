package builders

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeXML makes s safe to put into a prompt's XML-like markup, both as
// the text of an element and as the value of a quoted attribute:
//
//   - &, <, >, " and ' become &amp;, &lt;, &gt;, &quot; and &apos;, so a
//     value can never close the tag around it, open a new one or end an
//     attribute early. Every & is escaped, including one that already
//     starts an entity: "&amp;" becomes "&amp;amp;".
//   - Characters that are invisible or that move other text become a
//     numeric character reference with upper-case hexadecimal digits
//     ("\u202e" becomes "&#x202E;"): NUL and the other C0 controls except
//     tab, line feed and carriage return; DEL; the C1 controls
//     U+0080–U+009F; and the Unicode format characters (category Cf: the
//     bidirectional embeddings, overrides and isolates U+202A–U+202E and
//     U+2066–U+2069, the marks U+200E, U+200F and U+061C, zero-width
//     space, word joiner, soft hyphen, the byte-order mark, the tag
//     characters U+E0000–U+E007F…), except the zero-width joiner and
//     non-joiner U+200D and U+200C, which emoji sequences and several
//     scripts need. The variation selectors U+E0100–U+E01EF, which can
//     carry hidden data after a visible character, are escaped too.
//   - A byte that is not valid UTF-8 becomes U+FFFD, so the output is
//     always valid UTF-8.
//
// Escaping, rather than dropping or replacing, keeps the value whole and
// visible: the model, a reviewer or a log reader sees that a control
// character was there and which one, nothing it hid or reordered stays
// hidden, no two words are joined by a removed character, and the result
// decodes back to exactly the input (for valid UTF-8), like the five
// entities. A string with nothing to escape is returned as is, without
// allocating.
func EscapeXML(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiEscape[c] {
				return escapeFrom(s, i)
			}
			i++
			continue
		}
		if plain3(s, i) {
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || invisible(r) {
			return escapeFrom(s, i)
		}
		i += n
	}
	return s
}

// plain3 reports whether s[i:] starts with a valid three-byte character
// in U+2080–U+FFFF that is not escaped (CJK, fullwidth punctuation, kana,
// Hangul, symbols…), so the common case of Chinese text skips decoding.
// Of the three-byte format characters it must leave to invisible, those
// at or above U+2080 are U+FEFF (EF BB BF) and U+FFF9–U+FFFB (EF BF B9–BB).
func plain3(s string, i int) bool {
	if i+2 >= len(s) {
		return false
	}
	c, c2, c3 := s[i], s[i+1], s[i+2]
	if c2&0xC0 != 0x80 || c3&0xC0 != 0x80 {
		return false
	}
	switch {
	case c >= 0xE3 && c <= 0xEC, c == 0xEE:
		return true
	case c == 0xE2: // U+2000–U+2FFF: the format characters are below U+2080
		return c2 >= 0x82
	case c == 0xED: // U+D000–U+D7FF; above are the surrogates
		return c2 < 0xA0
	case c == 0xEF:
		return !(c2 == 0xBB && c3 == 0xBF) && !(c2 == 0xBF && c3 >= 0xB9 && c3 <= 0xBB)
	}
	return false
}

// asciiEscape marks the ASCII bytes EscapeXML rewrites: the five XML
// specials, the C0 controls but tab, line feed and carriage return, and DEL.
var asciiEscape = func() (t [utf8.RuneSelf]bool) {
	for c := range 0x20 {
		t[c] = c != '\t' && c != '\n' && c != '\r'
	}
	for _, c := range `&<>"'` {
		t[c] = true
	}
	t[0x7F] = true
	return t
}()

// invisible reports whether r, a character above ASCII, is escaped: a C1
// control, a format character other than the joiners, or a variation
// selector of the supplement.
func invisible(r rune) bool {
	switch {
	case r <= 0x9F: // C1 controls (r >= 0x80 here)
		return true
	case r == 0x200C || r == 0x200D: // zero-width non-joiner and joiner
		return false
	case r >= 0xE0100 && r <= 0xE01EF: // variation selectors supplement
		return true
	case r >= 0x2070 && r < 0xFEFF: // CJK and most scripts: no format character
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

// escapeFrom escapes s, whose bytes before i need no escaping.
func escapeFrom(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if !asciiEscape[c] {
				b.WriteByte(c)
				continue
			}
			switch c {
			case '&':
				b.WriteString("&amp;")
			case '<':
				b.WriteString("&lt;")
			case '>':
				b.WriteString("&gt;")
			case '"':
				b.WriteString("&quot;")
			case '\'':
				b.WriteString("&apos;")
			default:
				writeCharRef(&b, rune(c))
			}
			continue
		}
		if plain3(s, i) {
			b.WriteString(s[i : i+3])
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case invisible(r):
			writeCharRef(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// writeCharRef writes r as &#xHEX; with upper-case digits.
func writeCharRef(b *strings.Builder, r rune) {
	const hex = "0123456789ABCDEF"
	var buf [8]byte
	j := len(buf)
	for {
		j--
		buf[j] = hex[r&0xF]
		r >>= 4
		if r == 0 {
			break
		}
	}
	b.WriteString("&#x")
	b.Write(buf[j:])
	b.WriteByte(';')
}
