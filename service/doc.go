// Package service is the PromptService: the one place a plugin host builds
// prompts by name.
//
// A host creates one manager and one service when it starts, injects the
// service into everything that needs prompts, and builds by name; callers
// never see builders or templates:
//
//	m, err := manager.New(promptkit.FS()) // or manager.Open(dir)
//	if err != nil { … }
//	svc, err := service.New(m, service.WithBotName("Mai"))
//	if err != nil { … }
//	prompt, err := svc.Build("agent_system", task, nil)
//
// New registers the seven default builders of package builders, plus any
// given with WithBuilders, and checks that the manager holds the template
// of every one; two builders with one name are an error (ErrDuplicateBuilder),
// never a silent override.
//
// # Errors
//
// Build returns ErrUnknownBuilder, naming the known builders, for a name it
// does not know. Every other error names the builder: a *builders.Error
// from the builders of package builders, or the error of another builder
// wrapped with its name. Wrapping keeps errors.Is and errors.As working all
// the way down, so a host can test for builders.ErrUnknownKey or
// manager.ErrMissingVariables through the service.
//
// # Concurrency
//
// A Service is immutable once New returns and safe for concurrent use; each
// Build makes its own builders.Context, so concurrent builds share nothing
// mutable.
package service
