package builders

import (
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzEscapeXML checks the escaper's guarantees on arbitrary input:
//
//   - its output is valid UTF-8 and holds none of the five special
//     characters raw, and no character that EscapeXML escapes (controls,
//     format characters, the variation selectors supplement);
//   - every & in it starts one of the five entities or a numeric
//     reference &#xHEX; to a character that EscapeXML escapes;
//   - decoding those entities gives back exactly the input, with each byte
//     that is not valid UTF-8 read as U+FFFD;
//   - input with nothing to escape comes back unchanged;
//   - for input XML can carry, Go's XML decoder reads the value back
//     unchanged as element text and as a quoted attribute, and sees no
//     element the value did not contain.
func FuzzEscapeXML(f *testing.F) {
	for _, s := range []string{
		"", "plain", "a & b", "&amp;", "&lt;already&gt;", "</note><note kind=\"forged\">",
		`" onclick="x`, "' x='", "<![CDATA[ ]]>", "]]>", "混合 <中文> & 'quotes'",
		"&#60;", "&#x3c;", "\x00\xff", "a\r\nb\tc", "\u202eabc\u2066", "\x1b[2J\x7f\u0085",
		"hi\U000E0041\U000E007F", "字\U000E0100", "👨\u200d👩\u200d👧", "\ufeff\u00ad\u200b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := EscapeXML(s)
		require.True(t, utf8.ValidString(out), "invalid UTF-8 in %q", out)
		require.False(t, strings.ContainsAny(out, `<>"'`), "raw special character in %q", out)
		for _, r := range out {
			require.False(t, r < utf8.RuneSelf && asciiEscape[r] && r != '&' || r >= utf8.RuneSelf && invisible(r),
				"unescaped U+%04X in %q", r, out)
		}
		// Every & starts an entity the escaper writes.
		for _, m := range ampersand.FindAllStringIndex(out, -1) {
			ref := entity.FindString(out[m[0]:])
			require.NotEmpty(t, ref, "bare & at %d in %q", m[0], out)
			if strings.HasPrefix(ref, "&#x") {
				r, err := strconv.ParseUint(ref[3:len(ref)-1], 16, 32)
				require.NoError(t, err)
				require.True(t, r < utf8.RuneSelf && asciiEscape[r] || r >= utf8.RuneSelf && invisible(rune(r)),
					"%s escapes a character that needs no escaping", ref)
				require.Equal(t, strings.ToUpper(ref[3:]), ref[3:], "upper-case hexadecimal digits")
			}
		}
		assert.Equal(t, string([]rune(s)), unescape(out), "decoding gives back the input")
		if !needsEscape(s) {
			assert.Equal(t, s, out, "a string with nothing to escape is unchanged")
		}

		if !xmlSafe(s) {
			return // encoding/xml refuses or normalises such text whatever the escaping
		}
		doc := `<note kind="` + out + `">` + out + `</note>`
		var got struct {
			Kind  string `xml:"kind,attr"`
			Text  string `xml:",chardata"`
			Inner []struct {
				XMLName xml.Name
			} `xml:",any"`
		}
		require.NoError(t, xml.Unmarshal([]byte(doc), &got), doc)
		assert.Equal(t, s, got.Kind)
		assert.Equal(t, s, got.Text)
		assert.Empty(t, got.Inner, "escaped text must not add elements")
	})
}

var (
	ampersand = regexp.MustCompile(`&`)
	entity    = regexp.MustCompile(`^&(?:amp|lt|gt|quot|apos|#x[0-9A-F]{1,6});`)
	anyEntity = regexp.MustCompile(`&(?:amp|lt|gt|quot|apos|#x[0-9A-F]{1,6});`)
)

// unescape decodes the entities EscapeXML writes, and nothing else: it is
// the reader's side of the escaping, independent of the escaper's code.
func unescape(s string) string {
	return anyEntity.ReplaceAllStringFunc(s, func(e string) string {
		switch e {
		case "&amp;":
			return "&"
		case "&lt;":
			return "<"
		case "&gt;":
			return ">"
		case "&quot;":
			return `"`
		case "&apos;":
			return "'"
		}
		r, _ := strconv.ParseUint(e[3:len(e)-1], 16, 32)
		return string(rune(r))
	})
}

// needsEscape is the escaper's trigger, restated from its documentation.
func needsEscape(s string) bool {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return true
		case strings.ContainsRune(`&<>"'`, r), r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7F:
			return true
		case r >= utf8.RuneSelf && invisible(r):
			return true
		}
	}
	return false
}

// xmlSafe reports whether s is text XML 1.0 can carry as it is, even as a
// character reference: valid UTF-8, no C0 control (XML refuses them, even
// escaped), no tab, newline or carriage return (attribute values fold
// them, element text turns \r\n into \n), and no U+FFFE, U+FFFF.
func xmlSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r < 0x20, r == 0xFFFE, r == 0xFFFF:
			return false
		}
	}
	return true
}
