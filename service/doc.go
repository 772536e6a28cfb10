// Package service is the PromptService: the one place a plugin host builds
// prompts by name.
//
// A host creates one manager and one service when it starts, injects the
// service into everything that needs prompts, and builds by name; callers
// never see builders or templates:
//
//	m, err := manager.New(promptkit.FS()) // the embedded default set
//	if err != nil { … }
//	svc, err := service.New(m, service.WithDefaultBuilders(), service.WithBotName("Mai"))
//	if err != nil { … }
//	prompt, err := svc.Build("agent_system", task, nil)
//
// # Which builders a service has
//
// A service has exactly the builders its options register; it has none
// of its own, so it works with any template set:
//
//   - WithDefaultBuilders registers the default builders (DefaultBuilders),
//     which render the templates of the default set: the seven scene
//     builders of package builders (agent_system, context_note, injection,
//     planner_board, polish, subagent_system, title) and rag_answer from
//     package rag. WithBotName and WithNotePrefix configure them.
//   - WithBuilders registers builders of the host's own, for a template set
//     of its own, or beside the defaults.
//
// A host with a set of its own registers only its own builders:
//
//	m, err := manager.Open("prompts") // a set of one's own
//	svc, err := service.New(m, service.WithBuilders(myBuilder))
//
// New checks that the manager holds every template every builder renders
// (builders.Templates), naming each one that is missing, and refuses two
// builders with one name (ErrDuplicateBuilder), never silently overriding
// one. A service without builders is ErrNoBuilders.
//
// # rag_answer
//
// The RAG answer builder is a default builder like the seven others: the
// service serves it under the name "rag_answer" exactly when it was
// registered, by WithDefaultBuilders or by WithBuilders(rag.New(m)), and
// then Build returns its messages as JSON and BuildMessages as values.
// The CLI ("promptkit builders", "promptkit build") serves every default
// builder whose templates the set holds, rag_answer included, and nothing
// else: it has no builders of a host's program.
//
// # Errors
//
// Build returns ErrUnknownBuilder, naming the known builders, for a name it
// does not know. Every other error names the builder: a *builders.Error
// from the default builders, or the error of another builder wrapped with
// its name. A builder that panics is ErrBuilderPanicked. Wrapping keeps
// errors.Is and errors.As working all the way down, so a host can test for
// builders.ErrUnknownKey, rag.ErrNoEvidence or manager.ErrMissingVariables
// through the service. New returns ErrInvalidOption for an invalid or
// contradictory option (WithBotName without WithDefaultBuilders), and
// UpdatePrompts ErrUnknownPrompt and ErrConflictingPrompts.
//
// # Concurrency
//
// A Service is immutable once New returns and safe for concurrent use; each
// Build makes its own builders.Context, so concurrent builds share nothing
// mutable.
package service
