package tokens

import "unicode/utf8"

// CountMarked counts text as Count does and, in the same pass, the tokens
// before each of marks — byte offsets into text, ascending: at[i] is the
// count of the pieces the encoding's split makes of the whole text that
// end at or before marks[i] (a piece is split once and merged whole, so
// this is text[:marks[i]]'s share of the count, as the whole text
// tokenizes). The marks are appended to dst. A budgeted render uses it to
// know what each region of a render costs where it stands without
// counting it again.
//
// ok is false, and nothing is counted, where the pieces are not
// OpenAI's: for a tokenizer.json, and for text that is not valid UTF-8
// (Count reads it with U+FFFD, which moves the offsets).
func (t *Tokenizer) CountMarked(text string, marks, dst []int) (n int, at []int, ok bool) {
	e, isTiktoken := t.enc.(*tiktoken)
	if !isTiktoken || !utf8.ValidString(text) {
		return 0, dst, false
	}
	n, at = e.countMarked(text, marks, dst)
	return n, at, true
}

func (e *tiktoken) countMarked(text string, marks, dst []int) (int, []int) {
	var buf [64]int32
	n, m := 0, 0
	for i := 0; i < len(text); {
		j := e.next(text, i)
		for m < len(marks) && marks[m] < j {
			dst = append(dst, n) // the piece [i, j) ends after the mark
			m++
		}
		if _, ok := e.ranks.rank(text[i:j]); ok {
			n++
		} else {
			n += len(e.ranks.encode(text[i:j], buf[:0]))
		}
		i = j
	}
	for ; m < len(marks); m++ {
		dst = append(dst, n)
	}
	return n, dst
}
