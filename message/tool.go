package message

import "encoding/json"

// Tool is a function tool offered to a model, in the shape of the Chat
// Completions API, which transformers' chat templates take as well:
//
//	{"type": "function", "function": {"name": "get_weather", "description": "…", "parameters": {"type": "object", …}}}
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments, a JSON object
	// kept as its text, so its keys keep their order (a chat template
	// prints it with tojson).
	Parameters json.RawMessage
	// Strict asks for arguments that follow Parameters exactly (OpenAI's
	// structured outputs); nil leaves it out.
	Strict *bool
	// CacheControl marks the end of a cacheable prefix after this tool
	// (Anthropic caches tools before the system prompt).
	CacheControl *CacheControl

	layout *layout
}
