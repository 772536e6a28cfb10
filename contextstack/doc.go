// Package contextstack assembles what a model receives on every call — the
// system prompt, the tools and the documents — from typed, prioritised,
// immutable layers, instead of from concatenated strings.
//
// Each piece of context is a [Layer]: its content (which decides its
// type), the source that added it ("platform", "skill:git", "citations"…)
// and a priority. Layers stack up in a [Stack]; before each model call the
// stack is projected into a [Request]: prompt layers render, in priority
// order, into the system prompt; tool-definition layers become the tool
// list; document layers become the documents. The stack is the truth, the
// request a snapshot derived from it.
//
// # Trust model
//
// A stack places text verbatim. Instructions, runtime instructions,
// context prompts, skill bodies and tool instructions are written by the
// host, its users or its skill authors, and go into the system prompt as
// they are; the wording this package adds around them (the skill
// catalog's list, a skill body's framing) comes from templates rendered
// through a [Renderer], normally a *manager.Manager — never from Go code.
// Nothing is escaped: text that comes from outside (retrieved passages,
// user messages, tool results) belongs in state layers and messages,
// which never reach the system prompt through this package. A host that
// must put untrusted text into a prompt layer escapes it first, with
// builders.EscapeXML.
//
// # Example
//
// Assemble a stack from the incoming request, add what the turn brought,
// and derive the request for the next call:
//
//	m, err := manager.New(promptkit.FS())
//	if err != nil { … }
//	stack, err := contextstack.From(contextstack.FromRequest(req)).
//		Document("citations", passage).
//		ActivatedSkill("skill:git", gitSkill, gitInstructions).
//		Build()
//	if err != nil { … } // e.g. a *ToolNameConflictError
//	next, err := stack.DeriveRequest(req, m)
//	// next.System: the instructions, then the skill; next.Documents: the
//	// request's documents, then passage.
//
// The Example functions of this package run it with the default template
// set.
//
// # Layers
//
// Prompt layers render text into the system prompt. Their types and
// default priorities (smaller renders earlier):
//
//	UserInstructions     100  the baseline instructions, passed through
//	RuntimeInstructions  200  a temporary instruction, passed through
//	SkillCatalog         300  skills that can be loaded (TemplateSkillCatalog)
//	SkillBody            400  an activated skill's instructions (TemplateSkillBody)
//	ToolInstructions     450  how to use one tool (TemplateToolInstructions)
//	ContextPrompt        600  an already rendered paragraph, passed through
//
// State layers never render; the program reads them: [ToolDefinitions]
// ([Stack.AllTools]), [Document] ([Stack.AllDocuments]) and
// [ContentBundles] ([Stack.AllBundles]). A layer's Priority overrides its
// type's default; 0 means the default.
//
// # The system prompt
//
// [Stack.SystemPrompt] renders the prompt layers sorted by priority; layers
// of equal priority keep their order in the stack, so the result is always
// the same for the same stack. A layer whose render is blank (an empty
// catalog, whitespace instructions) is dropped. The result is a list of
// [Block] values, each naming its layer's type and source;
// [Stack.SystemPromptText] joins them with [BlockSeparator]. A render that
// fails is a *[RenderError] that unwraps to the renderer's error, so
// errors.Is(err, manager.ErrMissingVariables) works through it.
//
// # Immutability
//
// [Stack.Append], [Stack.Insert], [Stack.RemoveType] and
// [Stack.RemoveSource] return a new stack and leave the old one as it was,
// so every turn of a loop can keep its own snapshot. A stack deep-copies
// the layers it is given and its readers return copies, so nothing a
// caller holds can change it.
//
// # Building and tool name conflicts
//
// A [Builder] collects layers with a fluent API and [Builder.Build]
// freezes them after [Stack.Validate]: two tools with one name — in two
// layers or twice in one — is a *[ToolNameConflictError] with the stable
// code TOOL_NAME_CONFLICT, the name and both sources. A model shown two
// tools with one name cannot be routed reliably, so this is an assembly
// error, not something to discover at call time. [Stack.AllTools] still
// deduplicates (first wins) for stacks that were never validated.
//
// # Tool choice
//
// Which tools exist is the stack's business; which of them a turn offers
// is the request's [ToolChoice]: [Auto] and [Any] offer every tool,
// [ChooseTools] with one name offers that tool, with several those tools,
// always in stack order. [Stack.SelectTools] validates before it filters,
// so a conflict is reported even if the choice would hide one side.
//
// # Requests
//
// [FromRequest] turns an incoming request into the first stack of a run.
// [Stack.DeriveRequest] makes the request for each model call: the system
// prompt rendered afresh, the chosen tools, the documents and bundles, and
// the history without any system message, so no stale system text
// survives from an earlier turn. The request is stamped with the time of
// a [Clock]; tests pass [WithClock] and [FixedClock].
//
// # Token budgets
//
// Assembling takes every layer, always. A host with a token budget opts
// in: [Stack.Fit] returns the stack without the layers it must drop for
// the system prompt and the documents to fit a [Budget] (N tokens, a
// [Counter] such as a *tokens.Tokenizer), and what it dropped. Prompt
// layers and documents may be dropped, the highest effective priority
// first — documents (StatePriority) before context prompts, tool
// instructions, skills and runtime instructions — of equal priorities the
// later in the stack first; UserInstructions, tools and bundles never
// are. A layer's Priority pins it: a document at priority 50 outlives
// every default prompt layer. It drops the fewest layers in that order;
// a stack that fits comes back as it was, and one that cannot fit is an
// *[OverBudgetError]. DeriveRequest on the fitted stack then makes the
// request.
//
// # Serialization
//
// Stacks and layers round-trip through JSON losslessly: a layer is one
// object whose "type" picks its kind, beside "source", "priority" and the
// content's fields. Decoding is strict — an unknown type or field is an
// error naming the layer. [EncodeToolSpecs] and [DecodeToolSpecs] carry
// tool specs alone (name, type, description, input_schema); decoding is
// lenient and also reads OpenAI's {"type": "function", "function": {…}}
// form, the bare {name, description, parameters} form and a list under
// "tools".
//
// # Tool descriptions
//
// A tool's description is read by the model, its input schema by the
// function-calling machinery. The description says when and why to use
// the tool, what it returns and how it fails; it does not repeat the
// schema's parameters and does not describe implementation (the API it
// calls, the table it reads). [LintTools] checks that; the command
// "promptkit lint-tools FILE.json" runs it over a file of tool specs in
// any of the forms DecodeToolSpecs reads.
//
// # Concurrency
//
// A Stack is immutable and safe for concurrent use; render one stack from
// many goroutines if the Renderer allows it (a *manager.Manager does). A
// Builder is not safe for concurrent use.
package contextstack
