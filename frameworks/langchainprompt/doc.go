// Package langchainprompt makes a template of a promptkit set a
// LangChainGo prompt (github.com/tmc/langchaingo): a Template is a
// prompts.FormatPrompter (what chains.NewLLMChain takes), a
// prompts.MessageFormatter and a prompts.Formatter, which render with
// promptkit's strict checks — missing, extra and invalid variables are
// errors, with a did-you-mean — instead of LangChainGo's own template
// engines. It is a module of its own, so promptkit does not depend on
// LangChainGo.
//
//	tmpl, err := langchainprompt.New(m, "title")
//	chain := chains.NewLLMChain(llm, tmpl)
//	out, err := chains.Call(ctx, chain, map[string]any{"intent": "查询明天北京的天气"})
//
// # What each method gives
//
//   - FormatMessages: the messages manager.RenderMessages gives, as
//     LangChainGo's text chat messages (SystemChatMessage,
//     HumanChatMessage, AIChatMessage); a text template is one human
//     message of its trimmed text.
//   - FormatMessageContents: the same messages as llms.MessageContent,
//     what llms.Model.GenerateContent takes, images included (an
//     ImageURLContent with the URL — http(s) or data: — and its detail).
//     A ChatMessage holds text only, so FormatMessages refuses a message
//     with an image and names FormatMessageContents.
//   - FormatPrompt: for a text template the prompt exactly as
//     manager.Render gives it (prompts.StringPromptValue, as LangChainGo's
//     own PromptTemplate returns); for a chat template its messages
//     (prompts.ChatPromptValue, whose String is LangChainGo's
//     "system: …\nHuman: …" buffer, what an LLMChain sends).
//   - Format: the text template's prompt exactly; a chat template is an
//     error wrapping manager.ErrChatTemplate.
//   - GetInputVariables: the template's required variables, in index.json's
//     order (a chain refuses a call without every input variable; the
//     optional ones may be passed too).
//
// The template's set may reload under it: each call renders the set
// serving at that moment.
package langchainprompt
