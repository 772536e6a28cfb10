// Package manager loads a promptkit template set and renders its templates
// strictly, safely and fast.
//
// A template set is a directory (or any fs.FS) with index.json at its root
// and the templates it declares. Templates are written in Jinja2 syntax and
// render as Python's Jinja2 renders them: promptkit parses the Jinja source
// itself, checks it, and compiles it for its own engine, which gives every
// construct Python's semantics.
//
// # Trust model
//
// Template authors are trusted to write prompts, not to read the host's
// files or to crash it: a set is a closed world (no file outside its root,
// by any path or symlink; no tag that reads arbitrary files or keeps state
// between renders; no unbounded recursion; output and loop iterations are
// bounded). Variable values are never trusted: they are data, printed as
// they are, never parsed as template code and never HTML-escaped. Escaping
// for the prompt's own markup (XML-like tags) is the caller's job; package
// builders does it.
//
// # Example
//
//	m, err := manager.Open("prompts") // or manager.New(promptkit.FS())
//	if err != nil {
//		log.Fatal(err) // every problem of the set, one a line
//	}
//	out, err := m.Render("title", map[string]any{"intent": "查询明天的天气"})
//	switch {
//	case errors.Is(err, manager.ErrMissingVariables): // a required variable was not passed
//	case errors.Is(err, manager.ErrExtraVariables): // a passed variable is not declared
//	case errors.Is(err, manager.ErrUnknownTemplate):
//	}
//
// # index.json
//
//	{"version": 1,
//	 "templates": {
//	   "title": {"path": "templates/title.md", "description": "…", "variables": ["intent"]},
//	   "faq":   {"path": "templates/faq.md", "variables": ["question",
//	             {"name": "tone", "required": false, "default": "正式", "description": "…"}]}}}
//
// A variable is a bare name (required) or an object with name, required
// (default true), default (only for optional variables) and description.
// Names are identifiers; loop, range and Jinja's keywords are reserved. Unknown keys, duplicate names and
// paths that are empty, absolute or contain ".." are errors naming the
// entry. An entry may also declare its call ("Call contracts") and a token
// budget ("Token budgets").
//
// # Strictness
//
// Loading compiles and checks the whole set; a set with any problem is
// refused with a *LoadError listing every problem as path:line:col: message.
// A template that references a name its entry does not declare is refused
// (ErrUndeclaredVariable), in every branch, whether or not a render would
// take it; loop variables, set and with locals are not variables of the
// entry. At render, a required variable not passed is ErrMissingVariables,
// a passed variable that is not declared is ErrExtraVariables; both name
// every variable, sorted, and both at once are one error matching both.
//
// Undefined values are strict, as Jinja2's StrictUndefined: a missing key,
// attribute or item, or an optional variable not passed that has no
// default, may be asked about — "is defined", default(…), in, .get — and
// using it (printing, iterating, testing its truth, comparing,
// concatenating, giving it to another filter) is ErrUndefined, naming the
// expression as written, what the value it looked into is and a
// suggestion (Error.Expr, Error.Value, Error.Suggestion). "undefined":
// "lenient" in index.json (for the set or one entry) keeps Jinja2's
// default Undefined instead; chat templates of models are lenient, as
// transformers renders them. Manager.UnguardedReads lists where a strict
// template reads an optional variable without a default unguarded. A
// value passed as nil is Python's None (printed "None"); a
// json.RawMessage is its JSON, objects keeping the order of their keys.
// Manager.Unused lists declared variables a template never uses.
//
// # Typed variables
//
// A variable of index.json may carry a JSON Schema (draft 2020-12), inline
// or {"$ref": "schemas/user.json"} to a file of the set, read through the
// same sandbox as templates and counted in the set's digest:
//
//	{"name": "user", "schema": {"type": "object", "required": ["name"],
//	  "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}}
//
// Each schema is compiled once, when the set loads, and every use of the
// variable is checked against it in every branch — through set and with
// locals, loop variables, macro arguments and included files: a path the
// schema does not have (user.nmae), an index of what is not a list, a
// filter, test, method or operator the schema's type does not take. Each
// is an ErrSchema problem naming the position, the variable, the path and
// the closest property name. An object schema that declares properties has
// only those for these checks unless additionalProperties or
// patternProperties allows others. A variable without a schema keeps the
// rules above and costs a render nothing more.
//
// At render, every passed value of a typed variable is validated (after
// the missing and extra checks) as encoding/json would encode it; a
// mismatch is ErrInvalidVariables naming every offending path, sorted:
//
//	templates/card.md: template "card": invalid variables: user.tags[2]: want string, got number
//
// Validation runs under the render's context and work budget: what the
// schema library would do is counted and charged before it starts, so a
// value beyond the budget is ErrOutputLimit (and one past the deadline
// ErrCanceled), never a validation that runs on. A schema whose shape
// would make the count large — nested anyOf, oneOf or allOf over the
// same subschemas, a $ref cycle at one place of the value, a long or
// complex pattern — is refused at load (internal/schema's shape limits).
//
// Variable.Schema gives the schema as index.json writes it; promptkit gen
// (package gen) turns the schemas into a typed Go API. TextForm tells a
// caller that holds only text (an MCP client's prompt arguments, a form)
// how text stands for a variable's value — as it is, or as JSON where the
// schema takes no string — and the values its schema lists.
//
// # Call contracts
//
// Beside its variables, an entry may declare the call its template is
// made for, each part optional, the large ones in files of the set:
//
//	"weather": {"path": "templates/weather.md", "variables": ["city"],
//	  "model":  {"name": "gpt-4o", "temperature": 0.2, "max_output_tokens": 512, "openai": {"presence_penalty": 0.5}},
//	  "tools":  [{"$ref": "tools/get_weather.json"}, {"name": "get_time", "description": "…", "parameters": {…}}],
//	  "output": {"$ref": "schemas/weather_answer.json"},
//	  "cache":  {"message": 0, "ttl": "1h"}}
//
// model holds message.Settings, provider-neutral (an unknown key is an
// error; a provider's own settings go under its key, passed through);
// tools are function tools {name, description, parameters, strict},
// inline or a {"$ref"} to a file of one tool or a list; output is the
// JSON Schema the answer must match; cache ends the cacheable prefix
// after a message (0-based). Loading checks all of it, every problem at
// once with file, line and column: the settings' table, the context
// stack's rules for tools (a name each, none twice, an object schema of
// parameters, lint-tools' description discipline), every schema
// compiled (ErrSchema), a tool_choice naming no tool, and a cache
// breakpoint whose prefix is not the same for every render: promptkit
// proves it over the checked template (no variable, no strftime_now, no
// condition or loop over either before it) or names the variable that
// breaks it (ErrContract). A contract's files are files of the set:
// the digest covers them.
//
// Template.Contract describes it; its schemas are bundled — the files
// their $refs name go inside them, under "$defs" — since a provider
// cannot read the set. Request renders a template into a
// message.Request (the messages of RenderMessages, with the cache mark
// on the breakpoint's message, and the contract), which the providers
// module turns into OpenAI's and Anthropic's SDK params; ValidateOutput
// holds a model's answer to the output schema, naming every offending
// path (ErrInvalidOutput).
//
// # Token budgets
//
// A template marks what a render within a token budget may cut, and in
// what order: {% shrink priority=N %}…{% endshrink %} blocks and
// {% chat … priority=N %} messages are dropped whole; the items of a loop
// marked {% for d in docs shrink priority=N drop="end" keep=K %} are cut
// one at a time from that end ("end" or "start"), K of them never.
// Lower priorities are cut first, and of equal priorities the mark that
// stands later in the template; priorities are literal integers, so the
// order is known at load. Without a budget a mark changes nothing: Render
// renders what Jinja2 renders for the template without its marks.
//
// RenderBudget and RenderMessagesBudget render within a Budget: N tokens,
// counted by Budget.Tokenizer, else the encoding Budget.Encoding names,
// else the encoding of the contract's model (tokens.ForModel). The result
// is the render of the shortest prefix of the cut order that fits,
// counted exactly (a cut loop iterates the shortened list, so loop.length
// and loop.last are those of what is printed), with what was cut
// (Budgeted.Cuts: each mark's kind, priority, file, line and column, the
// items cut); the same template, values and budget always give the same
// result. A messages render counts the messages' text parts, without the
// tokens a model's chat format adds. When even every cut leaves the
// render over the budget, the error is ErrOverBudget wrapping an
// *OverBudgetError: how many tokens it still needs, the budget, the
// tokenizer and the cuts made:
//
//	r, err := m.RenderBudget(ctx, "research", vars, manager.Budget{Tokens: 8000})
//	var over *manager.OverBudgetError
//	if errors.As(err, &over) { … over.Over() tokens too many … }
//
// An entry may declare a budget, {"budget": {"tokens": 8000, "encoding":
// "o200k_base"}} (without encoding, the contract model's), and loading
// proves that every render fits it after every cut its marks allow, or
// refuses the set with an ErrOverBudget problem: the worst case over the
// budget, with the variables that can overflow it and what each can add,
// or what leaves the worst case unbounded. The worst case is bounded in
// bytes over the checked template — fixed text by its length; a typed
// variable by its schema: a string by maxLength (4 bytes a character, the
// most UTF-8 takes; an invalid byte is one character and becomes U+FFFD,
// 3 bytes), an integer by minimum and maximum, a boolean, null, enum or
// const by its longest printed form; a loop by maxItems (a literal list's
// length, range's count); a branch by its longest branch; after every
// cut, a marked block or message prints nothing and a marked loop keeps
// K items. Bytes bound tokens because OpenAI's encodings are byte-level
// BPE: every token covers at least one byte, so n bytes are at most n
// tokens. The bound is conservative (English is about 4 bytes a token)
// and sound; a bound that summed the token counts of the pieces would not
// be, since tokens merge across the places where pieces meet. What the
// bound does not follow — a variable without a schema or without
// maxLength, a loop without maxItems, a macro call, an unknown filter, a
// local set twice — makes the budget unprovable, and that is a problem,
// not a warning: a declared budget is a claim the load proves.
//
// WithWorstCase has the load bound every template, budget or not, and
// WorstCase returns the bound (bytes, what each variable adds) or what
// leaves it unbounded; promptkit check --tokens prints them.
//
// # Supported syntax
//
// Jinja2 as Python's Jinja2 renders it: every statement (if, for with
// loop.* and loop filters, recursive loops, break and continue, set in
// all its forms, with, macro, call, filter blocks, include, import, from,
// extends and block with super(), raw), every expression and operator
// with Jinja's precedence (chained comparisons, tuples, dicts, "%"
// formatting), every built-in filter, test and global but those that
// would make a prompt non-reproducible (random, lipsum), and the methods
// of strings, dicts and lists that do not change a value. The README lists
// them from the runtime's own tables. The front end that parses and
// checks templates is internal/jinja; the engine that compiles and runs
// them is internal/engine.
//
// # Values
//
// A template reads the host's values as data, and never calls the host's
// code: maps are dicts (a Go map's keys iterate sorted), slices and arrays
// are lists, structs are objects whose attributes are their exported
// fields (named as encoding/json names them; unexported fields do not
// exist), pointers are their targets, nil is None; a struct implementing
// fmt.Stringer or encoding.TextMarshaler prints as its text, any other as
// the dict of its fields. Methods and function values are never called.
// DecodeJSON reads JSON as templates see it; integers beyond 64 bits are
// Python's ints of any size, never a rounded float.
//
// # Limits
//
// One render writes at most WithMaxOutputBytes (16 MiB by default), builds
// values of at most WithMaxMemory bytes in all (64 MiB; charged before each
// is built), runs at most WithMaxIterations loop iterations (one million)
// and WithMaxWork units of work (50 million), and nests macro calls and
// recursive loops at most WithMaxCallDepth deep (100); beyond any of them
// it stops with ErrOutputLimit naming the template, line and column.
// RenderContext and RenderMessagesContext stop at the context's end, and
// WithMaxRenderTime bounds every render (ErrCanceled). range() yields at
// most 100,000 items; tojson indents at most 64 spaces. At load, each file
// is a regular file of at most WithMaxFileBytes (16 MiB, checked before
// it is read), a template with its includes expanded is at most
// WithMaxInlined bytes of source (4 MiB), blocks nest at most 64 deep, one
// expression at most 64 levels, includes 32; cycles are refused. A panic
// while rendering is recovered and returned as an error naming the
// template.
//
// # Chat templates
//
// A template whose text sits in {% chat role="system" %}…{% endchat %}
// blocks renders to a list of messages with RenderMessages, one per block,
// in order (blocks may sit in loops and conditions). A role is a literal
// (system, user or assistant), or an expression that lists the roles it
// may take — {% chat role=turn.role allow=["user", "assistant"] %} — so a
// value never chooses a role the template does not name: one outside the
// list is an error at render, an expression without the list at load.
// Inside a block, {{ x | image }} adds an image part (an http(s) URL, a
// data:image URL or raw bytes). Messages are collected while the template
// runs, never parsed back out of text, so no value can add or end a
// message, nor give it a role beyond its block's allow list. A
// template without blocks renders to one user message; Render of a chat
// template is ErrChatTemplate. Message marshals to the JSON shape chat APIs
// accept.
//
// # Composition
//
// Partial binds some variables now and the rest later; WithFunc binds a
// variable to a Go function computed at render time; WithVarMapping maps a
// caller's names onto the template's. The strict rules apply to the union.
// Override replaces a template's source at run time after the same checks
// as a file; overrides survive reloads.
//
// # Hot reload
//
// Open(dir, WithWatch()) keeps the set live: any change under dir (editor
// renames, new directories, a Kubernetes ConfigMap's ..data swap, a queue
// overflow) triggers, after a quiet period (WithDebounce, 100 ms; at most
// WithMaxWait, 1 s), a reload that is checked whole before it replaces
// the live set in one atomic step. When the watcher can name the files
// that changed, only the templates those files feed are recompiled
// (ReloadEvent.Compiled counts them); otherwise the set is read whole. A
// file written in place is read only once it has stayed unchanged for
// WithSettle (1 s), a load whose files changed while it read them is done
// again, files that are not part of the set reload nothing, and a failed
// reload is retried when a chmod may have fixed it. A broken edit never
// goes live: the last good set keeps serving and LastError says why. Generation counts
// successful loads, Subscribe reports every attempt, Reload reloads on
// demand, WithPollInterval polls where inotify is unavailable, and Close
// stops the watcher.
//
// # Digest and observing
//
// Digest names the set serving: "sha256:" and the hex SHA-256 of a
// canonical listing of index.json and every file the set uses (sorted
// slash paths, each with its length and bytes), so the same files give the
// same digest in any directory, on any host, and one changed byte gives
// another. Every Template carries it as SetDigest, next to its own Hash,
// and every ReloadEvent names the digest serving after the attempt.
// WithObserver passes every render (template, hash, digest, generation,
// duration, bytes, error kind) and every reload attempt to an Observer,
// the hook for tracing and metrics; ErrorKind names an error's kind in
// words stable enough for metric labels.
//
// # Concurrency
//
// Load once, render from any number of goroutines: a Manager publishes an
// immutable snapshot of the set through an atomic pointer, and Render takes
// no lock. A compiled template is never written while it renders: all of
// a render's state (its output, variables, macros, loops) is the render's
// own. The package keeps no process-wide setting.
package manager
