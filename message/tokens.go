package message

// TokenWriter receives JSON as tokens instead of text: a program that
// builds its own values from messages (promptkit's chat templates read a
// typed conversation this way) gets exactly what decoding EncodeMessages'
// text would give it, without the text. Each Key is followed by its
// value; JSON receives a value the model keeps as JSON text (a call's
// object arguments, a tool's parameters), which must be one JSON object,
// and returns an error when it is not.
type TokenWriter interface {
	BeginObject()
	EndObject()
	BeginList()
	EndList()
	Key(name string)
	String(s string)
	Bool(b bool)
	Null()
	JSON(text string) error
}

// WriteMessages writes msgs to tw as the tokens of the JSON list
// EncodeMessages writes, with the same checks and errors.
func WriteMessages(tw TokenWriter, msgs []Message) error {
	return writeTokens(tw, msgs, "messages", messageCodec())
}

// WriteTools writes tools to tw as the tokens of the JSON list
// EncodeTools writes.
func WriteTools(tw TokenWriter, tools []Tool) error {
	return writeTokens(tw, tools, "tools", toolCodec())
}

func writeTokens[T any](tw TokenWriter, items []T, root string, c *codec[T]) error {
	return writeList(&writer{tw: tw, path: []string{root}}, items, c)
}
