// Package builders turns what a host knows — the current task and the
// named arguments of a call — into prompts, one Builder per prompt scene.
//
// A builder never holds prompt wording. It reads and checks its values,
// escapes them, and renders its template through a Renderer (in practice a
// *manager.Manager), with the typed API generated for the default set
// (package prompts): a variable a builder misspells, or a value of the
// wrong type, does not compile, and the values are validated against the
// variables' schemas when they render. The template does all the wording,
// down to a placeholder or a list bullet, with loops and conditions.
// Builders are
// normally used through the service package, which dispatches by name to
// the builders a host registers: the seven of Defaults (with
// service.WithDefaultBuilders), or builders of the host's own. One can
// also be used alone:
//
//	m, _ := manager.New(promptkit.FS())
//	b := builders.NewAgentSystem(m, "Mai")
//	prompt, err := b.Build(builders.NewContext(
//		builders.Task{ID: "t-1", Title: "Weather", Intent: "Tomorrow's weather in Beijing"},
//		nil,
//	))
//
// # Trust model
//
// Every string a builder passes to its template comes from a user, a task,
// a tool or the host's configuration, and lands inside an XML-like tag or
// attribute (<intent>…</intent>, <task id="…">). Builders escape every such
// string with EscapeXML before rendering, so a value can never close the
// tag around it, forge a new one or break out of an attribute; templates
// render with autoescaping off, so nothing is escaped twice. Each builder's
// doc comment lists the fields it escapes.
//
// EscapeXML also turns every character that is invisible or that moves
// other text — NUL and the other control characters but tab, line feed and
// carriage return, the bidirectional overrides and isolates, zero-width
// and other format characters — into a visible character reference such as
// &#x202E;, so a value cannot hide words from a reviewer or reorder what
// the model reads. Escaping keeps the value whole and reversible, where
// dropping a character could join two words and U+FFFD would lose which
// character it was; bytes that are not UTF-8 become U+FFFD.
//
// # Strict data
//
// A builder declares the data keys it reads (Keys). A key it does not read
// is an error that names the key and the builder (ErrUnknownKey), so a typo
// such as bot_nmae never silently falls back to a default. A value of the
// wrong type or shape is ErrInvalidValue; a required value that is absent
// or empty is ErrMissingValue. Every error is an *Error naming the builder
// and the key; a failed render wraps the renderer's error (ErrRender), so
// errors.Is still finds the manager's sentinels.
//
// # The build context
//
// A Context is immutable: NewContext deep-copies the data, and Value hands
// out copies, so a builder cannot change what the caller passed and two
// concurrent builds share no mutable state. Builders themselves hold only
// configuration and are safe for concurrent use.
//
// # The default builders
//
//	agent_system     the agent loop's system prompt (task title, intent, bot name)
//	title            ask for a task title of at most 15 characters
//	polish           rewrite a task result in the bot's voice (chat, jargon, persona)
//	planner_board    the planner's task board ("" when there is no task)
//	injection        an instruction added while a task runs, as a system message
//	context_note     why the bot sent a message: sent-message, task-reply, task-waiting-input
//	subagent_system  a sub-agent's system prompt (intent, tools, bot name)
//
// # Adding a scene
//
// Write the template and its index.json entry. Write a type with Name,
// Template, Keys and Build whose Build calls CheckKeys, escapes every
// string with EscapeXML and renders through a Renderer. Register it with
// service.WithBuilders, and add its golden file under testdata/golden
// (go test ./builders -update writes it).
package builders
