// Package einoprompt makes a template of a promptkit set a CloudWeGo Eino
// chat template (github.com/cloudwego/eino, components/prompt): a
// prompt.ChatTemplate that a chain or graph appends like any other, whose
// Format renders with promptkit's strict checks — missing, extra and
// invalid variables are errors, with a did-you-mean — and returns the
// messages manager.RenderMessages gives, as Eino's schema.Message. It is a
// module of its own, so promptkit does not depend on Eino.
//
//	m, err := manager.Open("prompts", manager.WithWatch())
//	tmpl, err := einoprompt.New(m, "support")
//	chain := compose.NewChain[map[string]any, []*schema.Message]()
//	chain.AppendChatTemplate(tmpl)
//
// The template's set may reload under it: each Format renders the set
// serving at that moment. Format runs Eino's callbacks (OnStart, OnEnd,
// OnError) as Eino's own templates do.
//
// # Messages
//
// A chat block becomes a message of its role (system, user, assistant); a
// text template one user message of its trimmed text. A message of one
// text part has it as Content; a message with images has its parts as
// UserInputMultiContent (a user message) or AssistantGenMultiContent (an
// assistant's): an image in a data: URL as Base64Data and MIMEType, as
// Eino recommends, one at an http(s) URL as URL, with its detail. What
// Eino's message has no place for — an image in a system message, a cache
// mark, audio or file parts — is an error naming the message, never
// dropped. Tool calls, tool results, reasoning and names map to their
// fields, so Messages converts a whole conversation kept as
// []message.Message.
package einoprompt
