package engine

import (
	"fmt"
	"slices"
	"strings"
)

// urlize is Jinja2 3.1's jinja2.utils.urlize, as the urlize filter calls
// it: the text is escaped (unless it is markup), split at white space, and
// each word that is a URL (http://, https://, www., a bare domain of a
// common top-level domain, an IP address), an e-mail address (with or
// without mailto:) or starts with one of extraSchemes becomes a link,
// leading "(" and "<" and trailing ".,)>" and newlines left outside it
// unless they balance the brackets inside.
//
// Python's regular expressions match Unicode: \w is a letter, a digit or
// "_" as str.isalnum says, \d a decimal digit, \s white space as
// str.isspace says, and re.IGNORECASE folds "İ", "ı", "ſ" and the Kelvin
// sign onto ASCII letters. Go's are ASCII, so a word is matched through
// its classes: each rune beyond ASCII stands for the class Python puts it
// in (see urlClasses).
func urlize(text string, trimLimit *int64, rel, target string, extraSchemes []string, charge func(int) error) (string, error) {
	relAttr, targetAttr := "", ""
	if rel != "" {
		relAttr = ` rel="` + htmlEscape(rel) + `"`
	}
	if target != "" {
		targetAttr = ` target="` + htmlEscape(target) + `"`
	}
	trim := func(x string) string {
		if trimLimit == nil {
			return x
		}
		rs := []rune(x)
		if int64(len(rs)) <= *trimLimit {
			return x
		}
		return string(rs[:pyIndex(*trimLimit, len(rs))]) + "..."
	}
	var b strings.Builder
	for word, space := range pyWords(text) {
		b.WriteString(space)
		if word == "" {
			continue
		}
		head, middle, tail := splitURLPunct(word)
		link := ""
		switch m := urlClasses(middle); {
		case urlHTTP().MatchString(m):
			href := middle
			if !strings.HasPrefix(middle, "https://") && !strings.HasPrefix(middle, "http://") {
				href = "https://" + middle
			}
			link = `<a href="` + href + `"` + relAttr + targetAttr + ">" + trim(middle) + "</a>"
		case strings.HasPrefix(middle, "mailto:") && urlEmail().MatchString(m[len("mailto:"):]):
			link = `<a href="` + middle + `">` + middle[len("mailto:"):] + "</a>"
		case strings.Contains(middle, "@") && !strings.HasPrefix(middle, "www.") && !strings.Contains(middle, ":") && urlEmail().MatchString(m):
			link = `<a href="mailto:` + middle + `">` + middle + "</a>"
		default:
			for _, scheme := range extraSchemes {
				if middle != scheme && strings.HasPrefix(middle, scheme) {
					middle = `<a href="` + middle + `"` + relAttr + targetAttr + ">" + middle + "</a>"
				}
			}
		}
		if link != "" {
			middle = link
		}
		if err := charge(len(head) + len(middle) + len(tail)); err != nil {
			return "", err
		}
		b.WriteString(head)
		b.WriteString(middle)
		b.WriteString(tail)
	}
	return b.String(), nil
}

// pyIndex is Python's end of s[:n] for a string of length l.
func pyIndex(n int64, l int) int {
	switch {
	case n < 0:
		return max(0, l+int(max(n, -int64(l))))
	case n > int64(l):
		return l
	}
	return int(n)
}

// pyWords yields re.split(r"(\s+)", s) in pairs: each word with the white
// space before it (the first word's is "", and the last word may be "").
func pyWords(s string) func(yield func(word, space string) bool) {
	return func(yield func(string, string) bool) {
		start, spaceStart := 0, 0
		inSpace := false
		for i, r := range s {
			switch sp := pyIsSpace(r); {
			case sp && !inSpace:
				if !yield(s[start:i], s[spaceStart:start]) {
					return
				}
				spaceStart, inSpace = i, true
			case !sp && inSpace:
				start, inSpace = i, false
			}
		}
		if inSpace {
			start = len(s)
		}
		yield(s[start:], s[spaceStart:start])
	}
}

// splitURLPunct splits the punctuation urlize leaves outside a link off a
// word: leading "(", "<" and "&lt;", trailing ")", ">", ".", ",", newlines
// and "&gt;", except the closing brackets that balance opening ones in
// the middle.
func splitURLPunct(word string) (head, middle, tail string) {
	middle = word
	for {
		p := ""
		switch {
		case strings.HasPrefix(middle, "("), strings.HasPrefix(middle, "<"):
			p = middle[:1]
		case strings.HasPrefix(middle, "&lt;"):
			p = "&lt;"
		}
		if p == "" {
			break
		}
		head += p
		middle = middle[len(p):]
	}
	end := len(middle)
	for end > 0 {
		if strings.ContainsRune(")>.,\n", rune(middle[end-1])) {
			end--
		} else if strings.HasSuffix(middle[:end], "&gt;") {
			end -= len("&gt;")
		} else {
			break
		}
	}
	middle, tail = middle[:end], middle[end:]
	for _, pair := range [][2]string{{"(", ")"}, {"<", ">"}, {"&lt;", "&gt;"}} {
		open, close := pair[0], pair[1]
		n := strings.Count(middle, open)
		if n <= strings.Count(middle, close) {
			continue
		}
		for range min(n, strings.Count(tail, close)) {
			i := strings.Index(tail, close) + len(close)
			middle += tail[:i]
			tail = tail[i:]
		}
	}
	return head, middle, tail
}

// The classes a rune beyond ASCII stands for in urlClasses.
const (
	classDecimal = '\ue000' // \d and \w
	classAlnum   = '\ue001' // \w
	classOther   = '\ue002' // neither
)

// urlClasses maps each rune of s beyond ASCII onto the class Python's
// regular expressions put it in, or onto the ASCII letter re.IGNORECASE
// folds it to.
func urlClasses(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x80:
			return r
		case r == 'İ' || r == 'ı':
			return 'i'
		case r == 'ſ':
			return 's'
		case r == 'K': // the Kelvin sign
			return 'k'
		case pyIsDecimal(r):
			return classDecimal
		case pyIsAlnum(r):
			return classAlnum
		}
		return classOther
	}, s)
}

// Jinja2's _http_re, _email_re and _uri_scheme_re over urlClasses' text,
// \w, \d and \S written as the classes it maps runes to (a word holds no
// white space, so \S is any rune).
var (
	urlW      = `0-9A-Za-z_\x{e000}\x{e001}`
	urlD      = `0-9\x{e000}`
	urlHTTP   = lazyRE(strings.NewReplacer(`\w`, urlW, `\d`, urlD).Replace(`(?i)^(?:(?:https?://|www\.)(?:(?:[\w%-]+\.)+)?(?:[a-z]{2,63}|xn--[\w%]{2,59})|(?:[\w%-]{2,63}\.)+(?:com|net|int|edu|gov|org|info|mil)|https?://(?:[\d]{1,3}(?:\.[\d]{1,3}){3}|\[(?:[\da-f]{0,4}:){2}(?:[\da-f]{0,4}:?){1,6}\]))(?::[\d]{1,5})?(?:[/?#].*)?$`))
	urlEmail  = lazyRE(strings.NewReplacer(`\w`, urlW).Replace(`^.+@[\w][\w.-]*\.[\w]+$`))
	urlScheme = lazyRE(strings.NewReplacer(`\w`, urlW).Replace(`^[\w.+-]{2,}:/{0,2}$`))
)

// urlizeArgs reads the urlize filter's arguments as Jinja2's do_urlize
// does, with the default environment's policies: rel is the words of rel,
// "nofollow" with nofollow, and "noopener", sorted; every extra scheme must
// look like one ("tel:", "ftp://").
func urlizeArgs(a []Value) (trim *int64, rel, target string, schemes []string, err error) {
	if a[0].k != None && a[0].k != Undefined {
		n, err := argInt("urlize", "trim_url_limit", a[0])
		if err != nil {
			return nil, "", "", nil, err
		}
		trim = &n
	}
	parts := []string{"noopener"}
	if truthy(a[3]) {
		s, err := str1(a[3])
		if err != nil {
			return nil, "", "", nil, err
		}
		parts = append(parts, pySplitWhitespace(s)...)
	}
	if truthy(a[1]) {
		parts = append(parts, "nofollow")
	}
	slices.Sort(parts)
	rel = strings.Join(slices.Compact(parts), " ")
	if truthy(a[2]) {
		if target, err = str1(a[2]); err != nil {
			return nil, "", "", nil, err
		}
	}
	if a[4].k != None && a[4].k != Undefined {
		items, err := values(a[4])
		if err != nil {
			return nil, "", "", nil, fmt.Errorf("urlize: extra_schemes: %w", err)
		}
		for _, it := range items {
			s, err := argStr("urlize", "an extra scheme", it)
			if err != nil {
				return nil, "", "", nil, err
			}
			if !urlScheme().MatchString(urlClasses(s)) {
				return nil, "", "", nil, fmt.Errorf("urlize: %s is not a valid URI scheme prefix", pyQuote(s))
			}
			schemes = append(schemes, s)
		}
	}
	return trim, rel, target, schemes, nil
}

// pySplitWhitespace is Python's str.split() with no argument.
func pySplitWhitespace(s string) []string {
	return strings.FieldsFunc(s, pyIsSpace)
}
