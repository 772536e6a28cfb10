package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python's case operations on strings, as CPython implements them
// (Objects/unicodeobject.c): full case mappings (ß upper-cases to SS, ﬁ
// to FI, İ lower-cases to i̇), the final-sigma rule of lower (Σ at the end
// of a word is ς), and Unicode's Cased, Lowercase and Uppercase properties
// where they are wider than Go's letter categories (ª is lower case in
// Python). Go's unicode package gives the simple mappings; casing_tables.go
// holds, generated from Python, every character where Python's answer
// differs. Characters unknown to that Python follow Go.

// isCased is Unicode's Cased property, which str.title and the final-sigma
// rule use.
func isCased(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	if unicode.Is(casedAdd, r) {
		return true
	}
	return (unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)) && !unicode.Is(casedDel, r)
}

// isLowerChar and isUpperChar are Python's Py_UNICODE_ISLOWER and
// Py_UNICODE_ISUPPER (Unicode's Lowercase and Uppercase properties).
func isLowerChar(r rune) bool {
	return unicode.Is(lowerAdd, r) || unicode.IsLower(r) && !unicode.Is(lowerDel, r)
}

func isUpperChar(r rune) bool {
	return unicode.Is(upperAdd, r) || unicode.IsUpper(r) && !unicode.Is(upperDel, r)
}

func upperRune(b *strings.Builder, r rune) {
	if s, ok := upperFull[r]; ok {
		b.WriteString(s)
		return
	}
	b.WriteRune(unicode.ToUpper(r))
}

func titleRune(b *strings.Builder, r rune) {
	if s, ok := titleFull[r]; ok {
		b.WriteString(s)
		return
	}
	b.WriteRune(unicode.ToTitle(r))
}

// lowerAt lowers rs[i], which for Σ depends on the characters around it.
func lowerAt(b *strings.Builder, rs []rune, i int) {
	r := rs[i]
	if r == 'Σ' {
		if finalSigma(rs, i) {
			b.WriteRune('ς')
		} else {
			b.WriteRune('σ')
		}
		return
	}
	if s, ok := lowerFull[r]; ok {
		b.WriteString(s)
		return
	}
	b.WriteRune(unicode.ToLower(r))
}

// finalSigma is CPython's handle_capital_sigma: Σ is final when a cased
// character comes before it and none after it, case-ignorable characters
// skipped on both sides.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && unicode.Is(caseIgnorable, rs[j]) {
		j--
	}
	if j < 0 || !isCased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && unicode.Is(caseIgnorable, rs[j]) {
		j++
	}
	return j == len(rs) || !isCased(rs[j])
}

// mapRunes builds s mapped rune by rune, with an ASCII fast path.
func mapRunes(s string, ascii func(byte) byte, f func(b *strings.Builder, rs []rune, i int)) string {
	if isASCII(s) {
		// Unchanged, s itself; else one allocation, the result.
		i := 0
		for i < len(s) && ascii(s[i]) == s[i] {
			i++
		}
		if i == len(s) {
			return s
		}
		var b strings.Builder
		b.Grow(len(s))
		b.WriteString(s[:i])
		for ; i < len(s); i++ {
			b.WriteByte(ascii(s[i]))
		}
		return b.String()
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := range rs {
		f(&b, rs, i)
	}
	return b.String()
}

func asciiUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

// pyUpper is str.upper.
func pyUpper(s string) string {
	return mapRunes(s, asciiUpper, func(b *strings.Builder, rs []rune, i int) { upperRune(b, rs[i]) })
}

// pyLower is str.lower.
func pyLower(s string) string { return mapRunes(s, asciiLower, lowerAt) }

// pyCasefold is str.casefold.
func pyCasefold(s string) string {
	return mapRunes(s, asciiLower, func(b *strings.Builder, rs []rune, i int) {
		if f, ok := foldFull[rs[i]]; ok {
			b.WriteString(f)
			return
		}
		if s, ok := lowerFull[rs[i]]; ok {
			b.WriteString(s)
			return
		}
		b.WriteRune(unicode.ToLower(rs[i]))
	})
}

// pySwapcase is str.swapcase: upper case lowered, lower case upper-cased.
func pySwapcase(s string) string {
	swap := func(c byte) byte {
		if 'a' <= c && c <= 'z' {
			return asciiUpper(c)
		}
		return asciiLower(c)
	}
	return mapRunes(s, swap, func(b *strings.Builder, rs []rune, i int) {
		switch r := rs[i]; {
		case isUpperChar(r):
			lowerAt(b, rs, i)
		case isLowerChar(r):
			upperRune(b, r)
		default:
			b.WriteRune(r)
		}
	})
}

// pyTitle is str.title: a character after a cased one is lowered, any
// other is put in title case (so an apostrophe starts a new word).
func pyTitle(s string) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	prevCased := false
	for i, r := range rs {
		if prevCased {
			lowerAt(&b, rs, i)
		} else {
			titleRune(&b, r)
		}
		prevCased = isCased(r)
	}
	return b.String()
}

// pyCapitalize is str.capitalize: the first character in title case (ǆ
// becomes ǅ, since Python 3.8), the rest lowered.
func pyCapitalize(s string) string {
	if s == "" {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	titleRune(&b, rs[0])
	for i := 1; i < len(rs); i++ {
		lowerAt(&b, rs, i)
	}
	return b.String()
}

// pyIsLower is str.islower: no upper or title case character, and at
// least one lower case one.
func pyIsLower(s string) bool {
	lower := false
	for _, r := range s {
		if isUpperChar(r) || unicode.IsTitle(r) {
			return false
		}
		lower = lower || isLowerChar(r)
	}
	return lower
}

// pyIsUpper is str.isupper.
func pyIsUpper(s string) bool {
	upper := false
	for _, r := range s {
		if isLowerChar(r) || unicode.IsTitle(r) {
			return false
		}
		upper = upper || isUpperChar(r)
	}
	return upper
}

// pyIsTitle is str.istitle: upper and title case characters only after
// uncased ones, lower case ones only after cased ones, and at least one
// cased character.
func pyIsTitle(s string) bool {
	cased, prev := false, false
	for _, r := range s {
		switch {
		case isUpperChar(r) || unicode.IsTitle(r):
			if prev {
				return false
			}
			prev, cased = true, true
		case isLowerChar(r):
			if !prev {
				return false
			}
			prev, cased = true, true
		default:
			prev = false
		}
	}
	return cased
}

// The character classes of str.isspace, isdigit, isdecimal, isnumeric,
// isalpha and isprintable: Go's, corrected by the generated tables (Python
// counts U+001C–U+001F as white space, ² as a digit, 三 as numeric).
func prop(r rune, goProp func(rune) bool, add, del *unicode.RangeTable) bool {
	if goProp(r) {
		return r < utf8.RuneSelf || !unicode.Is(del, r)
	}
	return unicode.Is(add, r)
}

func pyIsSpace(r rune) bool     { return prop(r, unicode.IsSpace, spaceAdd, spaceDel) }
func pyIsDigit(r rune) bool     { return prop(r, unicode.IsDigit, digitAdd, digitDel) }
func pyIsDecimal(r rune) bool   { return prop(r, unicode.IsDigit, decimalAdd, decimalDel) }
func pyIsNumeric(r rune) bool   { return prop(r, unicode.IsNumber, numericAdd, numericDel) }
func pyIsAlpha(r rune) bool     { return prop(r, unicode.IsLetter, alphaAdd, alphaDel) }
func pyIsPrintable(r rune) bool { return prop(r, unicode.IsPrint, printableAdd, printableDel) }

// pyIsAlnum is str.isalnum for one character.
func pyIsAlnum(r rune) bool {
	return pyIsAlpha(r) || pyIsDecimal(r) || pyIsDigit(r) || pyIsNumeric(r)
}
