package engine

import (
	"strings"
	"unsafe"
)

// output is a render's output: bytes appended to a buffer that becomes
// the result string without a copy, as strings.Builder's does.
//
// It is not a strings.Builder because the state that holds it lives on
// the heap: Builder.WriteString stores its slice back whole, pointer
// included, so while the collector marks, every write of every node pays
// a write barrier. write stores only the new length when the bytes fit,
// which is nearly always (the buffer is sized from earlier renders).
type output struct {
	buf []byte
}

// reset starts an empty output with room for n bytes. The memory comes
// from strings.Builder.Grow, which does not zero it: the render writes
// every byte it hands over.
func (o *output) reset(n int) {
	o.buf = nil
	if n <= 0 {
		return
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0) // gives the buffer an address String can show
	o.buf = unsafe.Slice(unsafe.StringData(sb.String()), sb.Cap())[:0]
	// sb is dropped here: nothing else refers to the memory.
}

func (o *output) Len() int { return len(o.buf) }
func (o *output) Cap() int { return cap(o.buf) }

// text is the output so far. Its bytes do not change until take or
// reset, as output only appends.
func (o *output) text() string {
	return unsafe.String(unsafe.SliceData(o.buf), len(o.buf))
}

func (o *output) write(s string) {
	n := len(o.buf)
	if len(s) <= cap(o.buf)-n {
		o.buf = o.buf[:n+len(s)] // a reslice in place stores only the length
		copy(o.buf[n:], s)
		return
	}
	o.grow(s)
}

// grow appends s to a larger buffer; the bytes written so far are never
// written again, so a text() taken earlier stays valid.
func (o *output) grow(s string) {
	o.buf = append(o.buf, s...)
}

// take returns the output as a string and forgets the buffer, which from
// then on belongs to the string.
func (o *output) take() string {
	s := o.text()
	o.buf = nil
	return s
}
