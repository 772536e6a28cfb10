package builders

import "strings"

// xmlEscaper replaces the five characters that are special in XML.
var xmlEscaper = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&quot;",
	"'", "&apos;",
)

// EscapeXML escapes &, <, >, " and ' so that s is safe both as the text of
// an XML-like element and as the value of a quoted attribute: a value can
// never close the tag around it, open a new one or end an attribute early.
//
// Every & is escaped, including one that already starts an entity: "&amp;"
// becomes "&amp;amp;", so the model reads exactly the text that was passed.
// A string with nothing to escape is returned as is, without allocating.
func EscapeXML(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&', '<', '>', '"', '\'':
			return xmlEscaper.Replace(s)
		}
	}
	return s
}
