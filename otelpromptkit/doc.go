// Package otelpromptkit traces promptkit with OpenTelemetry: an Observer
// for manager.WithObserver that records one span per render and per
// reload, so every answer a model gave can be traced back to the exact
// template and set that made its prompt.
//
// It is a module of its own, so promptkit itself never depends on
// OpenTelemetry: a host that does not trace does not link it.
//
// # Example
//
//	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
//	m, err := manager.Open("prompts", manager.WithObserver(otelpromptkit.New(otelpromptkit.WithTracerProvider(tp))))
//
// or, for hosts that follow a registry label:
//
//	f, err := fleet.Follow(ctx, ref, fleet.WithManagerOptions(manager.WithObserver(otelpromptkit.New())))
//
// # Spans
//
// A render is a span named "promptkit.render", timed by the manager
// (start = end − duration), with
//
//	gen_ai.prompt.name         the template's name (OpenTelemetry's GenAI conventions)
//	promptkit.template.hash    the template's hash (its source and includes)
//	promptkit.set.digest       the set's digest (manager.Manager.Digest)
//	promptkit.set.generation   the set's generation on this host
//	promptkit.render.bytes     the output's size
//	promptkit.render.messages  true for RenderMessages
//
// and, when the render failed, status Error with the error's message and
// error.type set to its kind (manager.ErrorKind: "missing_variables",
// "unknown_template", …). A reload attempt is a span named
// "promptkit.reload" with the digest, generation, template count and
// trigger, and the same error convention.
//
// Spans are roots: the manager's observer sees no context.Context, so a
// render span cannot yet be the child of the request that asked for it;
// correlate by time, template and digest.
package otelpromptkit
