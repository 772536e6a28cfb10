// Package promptkit keeps the prompts of an LLM program in reviewed
// template files and assembles them, strictly and safely, into what a model
// receives. This root package only carries the default template set
// (FS); the work is done by the packages below it:
//
//   - manager: loads index.json and the templates of a set, checks the
//     whole set, renders strictly (text or chat messages), hot-reloads;
//   - message: the chat message type every package shares;
//   - builders: one Builder per prompt scene, checking its data and
//     XML-escaping untrusted values;
//   - service: the registry of builders that plugin hosts inject and
//     build by name;
//   - rag: assembles a retrieval-augmented answer's messages from
//     knowledge-base chunks, tool results and history;
//   - contextstack: typed, prioritised layers that assemble the system
//     prompt, tools and documents of every model call;
//   - server: the HTTP API (promptkit serve) for hosts in any language, and
//     the live preview page for template authors;
//   - fleet: template sets as OCI artifacts (push, pull, tag, history)
//     and hosts that follow a registry label;
//   - lint: finds prompt text written inline in Go source;
//   - internal/jinja: the Jinja front end (lexer, parser, syntax tree, the
//     checks and their diagnostics), which knows nothing of the engine;
//   - internal/engine: the runtime behind the one door to pongo2: values,
//     filters, tests, methods and the tags pongo2 executes;
//   - internal/watch: the debounced trigger over file-system events (with
//     polling) that hot reload waits on;
//   - internal/strictjson: strict decoding of builder data that names the
//     path of a bad field;
//   - internal/registrytest: a real OCI registry for tests;
//   - internal/jinjaoracle: Python's Jinja2 as the oracle of the
//     differential tests and their fuzz target;
//   - cmd/promptkit: the CLI for template authors and CI.
package promptkit

import (
	"embed"
	"io/fs"
)

//go:embed index.json templates
var defaultSet embed.FS

// FS returns the default template set: index.json at its root and the
// templates it declares. Pass it to manager.New.
func FS() fs.FS { return defaultSet }
