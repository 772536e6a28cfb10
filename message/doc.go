// Package message is the chat message every part of promptkit speaks:
// manager renders templates into messages and applies models' chat
// templates to them, rag assembles them, contextstack keeps a
// conversation's history in them, and the providers module turns them
// into the request types of OpenAI's and Anthropic's SDKs. It is its own
// small package so a program can hold, build and marshal messages without
// importing the template engine.
//
// # One model for real conversations
//
// A Message holds what a tool-calling, multimodal conversation holds:
// content as text, images (URL or data: URL, with a detail), audio input
// and files, in order (Part); an assistant's tool calls (ToolCall), with
// their arguments kept as the exact JSON text the model produced
// (DecodeArguments decodes them); a tool's result (RoleTool, ToolCallID
// and Name); an assistant's reasoning (ReasoningContent); and a cache mark
// on a message or part (CacheControl, Anthropic's cache_control). Tool is
// a function tool offered to the model.
//
//	msgs := []message.Message{
//		message.Text(message.RoleUser, "北京明天天气如何？"),
//		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京"}`}}},
//	}
//	msgs = append(msgs, message.ToolResult(msgs[1].ToolCalls[0], "晴，25°C"))
//
// # A whole call
//
// Request is one model call, provider-neutral: its Settings (the model,
// temperature, top_p, max_output_tokens, stop, reasoning_effort, seed,
// tool_choice, parallel_tool_calls, and each provider's own settings
// under its key, passed through), its messages, its tools and the Output
// schema the answer must match. A template set declares them with each
// template (manager.Request renders one), and the providers module turns
// one into each SDK's params. DecodeRequest and DecodeSettings read them
// strictly and report every problem, each naming its key.
//
// # JSON
//
// Messages marshal to the shape of OpenAI's Chat Completions API, which
// transformers' chat templates and most OpenAI-compatible servers read:
//
//	{"role": "system", "content": "Be brief."}
//	{"role": "user", "content": [{"type": "text", "text": "这是什么？"}, {"type": "image_url", "image_url": {"url": "https://…", "detail": "low"}}]}
//	{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"}}]}
//	{"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "晴"}
//
// Decoding is strict: a field the model does not have, a duplicate key, a
// null where a value belongs or a value of the wrong type is a
// *FieldError naming its path —
//
//	messages[3].tool_calls[0].function.argumnets: unknown field; did you mean "arguments"?
//
// — never a field silently dropped. DecodeMessages and DecodeTools read a
// whole list and name paths from it; json.Unmarshal of one Message names
// paths from the message.
//
// A conversation decoded from JSON encodes to the same JSON, up to
// whitespace and the escaping of strings (written as encoding/json writes
// them, without escaping <, > and &): content stays a string or a list of
// parts as it was (Message.Form; SetForm sets it), null stays null and a
// left-out field
// stays out, arguments stay a string or an object as they were
// (ObjectArguments), and each object keeps the order of its keys. A
// message a program builds is written in the usual form: content a string
// when it is one text part, a list otherwise, null for an assistant's tool
// calls without text; keys in the order the examples above show.
package message
