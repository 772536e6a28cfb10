// Package server serves a promptkit template set over HTTP, for hosts that
// are not written in Go, and a live preview page for template authors.
//
// A Python, TypeScript or Java service asks the server for a prompt and
// gets exactly the bytes a Go host gets from manager.Render: the same
// strict checks, the same errors, the same set, named by its digest on
// every response. The preview page shows an author every prompt as the
// model will see it, rendered by the server, with the set's problems beside
// the lines they are about, and follows every edit on disk.
//
// # Example
//
//	s, err := server.New(server.Dir("prompts"), server.WithPreview())
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	ln, err := net.Listen("tcp", "127.0.0.1:8080")
//	if err != nil {
//		return err
//	}
//	return s.Serve(ctx, ln) // until ctx ends, then a graceful shutdown
//
// A Server is an http.Handler too, for tests (httptest) or a mux of the
// host's own; Serve adds the timeouts, the loopback host check and the
// graceful shutdown. cmd/promptkit's "serve" is a flag parser around these
// three calls.
//
// # Endpoints
//
//	GET  /v1/templates                  {"digest", "generation", "templates": [{name, path, description, hash, variables: [{name, required, has_default, default, description, schema}], contract}]}
//	GET  /v1/templates/{name}           one template's declaration, with its call contract (model, tools, output, cache) when it has one
//	GET  /v1/schemas/{path}             a schema file a variable's schema $refs (relative to the set's root), application/schema+json
//	POST /v1/templates/{name}:render    body: a JSON object of variables (empty: none) → the prompt, text/plain, exactly
//	POST /v1/templates/{name}:messages  the same body → the chat messages, as manager.Message marshals them
//	POST /v1/templates/{name}:request   the same body → the provider-neutral request of the template's call contract (message.Request's JSON)
//	POST …:request?provider=NAME        the same, as the provider's SDK sends it (WithProvider; promptkit serve has none)
//	POST …:render?tokens=NAME           the same, with the prompt's token count in Promptkit-Tokens (and Promptkit-Tokenizer: NAME); on :messages, of the messages' text
//	POST …:render?budget=N              within N tokens (counted with ?tokens=NAME or the contract model's encoding): the prompt that fits, its count in Promptkit-Tokens, each cut in a Promptkit-Cut header; 422 over_budget when it cannot fit; on :messages too
//	GET  /v1/tokenizers                 {"tokenizers": [names ?tokens= takes: OpenAI's encodings, and those added with WithTokenizer]}
//	GET  /v1/builders                   {"builders": [{name, template, keys}]}
//	POST /v1/builders/{name}:build      body: {"task": {"id", "title", "intent"}, "data": {…}} → the prompt (a message builder's: its messages as JSON)
//	GET  /v1/status                     the Status of the set: serving, ok, generation, digest, templates, trigger, time, problems
//	GET  /v1/events                     server-sent events: a "status" event now and after every load attempt
//	GET  /healthz                       {"status": "ok"|"degraded"|"unavailable", "generation", "digest", "time", "last_error"}
//	GET  /metrics                       Prometheus text format
//
// A typed variable's "schema" is its JSON Schema as index.json writes it;
// a $ref to a file resolves against the set's root (inside a schema file,
// against that file), and /v1/schemas/ serves exactly the files the
// schemas reference, so that a client can validate before it calls.
//
// With WithPreview: GET / (the page, with /preview/ assets),
// GET /v1/files/{path} (a file the set uses, for the page's source pane),
// GET /v1/fixtures (the set's fixtures and their inputs: the page's saved
// samples), GET /v1/fixtures/diff (every fixture rendered at the last two
// generations, compared) and, with WithFixtureWrites too, POST
// /v1/fixtures (the form saved as a new fixture).
//
// :request's ?provider needs the provider's SDK, which this module does
// not depend on: a server converts for the providers WithProvider gives it
// (the providers module's adapters: openaichat.Request,
// anthropicmsg.Request), and answers 400 "unknown_provider" for another.
// The providers module's command promptkit-providers serves this API with
// both; promptkit serve answers the neutral request only.
//
// Numbers in variables keep their form: 30 renders "30", 1.5 renders
// "1.5" (manager.DecodeJSON); null is Python's None.
//
// # Errors
//
// Every error is a JSON Problem: kind, template, path, line, column,
// variables and message — the fields of a *manager.Error — and error, the
// whole line as the CLI prints it. Kinds are manager.ErrorKind's names
// ("missing_variables", …), the builders' ("unknown_key", "missing_value",
// "invalid_value", "invalid_kind", "unknown_builder", "no_evidence") and the
// request's ("bad_request", "request_too_large", "not_found",
// "method_not_allowed", "unauthorized", "host_not_allowed", "unavailable",
// "overloaded", "unknown_provider", "unsupported_by_provider"). Each kind
// has one status: 404 for an unknown template, builder or endpoint; 422 for
// variables and values (missing, extra, invalid, an output over the limit,
// a render-time template error, a raise_exception, a render past its
// deadline) and a request a provider cannot take; 409 for a chat template
// asked for text; 400 and 413 for a malformed or oversized body or an
// unknown provider; 503 while
// no set serves (with every problem of the set under "problems") and, with
// Retry-After, when too much is in flight ("overloaded", see Limits). A
// template problem is never a 500; only a bug is (a builder that
// panicked). An error quotes what it is about, never all of a large value:
// each text is at most MaxQuoteBytes and the variables at most
// MaxQuoteItems, what is cut replaced by a marker ("… [N more bytes cut]").
//
// # Headers
//
// Every response carries Promptkit-Digest and Promptkit-Generation, and a
// render Promptkit-Template-Hash. A render's headers name exactly the set
// that rendered it: when a reload swaps the set during the call, the call
// runs again on the new set.
//
// # Reloads and a set that does not load
//
// A Dir set is watched (manager.WithWatch): an edit reloads the whole set
// after the debounce, and a reload that fails keeps the last good set
// serving; the status (and /healthz's "degraded", the page's problem list)
// says why. A set that does not load when the server starts does not stop
// it: the server answers 503 with every problem, the page shows them beside
// their lines, and the directory is loaded again until it loads — an
// author can start the preview on a broken set and fix it there.
//
// # Security
//
// Request bodies are bounded (WithMaxBodyBytes), every connection has
// header, read, write and idle timeouts (WithTimeouts; the event stream
// moves its own write deadline forward with http.ResponseController), and
// Serve shuts down gracefully. The work in flight is bounded (WithLimits):
// connections open, renders running, the size of one response and the
// bytes of all responses being written, so that many slow clients at once
// get 503s with Retry-After instead of holding the host's memory. On a loopback listener only loopback Host
// names are served, against DNS rebinding. WithToken requires a bearer
// token on every request but /healthz; the preview page trades
// /?token=TOKEN for an HttpOnly, SameSite=Strict cookie. The token travels
// in clear text: beyond loopback, put a TLS-terminating, authenticating
// proxy in front. The page's files endpoint reads through an os.Root of the
// directory and serves only files the set uses; it and /v1/schemas read as
// the manager reads (manager.ReadSetFile): regular files only, opened
// non-blocking, so a FIFO or a device in the set is refused, not waited on. The page is served with a
// Content-Security-Policy that allows its own script and nothing else.
//
// # Concurrency
//
// A Server is safe for concurrent use; renders take no lock (the manager's
// snapshot is atomic) and the metrics observer only adds atomically.
package server
