package jinja

import "sort"

// Pos is a byte offset into a template's source, as the lexer saw it
// (newlines normalized, a leading byte-order mark dropped). Line and column
// are computed only when a message or a runtime position needs them
// (Source.Position), as text/template/parse does.
type Pos int

// Source is one template file: its name (a path relative to the set's
// root) and its text, with what Position needs to answer in constant time.
// A Source is immutable once made, and safe for concurrent use.
type Source struct {
	Name string
	Text string

	lines []int   // offsets of line starts
	runes []int32 // runes before each multiple of chunk
}

const chunk = 128

// NewSource indexes text (already normalized, see Normalize) for Position.
func NewSource(name, text string) *Source {
	s := &Source{Name: name, Text: text, lines: []int{0}, runes: make([]int32, len(text)/chunk+1)}
	var n int32
	for i := 0; i < len(text); i++ {
		if i%chunk == 0 {
			s.runes[i/chunk] = n
		}
		c := text[i]
		if c == '\n' {
			s.lines = append(s.lines, i+1)
		}
		if c&0xC0 != 0x80 { // not a UTF-8 continuation byte: a rune starts here
			n++
		}
	}
	return s
}

// runesBefore counts the runes of Text[:off] in at most chunk steps.
func (s *Source) runesBefore(off int) int {
	n := int(s.runes[off/chunk])
	for i := off / chunk * chunk; i < off; i++ {
		if s.Text[i]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// Position returns the 1-based line and column of p. Columns count runes,
// so a position in Chinese text points at the right character.
func (s *Source) Position(p Pos) (line, col int) {
	off := min(max(int(p), 0), len(s.Text))
	l := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	start := s.lines[l]
	if off-start <= chunk {
		n := 0
		for i := start; i < off; i++ {
			if s.Text[i]&0xC0 != 0x80 {
				n++
			}
		}
		return l + 1, n + 1
	}
	return l + 1, s.runesBefore(off) - s.runesBefore(start) + 1
}
