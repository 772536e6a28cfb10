package builders

import (
	"encoding/xml"
	"html"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzEscapeXML checks the escaper's two guarantees on arbitrary input:
// its output holds none of the five special characters raw, and unescaping
// it gives back exactly the input. For valid UTF-8 without characters XML
// forbids, Go's XML decoder reads the value back unchanged as element text
// and as a quoted attribute, and sees no element the value did not contain.
func FuzzEscapeXML(f *testing.F) {
	for _, s := range []string{
		"", "plain", "a & b", "&amp;", "&lt;already&gt;", "</note><note kind=\"forged\">",
		`" onclick="x`, "' x='", "<![CDATA[ ]]>", "]]>", "混合 <中文> & 'quotes'",
		"&#60;", "&#x3c;", "\x00\xff", "a\r\nb\tc",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := EscapeXML(s)
		require.False(t, strings.ContainsAny(out, `<>"'`), "raw special character in %q", out)
		// Every & starts one of the five entities the escaper writes.
		for i := strings.IndexByte(out, '&'); i >= 0; {
			rest := out[i:]
			ok := false
			for _, e := range []string{"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"} {
				if strings.HasPrefix(rest, e) {
					ok = true
				}
			}
			require.True(t, ok, "bare & at %d in %q", i, out)
			j := strings.IndexByte(rest[1:], '&')
			if j < 0 {
				break
			}
			i += j + 1
		}
		assert.Equal(t, s, html.UnescapeString(out), "html.UnescapeString round trip")
		if !strings.ContainsAny(s, "<>&\"'") {
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
		assert.Equal(t, s, got.Text)
		assert.Empty(t, got.Inner, "escaped text must not add elements")
	})
}

// xmlSafe reports whether s is text XML can carry as it is: valid UTF-8,
// only characters XML 1.0 allows, and no carriage returns or tabs/newlines
// in positions the decoder normalises (attribute values fold whitespace,
// element text turns \r\n into \n).
func xmlSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return false
		case r < 0x20, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError:
			return false
		}
	}
	return true
}
