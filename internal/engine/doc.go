// Package engine runs checked Jinja programs: it is the one package of
// promptkit that imports pongo2, which executes every template.
//
// The compiler (compile.go) turns a jinja.Program into a pongo2 template
// made of promptkit's own tags (tags.go) around the template's text, and
// the constructs those tags run: statements (stmts.go, call.go) and
// expressions compiled once into evaluator trees (eval.go) over slots, so
// a render looks nothing up by name and calls nothing by reflection.
// Values (value.go, host.go) are Python's — None, booleans, integers that
// never wrap, floats printed as Python prints them (str.go), strings
// indexed by character, lists, tuples, dicts — with the host's data read
// in place and never called; ops.go holds their semantics. The builtins
// are tables, one file each: filters.go, tests.go, methods.go, globals.go,
// json.go (tojson); Catalog describes them to the front end's checks, so
// what a message lists is what runs.
//
// A render (render.go) runs on a pooled state that is pongo2's writer
// (state.go): output and memory budgets charged before each value is
// built, a work budget, the iteration and call-depth limits, and the
// render's context. The caller passes the variables by name (Render) or
// already looked up, in the order of Vars (RenderValues, what the
// manager's strict check hands over). The output is one buffer, sized
// from earlier renders and handed over as the result (output.go). Chat
// templates collect their messages as they run (chat.go), never by
// parsing rendered text.
package engine
