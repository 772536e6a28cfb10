package jinja

import (
	"strings"
	"testing"
)

// FuzzParse parses arbitrary input with every combination of the
// whitespace options: the parser never panics, every problem is
// positioned inside the source, and a tree that parses prints Jinja that
// parses back to the same tree.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.input, uint8(0))
	}
	for _, tt := range parseErrorTests {
		f.Add(tt.input, uint8(0))
	}
	for _, tt := range lexTests {
		f.Add(tt.input, uint8(3))
	}
	f.Fuzz(func(t *testing.T, src string, opts uint8) {
		opt := Options{TrimBlocks: opts&1 != 0, LStripBlocks: opts&2 != 0, KeepTrailingNewline: opts&4 != 0}
		tr, err := Parse("f.md", src, opt)
		if tr == nil || tr.Source == nil {
			t.Fatalf("no tree for %q", src)
		}
		text := tr.Source.Text
		lines := strings.Count(text, "\n") + 1
		if err != nil {
			list, ok := err.(ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
			}
			for _, e := range list {
				if e.File != "f.md" || e.Pos < 0 || int(e.Pos) > len(text) || e.Line < 1 || e.Line > lines || e.Col < 1 || e.Msg == "" {
					t.Fatalf("problem outside the source %q: %+v", text, e)
				}
				if l, c := tr.Source.Position(e.Pos); l != e.Line || c != e.Col {
					t.Fatalf("problem %+v is at %d:%d", e, l, c)
				}
			}
			return
		}
		printed := bodyString(tr.Root)
		again, err := Parse("again.md", printed, Options{KeepTrailingNewline: true})
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, printed, err)
		}
		if reprinted := bodyString(again.Root); reprinted != printed {
			t.Fatalf("%q printed as %q, reprinted as %q", src, printed, reprinted)
		}
	})
}
