// Package engine compiles checked Jinja programs and runs them: it is
// promptkit's own engine, with Python's values and Jinja's semantics.
//
// How a template flows from source to output:
//
//  1. internal/jinja lexes, parses and checks the source into a
//     jinja.Program: the tree, every name resolved to a slot of a frame.
//  2. Compile (compile.go) turns the program into a Template, once, at
//     load: statements become nodes (exec.go, stmts.go, call.go),
//     expressions evaluator trees over slots (eval.go), runs of text and
//     outputs one print node each. Nothing of a Template changes after.
//  3. A render (render.go) takes a pooled state (state.go), binds the
//     variables to their slots and runs the root body: each node's exec
//     reads its compiled fields, evaluates its expressions and writes to
//     the state's output (output.go) or the chat sink (chat.go). A
//     printed filter with a print form (printed.go) writes its result
//     there directly instead of building it.
//  4. break and continue return a flow to their loop; an error unwinds
//     the render as a failure, which Template.run turns into an *Error
//     with the file, line and column of the construct that failed.
//
// Values (value.go, host.go) are Python's — None, booleans, integers that
// never wrap, floats printed as Python prints them (str.go), strings
// indexed by character, lists, tuples, dicts — with the host's data read
// in place and never called; ops.go holds their semantics. The builtins
// are tables, one file each: filters.go, tests.go, methods.go, globals.go,
// json.go (tojson), made when first used; Catalog describes them to the
// front end's checks, so what a message lists is what runs. jsondecode.go reads JSON into values
// in one pass (DecodeJSON), as Python's json.loads reads it.
//
// A render's state carries its budgets (output, memory charged before
// each value is built, work, iterations, call depth) and its context.
// Macros, call blocks, loops and blocks keep their per-render parts
// (closures, loop objects, activations) in the state or in values the
// render makes, so any number of goroutines render one Template at once.
package engine
