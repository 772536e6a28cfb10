package engine

import (
	"bytes"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// trimmed must agree with bytes.TrimFunc(unicode.IsSpace) on every space
// and every neighbour of one: each rune unicode.IsSpace accepts, the runes
// that share its UTF-8 lead or last byte, at either end.
func TestTrimmedIsTrimFunc(t *testing.T) {
	var edge []rune
	for r := rune(0); r <= 0xffff; r++ {
		edge = append(edge, r)
	}
	edge = append(edge, 0xfeff, 0x1f600, utf8.RuneError)
	check := func(text []byte) {
		a, b := trimmed(string(text))
		want := bytes.TrimFunc(text, unicode.IsSpace)
		wa := len(text) - len(bytes.TrimLeftFunc(text, unicode.IsSpace))
		if !assert.Equal(t, string(want), string(text[a:b]), "%q", text) {
			return
		}
		if len(want) > 0 {
			assert.Equal(t, wa, a, "%q", text)
		}
	}
	for _, r := range edge {
		for _, s := range []string{
			string(r), " " + string(r), string(r) + " ", "\u3000" + string(r) + "\u00a0",
			string(r) + "x" + string(r), "你" + string(r), string(r) + "。", "\n" + string(r) + string(r) + "\t",
		} {
			check([]byte(s))
		}
	}
	for _, s := range []string{"", " ", "\u3000\u2028 \u0085", "\xff", " \xe3\x80", "\xe3\x80 ", "a\xc2", "\xe2\x80A", "A\xe2\x80", "\xe2\x80\x20", "\xf0\xe2\x80\x8a", "\xc2 ", "\x85\xc2"} {
		check([]byte(s))
	}
}

// reset leaves a sink as a new one but for its slices' memory: every
// field, including any added later, must be back to its zero value.
func TestChatSinkReset(t *testing.T) {
	s := chatSink{msgs: []sinkMsg{{1, 2, 3}}, parts: []sinkPart{{4, 5}}, urls: []string{"u"}, nurl: 1, open: true, start: 2, first: 3}
	urls := s.urls
	s.reset()
	assert.Equal(t, chatSink{msgs: s.msgs, parts: s.parts, urls: s.urls}, s)
	assert.Empty(t, s.msgs)
	assert.Empty(t, s.parts)
	assert.Empty(t, s.urls)
	assert.Equal(t, "", urls[0], "the URLs are dropped, not kept alive by the pool")
}
