package message

import "strings"

// The roles of chat messages. A template's chat blocks produce system,
// user and assistant messages; a host appends the model's answers and a
// tool message for each tool call it ran. Role is a string: a chat
// template may know others (Llama 3.1's ipython), and RoleDeveloper is
// OpenAI's name for system instructions to its newer models.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
	RoleDeveloper = "developer"
)

// Message is one chat message, in the shape of OpenAI's Chat Completions
// API, which transformers' chat templates and most OpenAI-compatible
// servers read too:
//
//	{"role": "user", "content": "北京明天天气如何？"}
//	{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"}}]}
//	{"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "晴"}
//
// Parts holds the content in order: a message without images has at most
// one text part; {{ x | image }} in a chat block splits the text around
// each image. Parts is nil for a message without content.
//
// A Message decoded from JSON writes the same JSON again (see the package
// documentation for what that covers); a field the model does not have is
// an error that names it.
type Message struct {
	Role  string
	Parts []Part
	// Name is the tool's name in a RoleTool message (transformers'
	// templates print it), or a participant's name (OpenAI's "name").
	Name string
	// ToolCalls are the calls an assistant message makes; each is
	// answered by a RoleTool message with its ID as ToolCallID.
	ToolCalls []ToolCall
	// ToolCallID is the ID of the call a RoleTool message answers.
	ToolCallID string
	// ReasoningContent is an assistant's reasoning before its answer
	// ("reasoning_content", as DeepSeek's API returns it and the chat
	// templates of DeepSeek, Qwen and others read it).
	ReasoningContent string
	// CacheControl marks the end of a cacheable prefix at the end of
	// this message (Anthropic's cache_control; see CacheControl).
	CacheControl *CacheControl

	// layout: how the JSON it was decoded from was written, and the form
	// of its content when it is not ContentAuto (Form, SetForm).
	layout *layout
}

// ContentForm is how a message's content is written in JSON: a message
// decoded from JSON keeps the form it was read in, and SetForm sets it.
type ContentForm uint8

const (
	// ContentAuto writes a string when the message has no part or one
	// text part (without a cache mark), and a list of parts otherwise;
	// no part and tool calls is null, as the Chat Completions API
	// writes an assistant's tool calls.
	ContentAuto ContentForm = iota
	// ContentString writes a string: "" for no part, or the text of
	// the one text part.
	ContentString
	// ContentList writes a list of parts, even of one text part, or none.
	ContentList
	// ContentNull writes null; the message has no parts.
	ContentNull
	// ContentAbsent leaves "content" out; the message has no parts.
	ContentAbsent
)

// Form returns the form m's content is written in: the one SetForm set or
// the message was decoded in, or what ContentAuto makes of m (never
// ContentAuto).
func (m Message) Form() ContentForm {
	if m.layout != nil && m.layout.content != ContentAuto {
		return m.layout.content
	}
	switch {
	case len(m.Parts) == 0 && len(m.ToolCalls) > 0:
		return ContentNull
	case len(m.Parts) == 0:
		return ContentString
	case len(m.Parts) == 1 && m.Parts[0].plainText():
		return ContentString
	}
	return ContentList
}

// SetForm sets the form m's content is written in; ContentAuto is the
// usual form. Marshalling checks that the parts fit it.
func (m *Message) SetForm(f ContentForm) {
	var l layout
	if m.layout != nil {
		l = *m.layout // layouts are shared by copies: never changed
	}
	l.content = f
	if l.content == ContentAuto && l.keys == nil && l.sub == nil {
		m.layout = nil
		return
	}
	m.layout = &l
}

// Text returns a message of one text part (none when text is empty).
func Text(role, text string) Message {
	m := Message{Role: role}
	if text != "" {
		m.Parts = []Part{{Type: PartText, Text: text}}
	}
	return m
}

// ToolResult returns the RoleTool message that answers call with the
// tool's result, as text.
func ToolResult(call ToolCall, result string) Message {
	m := Text(RoleTool, result)
	m.ToolCallID, m.Name = call.ID, call.Name
	return m
}

// Text returns the message's text parts joined by newlines; other parts
// are left out.
func (m Message) Text() string {
	if len(m.Parts) == 1 && m.Parts[0].Type == PartText {
		return m.Parts[0].Text
	}
	var texts []string
	for _, p := range m.Parts {
		if p.Type == PartText {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
