// Package genkitprompt makes a template of a promptkit set a Genkit for Go
// action (github.com/firebase/genkit/go): Define registers it as a flow
// whose input is the template's variables and whose output is its
// messages as Genkit messages, rendered with promptkit's strict checks —
// missing, extra and invalid variables are errors, with a did-you-mean.
// The flow is traced, shows in the Developer UI and runs from its JSON
// input like any action; its messages go to any model with
// ai.WithMessages. It is a module of its own, so promptkit does not
// depend on Genkit.
//
//	flow, err := genkitprompt.Define(g, m, "support")
//	msgs, err := flow.Run(ctx, genkitprompt.Vars{"product": "麦麦", "question": "怎么退货？"})
//	resp, err := genkit.Generate(ctx, g, ai.WithModelName("googleai/gemini-2.5-flash"), ai.WithMessages(msgs...))
//
// # Why a flow and not ai.DefinePrompt
//
// Genkit's own prompts (DefinePrompt with WithMessagesFn) run the text of
// every message they are given through its Dotprompt engine again, as a
// Handlebars template whose output may start new messages: a value that
// holds "{{" or a role marker would be read as template syntax and could
// add or re-role a message — what promptkit rules out by collecting
// messages as the template runs. A flow hands Genkit the messages as
// promptkit rendered them, untouched.
//
// # Messages
//
// A chat block becomes a message of its role (system, user; an assistant's
// is Genkit's "model"); a text template one user message of its trimmed
// text — manager.RenderMessages' messages. Text parts are text parts; an
// image is a media part with its URL as given (http(s) or data:) and, for
// a data: URL, its content type. What else a message holds (tool calls,
// reasoning, a cache mark, a detail) is an error naming it, never dropped.
//
// # Input
//
// Vars is the variables as a JSON object; read from JSON (the Developer
// UI, RunJSON) its numbers keep their form as manager.DecodeJSON reads
// them, so 30 renders "30" and 1.5 "1.5".
package genkitprompt
