package gen

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/token"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seed-e7d2830f/promptkit/internal/schema"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Options configure Generate.
type Options struct {
	// Package is the generated file's package name; "prompts" when empty.
	Package string
	// Command is the command that regenerates the file, written in its
	// header for whoever finds it stale; "promptkit gen" when empty.
	Command string
}

// ErrGenerate is wrapped by every error of Generate that is not the
// set's own (a set that does not load returns its *manager.LoadError).
var ErrGenerate = errors.New("gen: cannot generate")

// Generate returns the Go source of the typed API of the template set at
// the root of fsys. The set is loaded and checked whole first: a set with
// problems is refused with the manager's error.
func Generate(fsys fs.FS, opts Options) ([]byte, error) {
	if opts.Package == "" {
		opts.Package = "prompts"
	}
	if !token.IsIdentifier(opts.Package) || opts.Package == "_" {
		return nil, fmt.Errorf("%w: package name %q is not a Go identifier", ErrGenerate, opts.Package)
	}
	if opts.Command == "" {
		opts.Command = "promptkit gen"
	}
	m, err := manager.New(fsys)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	g := &generator{names: map[string]string{}}
	// Every name a template makes is taken before any schema names a
	// struct, so a struct can never take one of them (a title "Renderer",
	// a variable whose struct would be called TitleVars).
	for _, t := range m.Templates() {
		if err := g.reserve(t.Name); err != nil {
			return nil, err
		}
	}
	g.types = newTypes(g.names)
	c := schema.NewCompiler(func(p string) ([]byte, error) { return fs.ReadFile(fsys, path.Clean(p)) })
	for _, t := range m.Templates() {
		chat := errors.Is(renderProbe(m, t.Name), manager.ErrChatTemplate)
		if err := g.template(c, t, chat); err != nil {
			return nil, err
		}
	}
	if err := errors.Join(g.types.errs...); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGenerate, err)
	}
	var b bytes.Buffer
	g.write(&b, opts)
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w: the generated code does not parse: %v", ErrGenerate, err)
	}
	return src, nil
}

// renderProbe tells a chat template from a text one: Render refuses a
// chat template before it looks at the variables.
func renderProbe(m *manager.Manager, name string) error {
	_, err := m.Render(name, nil)
	return err
}

type generator struct {
	names     map[string]string // top-level Go identifier → the template that took it ("" for the file's own)
	templates []tmpl
	types     *types
}

// tmpl is one template's part of the file.
type tmpl struct {
	name, path, ident string
	chat              bool
	fields            []field
	// output is the Go type of the answer its output schema describes;
	// "" when its entry declares none.
	output string
}

// field is one variable or property of a generated struct.
type field struct {
	ident, json, typ string
	optional         bool // a pointer (variable) or omitzero (property)
	array            bool // a required variable of slice type: nil is passed as empty
	doc              string
}

// fileNames are the top-level names every generated file may declare
// whatever the set holds.
var fileNames = []string{"Renderer", "MessageRenderer", "OutputValidator", "orEmpty"}

// reserve takes the top-level names of template name: its Vars struct
// and its render functions.
func (g *generator) reserve(name string) error {
	if len(g.names) == 0 {
		for _, n := range fileNames {
			g.names[n] = ""
		}
	}
	ident := exported(name)
	for _, taken := range []string{ident + "Vars", "Render" + ident, "Render" + ident + "Messages", "Decode" + ident} {
		if other, dup := g.names[taken]; dup {
			return fmt.Errorf("%w: templates %q and %q both make the Go name %s", ErrGenerate, other, name, taken)
		}
		g.names[taken] = name
	}
	return nil
}

func (g *generator) template(c *schema.Compiler, t manager.Template, chat bool) error {
	ident := exported(t.Name)
	tm := tmpl{name: t.Name, path: t.Path, ident: ident, chat: chat}
	seen := map[string]string{}
	for _, v := range t.Variables {
		f := field{ident: exported(v.Name), json: v.Name, typ: "any", optional: !v.Required}
		if f.ident == "Map" {
			f.ident = "Map_" // the Vars struct's method is Map; exported never ends a name with _
		}
		if other, dup := seen[f.ident]; dup {
			return fmt.Errorf("%w: template %q: variables %q and %q both make the field %s", ErrGenerate, t.Name, other, v.Name, f.ident)
		}
		seen[f.ident] = v.Name
		what := " (untyped: index.json gives it no schema)"
		if v.Schema != nil {
			s, err := c.Compile(t.Name, v.Name, v.Schema)
			if err != nil {
				return fmt.Errorf("%w: template %q: variable %q: %v", ErrGenerate, t.Name, v.Name, err)
			}
			before := len(g.types.errs)
			f.typ = g.types.goType(s.Compiled(), ident+f.ident)
			for i := before; i < len(g.types.errs); i++ {
				g.types.errs[i] = fmt.Errorf("template %q: variable %q: %w", t.Name, v.Name, g.types.errs[i])
			}
			what = ""
			f.array = v.Required && strings.HasPrefix(f.typ, "[]")
		}
		if f.optional {
			f.doc = fmt.Sprintf("%s is the optional variable %s%s; nil leaves it out.", f.ident, commentText(v.Name), what)
			if !nilable(f.typ) {
				f.typ = "*" + f.typ
			}
		} else {
			f.doc = fmt.Sprintf("%s is the variable %s%s.", f.ident, commentText(v.Name), what)
		}
		tm.fields = append(tm.fields, f)
	}
	if o := t.Contract.OutputSchema; o != nil {
		s, err := c.Compile(t.Name, "$output", o)
		if err != nil {
			return fmt.Errorf("%w: template %q: output: %v", ErrGenerate, t.Name, err)
		}
		before := len(g.types.errs)
		tm.output = g.types.goType(s.Compiled(), ident+"Output")
		for i := before; i < len(g.types.errs); i++ {
			g.types.errs[i] = fmt.Errorf("template %q: output: %w", t.Name, g.types.errs[i])
		}
	}
	g.templates = append(g.templates, tm)
	return nil
}

func (g *generator) write(b *bytes.Buffer, opts Options) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("// Code generated by %s; DO NOT EDIT.", commentText(opts.Command))
	p("")
	p("// Package %s is the typed API of a promptkit template set: for each", opts.Package)
	p("// template a struct of its variables and a function that renders it, made")
	p("// from index.json and the variables' JSON Schemas, so that a misspelled")
	p("// field or a value of the wrong type does not compile. An optional")
	p("// variable is a pointer (or a slice, map or any): nil leaves it out. An")
	p("// optional property of an object is tagged omitzero: its zero value is")
	p("// left out, as encoding/json leaves it out. When index.json's variables or")
	p("// their schemas change, regenerate it with")
	p("//")
	p("//	%s", commentText(opts.Command))
	p("package %s", opts.Package)
	p("")
	anyChat, anyText, anyOutput := false, false, false
	for _, t := range g.templates {
		anyChat = anyChat || t.chat
		anyText = anyText || !t.chat
		anyOutput = anyOutput || t.output != ""
	}
	switch {
	case anyOutput:
		p("import (")
		p(`	"context"`)
		p(`	"encoding/json"`)
		p(`	"fmt"`)
		if anyChat {
			p("")
			p(`	"github.com/seed-e7d2830f/promptkit/message"`)
		}
		p(")")
		p("")
	case anyChat:
		p(`import "github.com/seed-e7d2830f/promptkit/message"`)
		p("")
	}
	if anyText {
		p("// Renderer renders a text template of the set by name; *manager.Manager is one.")
		p("type Renderer interface {")
		p("	Render(name string, vars map[string]any) (string, error)")
		p("}")
		p("")
	}
	if anyOutput {
		p("// OutputValidator holds a model's answer to a template's output schema, within")
		p("// the set's limits, naming the path of every mismatch; *manager.Manager is one.")
		p("type OutputValidator interface {")
		p("	ValidateOutput(ctx context.Context, name string, answer []byte) error")
		p("}")
		p("")
	}
	if anyChat {
		p("// MessageRenderer renders a chat template of the set by name; *manager.Manager is one.")
		p("type MessageRenderer interface {")
		p("	RenderMessages(name string, vars map[string]any) ([]message.Message, error)")
		p("}")
		p("")
	}
	for _, t := range g.templates {
		p("// %sVars are the variables of the template %s (%s).", t.ident, commentText(t.name), commentText(t.path))
		p("type %sVars struct {", t.ident)
		for _, f := range t.fields {
			p("	// %s", f.doc)
			p("	%s %s", f.ident, f.typ)
		}
		p("}")
		p("")
		p("// Map returns the variables as a render takes them: every required one,")
		p("// and the optional ones that are set.")
		p("func (v %sVars) Map() map[string]any {", t.ident)
		p("	m := make(map[string]any, %d)", len(t.fields))
		for _, f := range t.fields {
			switch {
			case f.optional && nilable(strings.TrimPrefix(f.typ, "*")) && !strings.HasPrefix(f.typ, "*"):
				p("	if v.%s != nil {", f.ident)
				p("		m[%s] = v.%s", strconv.Quote(f.json), f.ident)
				p("	}")
			case f.optional:
				p("	if v.%s != nil {", f.ident)
				p("		m[%s] = *v.%s", strconv.Quote(f.json), f.ident)
				p("	}")
			case f.array:
				p("	m[%s] = orEmpty(v.%s)", strconv.Quote(f.json), f.ident)
			default:
				p("	m[%s] = v.%s", strconv.Quote(f.json), f.ident)
			}
		}
		p("	return m")
		p("}")
		p("")
		if t.chat {
			p("// Render%sMessages renders the chat template %s with v.", t.ident, commentText(t.name))
			p("func Render%sMessages(r MessageRenderer, v %sVars) ([]message.Message, error) {", t.ident, t.ident)
			p("	return r.RenderMessages(%s, v.Map())", strconv.Quote(t.name))
		} else {
			p("// Render%s renders the template %s with v.", t.ident, commentText(t.name))
			p("func Render%s(r Renderer, v %sVars) (string, error) {", t.ident, t.ident)
			p("	return r.Render(%s, v.Map())", strconv.Quote(t.name))
		}
		p("}")
		p("")
		if t.output != "" {
			p("// Decode%s decodes a model's answer to the template %s: v holds it to the", t.ident, commentText(t.name))
			p("// template's output schema first, and an answer that does not match is an")
			p("// error naming the path of every mismatch (\"answer.days[2].high: want number,")
			p("// got string\").")
			p("func Decode%s(ctx context.Context, v OutputValidator, answer []byte) (%s, error) {", t.ident, t.output)
			p("	var out %s", t.output)
			p("	if err := v.ValidateOutput(ctx, %s, answer); err != nil {", strconv.Quote(t.name))
			p("		return out, err")
			p("	}")
			p("	if err := json.Unmarshal(answer, &out); err != nil {")
			p("		return out, fmt.Errorf(\"template %%q: decoding the answer: %%w\", %s, err)", strconv.Quote(t.name))
			p("	}")
			p("	return out, nil")
			p("}")
			p("")
		}
	}
	g.types.write(p)
	if g.usesOrEmpty() {
		p("// orEmpty passes a nil slice as an empty list: a nil slice is JSON's")
		p("// null, which an array schema refuses.")
		p("func orEmpty[T any](s []T) []T {")
		p("	if s == nil {")
		p("		return []T{}")
		p("	}")
		p("	return s")
		p("}")
	}
}

func (g *generator) usesOrEmpty() bool {
	for _, t := range g.templates {
		for _, f := range t.fields {
			if f.array {
				return true
			}
		}
	}
	return false
}

// nilable reports whether a Go type has nil of its own (so an optional
// value of it needs no pointer): any, slices, maps and pointers.
func nilable(typ string) bool {
	return typ == "any" || strings.HasPrefix(typ, "[]") || strings.HasPrefix(typ, "map[") || strings.HasPrefix(typ, "*")
}

// initialisms are written in capitals in Go names, as golint asks.
var initialisms = map[string]bool{"id": true, "url": true, "uri": true, "json": true, "xml": true, "html": true,
	"http": true, "api": true, "ip": true, "uuid": true, "llm": true, "rag": false}

// exported turns a name of index.json or a schema (snake_case, kebab-case,
// dotted, camelCase) into an exported Go identifier.
func exported(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	var b strings.Builder
	for _, p := range parts {
		if initialisms[strings.ToLower(p)] {
			b.WriteString(strings.ToUpper(p))
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "X" + s
	}
	return s
}

// commentText makes a string from the set safe inside a // comment of
// the generated file: a string that is not all graphic Unicode (a line
// feed or carriage return, which would end the comment and let the rest
// be code; U+2028, U+2029 or U+0085, which other tools read as line ends;
// a control or format character such as a bidi override, which hides or
// reorders what a reviewer sees; a byte that is not UTF-8, which Go
// refuses) is written as a quoted Go string instead, escapes visible. The
// generator writes only // comments, so */ cannot end one.
func commentText(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) }) >= 0 {
		return strconv.QuoteToGraphic(s)
	}
	return s
}

// sortedKeys returns a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
