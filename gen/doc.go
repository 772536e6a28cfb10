// Package gen generates the typed Go API of a template set: one struct of
// variables and one render function per template, so that a host which
// renders a template with a misspelled field or a value of the wrong type
// does not compile. promptkit gen is its command:
//
//	go run github.com/seed-e7d2830f/promptkit/cmd/promptkit gen --dir prompts --package prompts --out prompts/prompts.go
//
// and the host calls
//
//	out, err := prompts.RenderTitle(m, prompts.TitleVars{Intent: intent})
//
// where m is a *manager.Manager (any value with its Render method).
//
// # Types
//
// A variable's type comes from its JSON Schema (see "Typed variables" in
// package manager): string is string, integer int, number float64,
// boolean bool, an array []T, an object with properties a struct (named
// after the schema's title when it is a Go identifier, else after its
// file or $defs entry, else after the template and the variable), an
// object with only additionalProperties map[string]T. A variable without
// a schema, and a schema the generator cannot express as one Go type
// (anyOf, oneOf, several types), is any. A nullable scalar or struct
// ("type": ["string", "null"]) is a pointer.
//
// # Typed answers
//
// A template whose entry declares an output schema (its call contract's
// "output", see package manager) also gets the Go type of the answer and
// a decoder:
//
//	req, err := m.Request(ctx, "forecast", prompts.ForecastVars{City: "北京"}.Map())
//	… send it, read the model's answer …
//	ans, err := prompts.DecodeForecast(ctx, m, answer) // a prompts.Forecast
//
// DecodeForecast validates the answer against the schema first, through
// an OutputValidator (*manager.Manager's ValidateOutput: the set's
// limits, the schema the request carried), so an answer that does not
// match is an error naming the path of every mismatch
// ("answer.days[2].high: want number, got string"), never a struct with
// zero values where the model wrote something else; then it decodes the
// JSON into the type.
//
// # Optional values
//
// An optional variable is a pointer field: nil leaves the variable out of
// the render, so the template sees it undefined, or its declared default.
// An optional property of an object is a field tagged omitzero (a struct
// type also a pointer): its zero value is left out, as encoding/json
// leaves it out, and the template sees it undefined. A nil slice passed
// for a required array variable is passed as an empty list.
//
// # Names from the set
//
// A name from the set reaches the generated code in one of three forms
// only, so a template author cannot add code to the host's program: a Go
// identifier made of its ASCII letters and digits (a name that makes
// another's identifier gets a trailing _, or a number for a struct; a
// struct never takes the name of a template's Vars, Render function or
// the file's Renderer interfaces; a variable named map is the field
// Map_, beside the method Map), a Go string quoted by strconv.Quote, or
// a // comment, where a name that is not all graphic Unicode (a line
// feed, a carriage return, U+2028, U+2029, U+0085, a control or format
// character such as a bidi override) is written quoted, its escapes
// visible. A property name that encoding/json cannot take as a struct
// tag's JSON name (a comma, a quote, a backquote, a control character,
// the empty name) is refused with an error naming the template, the
// variable and the property: the field would otherwise be marshalled
// under another key.
//
// # What the file holds
//
// Names and types only: the generated file holds no wording of any
// template and no description from index.json (which stay in the set, as
// promptkit list shows them), so regenerating it is needed only when
// index.json's variables or their schemas change. It is gofmt-clean and
// passes go vet; a test of the default set (package prompts) fails when
// its generated file is stale.
package gen
