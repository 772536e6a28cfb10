package rag

import "github.com/seed-e7d2830f/promptkit/message"

// Input is everything one answer is assembled from: what the earlier
// stages of a RAG pipeline produced. Its JSON form is the data of the
// rag_answer builder, one key per field.
type Input struct {
	// Question is the user's question as asked. Required.
	Question string `json:"question"`
	// SubQuestions are the questions query rewriting split it into. Two
	// or more replace Question in the user message, numbered; one or
	// none leave Question alone. Blank ones are dropped.
	SubQuestions []string `json:"sub_questions,omitempty"`
	// History is the conversation so far, oldest first, inserted between
	// the system message and the user message exactly as given — images,
	// tool calls, tool results and reasoning included; a summary of older
	// turns is usually its first message, with message.RoleSystem. Roles
	// are system, developer, user, assistant or tool.
	History []message.Message `json:"history,omitempty"`
	// Documents are the knowledge-base chunks, grouped by the intent that
	// retrieved them. Each group becomes one <document> block.
	Documents []Retrieved `json:"documents,omitempty"`
	// Tools are the results of the tool (MCP) calls.
	Tools []ToolResult `json:"tools,omitempty"`
	// Intents are the matched intents, in order of preference; Documents
	// and Tools refer to them by ID.
	Intents []Intent `json:"intents,omitempty"`
}

// Intent is one matched node of the host's intent tree.
type Intent struct {
	// ID identifies the intent; unique within an Input. Required.
	ID string `json:"id"`
	// Name is what the intent is about, shown on its <document> blocks.
	Name string `json:"name,omitempty"`
	// Template is a complete replacement system prompt, used instead of
	// the scene's when this is the only intent that keeps evidence.
	Template string `json:"template,omitempty"`
	// Snippet is a short rule added to the rules block of the system
	// prompt when the intent keeps evidence.
	Snippet string `json:"snippet,omitempty"`
}

// Retrieved is the knowledge-base chunks one intent retrieved.
type Retrieved struct {
	// Intent is the ID of an intent of Input.Intents, or empty for chunks
	// retrieved for no particular intent.
	Intent string `json:"intent,omitempty"`
	// Chunks are the retrieved chunks, best first. Blank ones are dropped.
	Chunks []Chunk `json:"chunks"`
}

// Chunk is one retrieved piece of a document.
type Chunk struct {
	// Source names the document the chunk comes from (a title or a
	// path); may be empty.
	Source string `json:"source,omitempty"`
	// Text is the chunk's text.
	Text string `json:"text"`
}

// ToolResult is the outcome of one tool (MCP) call: data, or an error.
type ToolResult struct {
	// Tool is the tool's name. Required.
	Tool string `json:"tool"`
	// Intent is the ID of the intent the call served, or empty.
	Intent string `json:"intent,omitempty"`
	// Data is the result: anything that encodes to JSON (a struct, a
	// map, a list, json.RawMessage…). A string is shown as text. Nil, an
	// empty list or an empty object is an empty result.
	Data any `json:"data,omitempty"`
	// Error is why the call failed; when it is not blank, Data must be
	// nil.
	Error string `json:"error,omitempty"`
}
