// Package rag assembles the messages of a retrieval-augmented answer: how
// knowledge-base chunks, tool (MCP) results, the conversation history and
// the user's question become the one message list a chat model receives,
// in the shape of Ragent's RAGPromptService:
//
//	[system]      the scene's rules, or the intent's own template, plus a rules block
//	[history...]  the conversation as given (a summary, then recent turns)
//	[user]        <tool-data>, <documents>, then <question> or numbered <questions>
//
// All wording lives in the templates rag_system_kb, rag_system_tool,
// rag_system_mixed, rag_system_intent and rag_user of the default set;
// this package only decides which template runs and with which values.
//
// # Tags
//
// The user message puts tool results in <tool-data> (one <tool> each),
// knowledge-base chunks in <documents> (one <document> per intent, one
// <chunk> per chunk) and the question in <question>, or the sub-questions
// in <questions>. The scene system prompts tell the model to read exactly
// these tags, so both kinds of template take the tag names from one table
// of this package, passed as the variable "tags" ({{ tags.documents }});
// no template spells a tag out. An intent's own template (see below) is
// the host's text and names the tags itself.
//
// # Trust model
//
// Evidence is data, never instructions. Every chunk text and source, every
// intent name, every tool name, error and data string (object keys
// included) and the question and sub-questions are escaped with
// builders.EscapeXML before they reach a template, so a chunk containing
// "</document>" or "<tool-data>" cannot close the tag around it or forge
// another, and a quote cannot end an attribute. The system templates tell
// the model that the tags hold material, not orders, and how to read the
// five escapes back.
//
// Three inputs are trusted and inserted as they are: the history messages
// (each is a message of its own, with no tag to escape from), and the
// intents' replacement templates and rule snippets, which are the host's
// configuration, like the templates themselves. A replacement template is
// inserted as text, never executed as a template.
//
// # Scenes
//
// The evidence decides the scene: knowledge-base chunks only (SceneKB),
// tool results only (SceneTool) or both (SceneMixed). A tool result counts
// whether it holds data or an error; a chunk counts when its text is not
// blank. With neither, Messages returns ErrNoEvidence: the host should
// answer without the model rather than send an empty prompt.
//
// # Intents, templates and rules
//
// An intent keeps evidence when a non-blank chunk or a tool result names
// it. When exactly one intent keeps evidence and carries a replacement
// template, that template is the system message (rag_system_intent);
// otherwise the scene's template is, and templates of several intents are
// never merged. The rule snippets of the intents that keep evidence are
// trimmed, blank ones dropped and duplicates removed (the first wins);
// the template prints them in a <rules> block, numbered when there are
// several, plain when there is one. PlanFor shows these decisions without
// rendering.
//
// # Questions
//
// Two or more non-blank sub-questions (from query rewriting) are printed
// numbered in <questions>; otherwise the question is printed in
// <question>.
//
// # Service and CLI
//
// Builder satisfies builders.Builder and service.MessageBuilder under the
// name "rag_answer", reading the fields of Input as data keys: Build
// returns the messages as a JSON array, BuildMessages as values. It is one
// of the default builders of package service, so a service made with
// service.WithDefaultBuilders serves it; a host can also register it
// alone:
//
//	svc, err := service.New(m, service.WithBuilders(rag.New(m)))
//	msgs, err := svc.BuildMessages("rag_answer", task, data)
//
// "promptkit build rag_answer --data FILE" prints the JSON array whenever
// the template set holds the rag_* templates; the files
// testdata/golden/*.input.json of this package are such data.
//
// # Errors
//
// Every error is a *builders.Error naming the builder and the offending
// key ("tools[1].tool"); its Kind is ErrNoEvidence or a sentinel of
// package builders (ErrMissingValue, ErrInvalidValue, ErrUnknownKey,
// ErrNoRenderer, ErrRender), for errors.Is.
//
// # Concurrency
//
// A Builder holds only its renderer; build from any number of goroutines.
package rag
