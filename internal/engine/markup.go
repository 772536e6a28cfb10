package engine

// Markup: the escaped strings of Jinja (markupsafe.Markup), which escape,
// forceescape, safe and tojson return even with autoescape off. A markup
// string prints as its text, but it is not a plain string to the
// operations Python applies to it: what is added to it, formatted into it
// or joined by it is escaped first (Markup("a&amp;") + "<" is
// "a&amp;&lt;"), the string methods Markup wraps return markup, and inside
// a list it prints as Markup('…'). The concatenation operator ~ makes
// plain strings, as Jinja's does without autoescape.

// escapeValue is markupsafe.escape: a markup string as it is, anything
// else printed and HTML-escaped.
func escapeValue(v Value) (Value, error) {
	if v.isMarkup() {
		return v, nil
	}
	s, err := str1(v)
	if err != nil {
		return Value{}, err
	}
	return markupValue(htmlEscape(s)), nil
}

// markupLike makes out markup when in is.
func markupLike(in Value, out Value) Value {
	if in.isMarkup() && out.k == String {
		out.n = 1
	}
	return out
}

// markupItems makes every string of a list or tuple markup (Markup.split,
// partition and their kind).
func markupItems(v Value) Value {
	sd, ok := v.ref.(*seqData)
	if !ok {
		return v
	}
	for i, it := range sd.items {
		if it.k == String {
			sd.items[i].n = 1
		}
	}
	return v
}

// markupConcat is a + b where one of them is markup: the other is escaped.
func markupConcat(a, b Value) (Value, error) {
	ea, err := escapeValue(a)
	if err != nil {
		return Value{}, err
	}
	eb, err := escapeValue(b)
	if err != nil {
		return Value{}, err
	}
	return markupValue(ea.s + eb.s), nil
}
