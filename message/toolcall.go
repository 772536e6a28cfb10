package message

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ToolCall is one call of a function tool in an assistant message:
//
//	{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"}}
type ToolCall struct {
	// ID identifies the call; the RoleTool message that answers it
	// repeats it as its ToolCallID.
	ID   string
	Name string // the function's name
	// Arguments is the JSON text of the arguments, byte for byte as the
	// model produced it. It is not checked when a message is decoded —
	// a model may produce JSON that is not valid — but DecodeArguments
	// checks it.
	Arguments string
	// ObjectArguments writes Arguments as the JSON object itself instead
	// of a string holding its text: how transformers' chat templates take
	// a call ("arguments" a dict, for {{ tool_call.function.arguments |
	// tojson }}), and how a decoded call had them when its arguments were
	// an object. Arguments must then be one JSON object.
	ObjectArguments bool

	layout *layout
}

// DecodeArguments decodes the call's arguments into v, strictly: an
// argument v has no field for is an error (a model may invent one), as
// is JSON that is not valid or does not fit v.
func (c ToolCall) DecodeArguments(v any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(c.Arguments)))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = fmt.Errorf("data after the arguments")
	}
	if err != nil {
		return fmt.Errorf("%w: the arguments of tool call %q (%s): %v", ErrInvalid, c.ID, c.Name, err)
	}
	return nil
}
