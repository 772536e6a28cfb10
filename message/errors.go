package message

import "errors"

var (
	// ErrUnknownField is a key of a message's JSON that the model does
	// not have: it is refused, never dropped, since dropping it would
	// lose what it held.
	ErrUnknownField = errors.New("message: unknown field")
	// ErrInvalid is JSON that is not a message (a value of the wrong
	// type, a missing or duplicate field, an unknown part type), or a
	// Message that cannot be written as JSON.
	ErrInvalid = errors.New("message: invalid")
)

// FieldError is a problem with one part of a message's JSON, at Path:
//
//	messages[3].tool_calls[0].function.argumnets: unknown field; did you mean "arguments"?
//
// Path starts at the value decoded: "messages" for DecodeMessages, "tools"
// for DecodeTools, the message's own fields ("tool_calls[0].id") for
// json.Unmarshal of one Message. It unwraps to ErrUnknownField or
// ErrInvalid.
type FieldError struct {
	Path string // "" for the value itself
	Msg  string
	Err  error // ErrUnknownField or ErrInvalid
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return "message: " + e.Msg
	}
	return e.Path + ": " + e.Msg
}

func (e *FieldError) Unwrap() error { return e.Err }
