// Package mcpserver serves a promptkit template set over the Model Context
// Protocol, where agents and IDEs look for prompts: every template of the
// set is an MCP prompt, prompts/get renders it with promptkit's strict
// checks, and the set's reloads reach every client as
// notifications/prompts/list_changed. It is built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). "promptkit serve --mcp" runs it
// over stdio, or over streamable HTTP with --addr.
//
// # Example
//
//	m, err := manager.Open("prompts", manager.WithWatch())
//	if err != nil {
//		return err // every problem of the set, one a line
//	}
//	defer m.Close()
//	s, err := mcpserver.New(m)
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	return s.Run(ctx, &mcp.StdioTransport{}) // or s.Serve(ctx, ln): streamable HTTP at /mcp
//
// RunIO serves a process's standard input and output as the CLI does:
// when the input ends, the requests already read are answered first, so a
// client may write its requests and close its end, as a shell pipe does
// (the SDK's own stdio transport drops them).
//
// A host that follows a registry label passes fleet's f.Manager(): each
// update the follower swaps in is a reload of that manager, and so a
// list_changed. MCP returns the SDK's server, for a host that adds tools
// or resources of its own or runs it on another transport; Handler is the
// streamable HTTP transport for a mux of the host's own.
//
// # Prompts and arguments
//
// A prompt is a template: its name, its description, and an argument for
// each variable in index.json's order, required as the variable is. MCP
// arguments are strings and carry no schema, so an argument's description
// says, after the variable's own description, how its value is written:
// the values its schema lists ("One of: 亲切, 正式."), "Written as JSON: an
// integer." where the schema takes no string, the default, and the JSON
// Schema as index.json writes it. The text of an argument is the value
// itself for an untyped variable or one whose schema allows a string, and
// is read as JSON otherwise (manager.TextForm): "7" is the integer 7 for
// {"type": "integer"}, and the string "7" for a variable without a schema.
// A client leaves an optional argument out to leave the variable
// undefined (or at its default); an empty string is a value.
//
// # prompts/get
//
// The arguments are checked against the template's variables first, and
// every problem is reported at once in one error: the required ones
// missing, the ones the template does not declare — each with the
// variable it may misspell, by promptkit's one did-you-mean rule —, and
// those whose text is not the JSON their schema wants. The values then go
// to manager.RenderMessagesContext, with every check of a render: a value
// against its schema, the render's budgets, raise_exception. Errors are
// JSON-RPC errors whose message is one line and whose data is a Problem:
//
//	-32602 prompt "title": missing argument: intent; unknown argument "intnet": did you mean "intent"?
//	       {"kind": "missing_variables", "template": "title", "missing": ["intent"], "unknown": ["intnet"], "did_you_mean": {"intnet": "intent"}, …}
//	-32602 templates/digest.md: template "digest": invalid variables: days: maximum: got 90, want 30
//	-32602 unknown prompt "titel"; did you mean "title"?
//
// The request's problems are -32602 (invalid params, as MCP asks); a
// render that fails otherwise, runs out of a budget or finds the server
// overloaded (WithMaxRenders) is -32603.
//
// # Messages
//
// A chat template's blocks become prompt messages in order, a text
// template one user message of its trimmed text — what
// manager.RenderMessages gives, turned by Messages. MCP prompt messages
// have two roles, user and assistant, and one content each: a message of
// text and images becomes one prompt message per part, with its role; a
// system block becomes user messages whose contents carry
// {"promptkit/role": "system"} in _meta (MetaRole), its text unchanged. A
// client puts a prompt into a conversation as the user's turns, so the
// system prompt reaches the model as the first of them; a client that
// reads the key can make it its system prompt instead. An image in a data:
// URL is image content; one at an http(s) URL is a resource link to it
// (image content holds bytes, and promptkit never fetches a URL).
//
// # Completion
//
// completion/complete offers, for a prompt's argument, the values its
// variable's schema lists (an enum, a const, through $ref, allOf, anyOf and
// oneOf), written as the argument takes them, those that begin with what
// the client typed first.
//
// # Reloads
//
// Each successful reload of the manager registers the set's templates
// again (those gone are removed) and the SDK sends every session one
// notifications/prompts/list_changed — also when only a template's text
// changed, since what the prompt gives did. A reload that fails changes
// nothing and notifies no one: the last good set keeps serving.
//
// # Security
//
// Over HTTP the transport refuses a request that reached a loopback
// address with a Host header that is not a loopback name (DNS rebinding),
// a browser's cross-origin request, a body over MaxBodyBytes, and — with
// WithToken — a request without the bearer token. Connections have header
// and idle timeouts; idle sessions end after SessionIdle. Each render is
// bounded by the manager's budgets and at most WithMaxRenders run at once.
// Serve listens where it is told: "promptkit serve --mcp --addr" keeps to
// loopback unless given another address, as the HTTP API does.
//
// # Concurrency
//
// A Server is safe for concurrent use: renders read the manager's
// immutable snapshot; registrations after a reload are serialized.
package mcpserver
