// Package jinja is promptkit's Jinja front end: it reads template source
// into a syntax tree and checks it, and knows nothing of the engine that
// runs it, of files or of index.json.
//
//   - lex.go: the lexer, a state machine in the manner of text/template/parse
//     (one function per kind of token), applying Jinja's whitespace rules
//     (-, +, trim_blocks, lstrip_blocks) itself;
//   - parse.go: the parser, rule by rule Jinja's own (jinja2/parser.py), so
//     the same source makes the same tree; it reports every tag's first
//     problem, not just the file's;
//   - ast.go: the nodes, each with its position and a String that prints it
//     back as Jinja;
//   - walk.go: Children and Inspect, the one walker every pass uses;
//   - scope.go and check.go: the checks — every name resolved to a Symbol in
//     a Frame (the undeclared-variable rule), every filter, test, method and
//     global one the runtime's Catalog has, includes and imports resolved
//     through Config.Load without cycles and within the size limit;
//   - inherit.go: template inheritance (extends, block, super);
//   - chat.go: the structure of chat templates;
//   - diag.go: every problem the package reports, one function each.
//
// Positions are byte offsets (Pos); a Source turns one into a line and a
// column (in runes) when a message needs it.
//
//	tree, err := jinja.Parse("greet.md", "Hello {{ name }}!", jinja.Options{})
//	prog, err := jinja.Check(tree, &jinja.Config{Catalog: catalog, Declared: []string{"name"}})
package jinja
