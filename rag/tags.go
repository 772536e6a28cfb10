package rag

// tags names the XML-like tags the user message wraps evidence and the
// question in, by the key templates use: {{ tags.documents }} prints
// "documents". The scene system templates (rag_system_kb, rag_system_tool,
// rag_system_mixed) tell the model which tags to read, and rag_user writes
// those tags; both get this one table as the variable "tags", so the name
// a system prompt refers to and the name the evidence sits in cannot drift
// apart. The names are markup, not wording: the wording around them stays
// in the templates.
//
// It is only read, so every render shares it.
var tags = map[string]any{
	"tool_data": "tool-data", // all tool results
	"tool":      "tool",      // one tool result
	"documents": "documents", // all knowledge-base chunks
	"document":  "document",  // the chunks of one intent
	"chunk":     "chunk",     // one chunk
	"question":  "question",  // the question
	"questions": "questions", // the numbered sub-questions
}
