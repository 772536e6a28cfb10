package builders

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error a builder of this package returns is an
// *Error whose Kind is one of them, so hosts branch with errors.Is.
var (
	// ErrUnknownKey is returned when the data holds a key the builder does
	// not read: a typo such as bot_nmae must not silently fall back to a
	// default.
	ErrUnknownKey = errors.New("builders: unknown data key")
	// ErrMissingValue is returned when a value the builder needs is absent
	// or empty, in the data or in the task.
	ErrMissingValue = errors.New("builders: missing value")
	// ErrInvalidValue is returned when a value has the wrong type or shape,
	// or a list item lacks a field or has one the builder does not know.
	ErrInvalidValue = errors.New("builders: invalid value")
	// ErrInvalidKind is returned by the context_note builder for a kind
	// that is not one of NoteKinds.
	ErrInvalidKind = errors.New("builders: invalid note kind")
	// ErrNoRenderer is returned by a builder constructed without a renderer.
	ErrNoRenderer = errors.New("builders: no renderer")
	// ErrRender is returned when the renderer fails; the renderer's own
	// error (a *manager.Error) is wrapped too, so errors.Is reaches the
	// manager's sentinels.
	ErrRender = errors.New("builders: render failed")
)

// Error is one problem with one build. It names the builder and, when the
// problem is with one value, the data key ("bot_name", "jargon[2].meaning")
// or task field ("task.intent").
type Error struct {
	Kind    error  // one of the sentinels of this package
	Builder string // name of the builder
	Key     string // data key or task field concerned; may be empty
	Msg     string // what went wrong
	Err     error  // underlying cause (the renderer's error…), may be nil
}

// Error formats the problem as `builders: NAME: key "KEY": MESSAGE: CAUSE`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("builders: ")
	b.WriteString(e.Builder)
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString("key ")
		b.WriteString(strconv.Quote(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes both the sentinel and the underlying cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}
