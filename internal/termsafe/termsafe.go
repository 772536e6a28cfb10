// Package termsafe makes text that a remote party wrote — a registry's
// error message, a tag it lists, an annotation someone pushed — safe to
// print on a terminal. A terminal obeys the control characters in what it
// prints: ESC starts sequences that move the cursor, rewrite the screen,
// retitle the window or, with OSC 52, write the clipboard; the C1 controls
// (U+0080–U+009F, CSI among them) do the same on terminals that honour
// them; a carriage return overwrites the line; bidirectional overrides
// and other format characters reorder or hide what is read. termsafe
// writes each of them as a visible escape (\x1b, \u009b, \u202e), so the
// text is shown whole and nothing in it acts.
//
// promptkit's CLI passes every line that may hold remote text through it
// (errors, pull, push, tag and history output), and package fleet its log
// attributes that quote a registry.
package termsafe

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// unsafe reports whether a terminal would act on r rather than show it:
// C0 controls and DEL, C1 controls, line and paragraph separators and
// every format character (bidi embeddings, overrides, isolates and marks,
// zero-width characters, the byte-order mark, tag characters).
func unsafe(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

// Line returns s with every character a terminal would act on escaped,
// line feeds and tabs too: s prints as one line, for a field of a table
// or a value after a label.
func Line(s string) string { return escape(s, false) }

// Text is Line but keeps line feeds and tabs, for a message of several
// lines (an error that lists problems one a line).
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	shown := func(r rune, n int) bool {
		if r == utf8.RuneError {
			return n > 1 // U+FFFD itself; a byte that is not UTF-8 is escaped
		}
		return !unsafe(r) || keepLines && (r == '\n' || r == '\t')
	}
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !shown(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case shown(r, n):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i]) // a raw 0x9b is CSI to a terminal that is not UTF-8
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// JSON rewrites encoded JSON so that it prints safely and decodes to the
// same values: encoding/json escapes the C0 controls but writes C1
// controls, line separators and format characters as they are; JSON
// writes them as \u escapes (a surrogate pair beyond U+FFFF). Outside
// strings JSON is ASCII, so only string contents change.
func JSON(b []byte) []byte {
	escaped := func(r rune) bool { return r >= 0x80 && unsafe(r) }
	if !bytes.ContainsFunc(b, escaped) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case !escaped(r):
			out.Write(b[:n])
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
		b = b[n:]
	}
	return out.Bytes()
}
