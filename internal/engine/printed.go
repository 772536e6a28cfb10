package engine

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Filters printed in place. {{ tags | join(", ") }}, {{ name | replace("_",
// " ") }}, {{ team | upper }}, {{ note | default("none") }} and {{ tools |
// tojson }} are how prompts and chat templates print values; each would
// build a string, or at least a value, only for the output to copy it. A builtin's print form (builtinDef.print) writes
// the same bytes to the output instead, for the plain case; anything else
// — an undefined or non-string value, an argument it does not take —
// goes to the builtin itself, so results and errors are the builtin's.

// printJoin is join printed: a list or tuple of strings, a string
// separator, no attribute.
func printJoin(st *state, in Value, a []Value) (bool, error) {
	if !in.isSeq() || a[0].k != String || a[1].k != None {
		return false, nil
	}
	items := seqLen(in)
	for i := range items {
		if _, ok := seqString(in, i); !ok {
			return false, nil
		}
	}
	n := 0
	for i := 0; i < items && !st.over; i++ {
		if i > 0 {
			st.WriteString(a[0].s)
			n += len(a[0].s)
		}
		s, _ := seqString(in, i)
		st.WriteString(s)
		n += len(s)
	}
	st.work -= int64(n >> 6)
	return true, nil
}

// seqString is the string at i of a list or tuple, and whether it is
// one: seqAt without making a value of a host's item.
func seqString(v Value, i int) (string, bool) {
	switch r := v.ref.(type) {
	case *seqData:
		x := r.items[i]
		return x.s, x.k == String
	case []any:
		s, ok := r[i].(string)
		return s, ok
	}
	x := seqAt(v, i)
	return x.s, x.k == String
}

// printDefault is default printed, when the value it gives is a string.
func printDefault(st *state, in Value, a []Value) (bool, error) {
	if a[1].k == Undefined {
		return false, nil
	}
	v := in
	if in.k == Undefined || (truthy(a[1]) && !truthy(in)) {
		v = a[0]
	}
	if v.k != String {
		return false, nil
	}
	st.WriteString(v.s)
	return true, nil
}

// printTrim is trim printed, without chars: the text is written without
// its surrounding white space.
func printTrim(st *state, in Value, a []Value) (bool, error) {
	if in.k != String || a[0].k != None {
		return false, nil
	}
	st.WriteString(strings.TrimFunc(in.s, pyIsSpace))
	return true, nil
}

// printLength is length printed: the count's digits.
func printLength(st *state, in Value, _ []Value) (bool, error) {
	if in.k == Undefined {
		return false, nil
	}
	n := length(in)
	if n < 0 {
		return false, nil
	}
	var buf [20]byte
	b := strconv.AppendInt(buf[:0], int64(n), 10)
	st.WriteString(unsafe.String(unsafe.SliceData(b), len(b)))
	return true, nil
}

// printReplace is replace printed: string input, old and new, no count,
// old not empty. A result the memory budget could not hold is refused as
// replace refuses it.
func printReplace(st *state, in Value, a []Value) (bool, error) {
	if in.k != String || a[0].k != String || a[1].k != String || a[2].k != None || a[0].s == "" {
		return false, nil
	}
	s, old, repl := in.s, a[0].s, a[1].s
	if len(repl) > len(old) {
		if c := strings.Count(s, old); c > 0 && len(repl)-len(old) > (st.budgetLeft()-len(s))/c {
			return true, st.tooBig(len(s) + c*(len(repl)-len(old)))
		}
	}
	n := len(s)
	for !st.over {
		i := strings.Index(s, old)
		if i < 0 {
			st.WriteString(s)
			break
		}
		st.WriteString(s[:i])
		st.WriteString(repl)
		n += len(repl) - len(old)
		s = s[i+len(old):]
	}
	st.work -= int64(max(n, 0) >> 6)
	return true, nil
}

// printToJSON and printHFToJSON are tojson printed: the JSON is written
// from the render's tojson buffer, not copied into a string first.
func printToJSON(st *state, in Value, a []Value) (bool, error) {
	o, err := toJSONOpts(a)
	return printJSON(st, in, o, err)
}

func printHFToJSON(st *state, in Value, a []Value) (bool, error) {
	o, err := hfToJSONOpts(a)
	return printJSON(st, in, o, err)
}

// printJSON prints in's JSON written with o; a bad option (optErr) or an
// undefined value is the filter's to refuse.
func printJSON(st *state, in Value, o jsonOpts, optErr error) (bool, error) {
	if optErr != nil || in.k == Undefined {
		return false, nil
	}
	b, err := writeJSON(st, in, o)
	if err != nil {
		return true, err
	}
	st.WriteString(unsafe.String(unsafe.SliceData(b), len(b)))
	st.work -= int64(len(b) >> 6)
	return true, nil
}

// The casing filters printed, for ASCII text (most names and labels);
// other text takes the filter, whose tables know every script.

type casing uint8

const (
	caseUpper      casing = iota
	caseLower             // str.lower
	caseTitle             // Jinja's title (jinjaTitle)
	caseCapitalize        // str.capitalize
)

func printUpper(st *state, in Value, _ []Value) (bool, error) {
	return printCased(st, in, caseUpper)
}

func printLower(st *state, in Value, _ []Value) (bool, error) {
	return printCased(st, in, caseLower)
}

func printTitle(st *state, in Value, _ []Value) (bool, error) {
	return printCased(st, in, caseTitle)
}

func printCapitalize(st *state, in Value, _ []Value) (bool, error) {
	return printCased(st, in, caseCapitalize)
}

// titleBreakASCII holds the ASCII bytes after which jinjaTitle starts a
// new word (titleBreak): "-", "(", "{", "[", "<" and Python's white space.
var titleBreakASCII = [utf8.RuneSelf]bool{
	'-': true, '(': true, '{': true, '[': true, '<': true,
	'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true,
}

// titleBreak reports whether jinjaTitle starts a new word after r.
func titleBreak(r rune) bool {
	if r < utf8.RuneSelf {
		return titleBreakASCII[r]
	}
	return pyIsSpace(r)
}

// printCased writes an ASCII string upper-cased, lower-cased, as a title
// (a letter first or after a break upper, the others lower) or
// capitalized (the first upper, the others lower), through a buffer on
// the stack.
func printCased(st *state, in Value, how casing) (bool, error) {
	if in.k != String || !isASCII(in.s) {
		return false, nil
	}
	s := in.s
	st.work -= int64(len(s) >> 6)
	var buf [256]byte
	start := true // the next byte begins a word (title) or the text (capitalize)
	for len(s) > 0 && !st.over {
		n := min(len(s), len(buf))
		for i, c := range []byte(s[:n]) {
			switch how {
			case caseUpper:
				c = asciiUpper(c)
			case caseLower:
				c = asciiLower(c)
			default:
				brk := how == caseTitle && titleBreakASCII[c]
				if start {
					c = asciiUpper(c)
				} else {
					c = asciiLower(c)
				}
				start = brk
			}
			buf[i] = c
		}
		st.WriteString(unsafe.String(&buf[0], n))
		s = s[n:]
	}
	return true, nil
}
