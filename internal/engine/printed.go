package engine

import (
	"strings"
	"unsafe"
)

// Filters printed in place. {{ tags | join(", ") }}, {{ name | replace("_",
// " ") }}, {{ team | upper }} and {{ tools | tojson }} are how prompts
// and chat templates print values; each would build a string only for
// the output to copy it. A builtin's print form (builtinDef.print) writes
// the same bytes to the output instead, for the plain case; anything else
// — an undefined or non-string value, an argument it does not take —
// goes to the builtin itself, so results and errors are the builtin's.

// printJoin is join printed: a list or tuple of strings, a string
// separator, no attribute.
func printJoin(st *state, in Value, a []Value) (bool, error) {
	if !in.isSeq() || a[0].k != String || a[1].k != None {
		return false, nil
	}
	it := iterator{seq: in, n: seqLen(in)}
	for i := 0; i < it.n; i++ {
		if it.at(i).k != String {
			return false, nil
		}
	}
	n := 0
	for i := 0; i < it.n && !st.over; i++ {
		if i > 0 {
			st.WriteString(a[0].s)
			n += len(a[0].s)
		}
		s := it.at(i).s
		st.WriteString(s)
		n += len(s)
	}
	st.work -= int64(n >> 6)
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
	o := jsonOpts{itemSep: ", ", keySep: ": ", sortKeys: true, ensureASCII: true, htmlSafe: true}
	if err := o.setIndent(a[0]); err != nil {
		return false, nil
	}
	return printJSON(st, in, o)
}

func printHFToJSON(st *state, in Value, a []Value) (bool, error) {
	if a[0].k != Bool || a[2].k != None || a[3].k != Bool {
		return false, nil
	}
	o := jsonOpts{itemSep: ", ", keySep: ": ", ensureASCII: a[0].n != 0, sortKeys: a[3].n != 0}
	if err := o.setIndent(a[1]); err != nil {
		return false, nil
	}
	return printJSON(st, in, o)
}

func printJSON(st *state, in Value, o jsonOpts) (bool, error) {
	if in.k == Undefined {
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

func printUpper(st *state, in Value, _ []Value) (bool, error) {
	return printASCII(st, in, func(_ byte, c byte) byte { return asciiUpper(c) })
}

func printLower(st *state, in Value, _ []Value) (bool, error) {
	return printASCII(st, in, func(_ byte, c byte) byte { return asciiLower(c) })
}

// printTitle is Jinja's title (jinjaTitle) for ASCII: a letter after one
// of the separators, or first, upper-cased; every other lower-cased.
func printTitle(st *state, in Value, _ []Value) (bool, error) {
	return printASCII(st, in, func(prev byte, c byte) byte {
		if prev == 0 || titleBreak(prev) {
			return asciiUpper(c)
		}
		return asciiLower(c)
	})
}

// titleBreak reports whether jinjaTitle starts a new word after the
// ASCII byte c.
func titleBreak(c byte) bool {
	switch c {
	case '-', '(', '{', '[', '<':
		return true
	}
	return pyIsSpace(rune(c))
}

// printCapitalize is str.capitalize for ASCII: the first letter upper,
// the others lower.
func printCapitalize(st *state, in Value, _ []Value) (bool, error) {
	return printASCII(st, in, func(prev byte, c byte) byte {
		if prev == 0 {
			return asciiUpper(c)
		}
		return asciiLower(c)
	})
}

// printASCII writes an ASCII string with each byte mapped by f, which is
// given the byte before it (0 for the first): unchanged runs are written
// as they are, changed bytes through a small buffer.
func printASCII(st *state, in Value, f func(prev, c byte) byte) (bool, error) {
	if in.k != String || !isASCII(in.s) {
		return false, nil
	}
	s := in.s
	var buf [128]byte
	n, done := 0, 0 // bytes in buf; bytes of s written or in buf
	prev := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		m := f(prev, c)
		prev = c
		if m == c && n == 0 {
			continue // part of a run written from s itself
		}
		if n == 0 {
			st.WriteString(s[done:i])
			done = i
		}
		if n == len(buf) {
			st.WriteString(unsafe.String(&buf[0], n))
			n = 0
		}
		buf[n] = m
		n++
		done++
	}
	if n > 0 {
		st.WriteString(unsafe.String(&buf[0], n))
	}
	st.WriteString(s[done:])
	st.work -= int64(len(s) >> 6)
	return true, nil
}
