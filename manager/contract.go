package manager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/contextstack"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/jsontree"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
	"github.com/seed-e7d2830f/promptkit/internal/suggest"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Call contracts. Beside its variables, a template's entry in index.json
// may declare the call the template is made for — the model settings,
// the tools the model may call, the JSON Schema its answer must match,
// and where the cacheable prefix of its messages ends — each part
// optional, the large ones in files of the set:
//
//	"weather": {"path": "templates/weather.md", "variables": ["city"],
//	  "model": {"name": "gpt-4o", "temperature": 0.2, "max_output_tokens": 512},
//	  "tools": [{"$ref": "tools/get_weather.json"}],
//	  "output": {"$ref": "schemas/weather_answer.json"},
//	  "cache": {"message": 0}}
//
// The contract is checked when the set loads, every problem at once with
// its file, line and column: settings against their table (message.
// Settings), tools by the context stack's rules (a name each, no name
// twice, an object schema for parameters, the description discipline of
// lint-tools), every schema compiled, a tool_choice that names no tool,
// and a cache breakpoint whose prefix is not proven the same for every
// render (jinja.FixedPrefix). Its files are files of the set, in its
// digest. Request renders a template into a provider-neutral request
// that carries it.

// Contract is the call a template's entry declares; every part is
// optional, and the zero Contract declares nothing.
type Contract struct {
	// Model is the settings of the call (message.Settings: the model's
	// name, temperature, …, and each provider's own under its key).
	Model message.Settings
	// Tools are the function tools the model may call, in the order the
	// entry lists them; each one's Parameters is self-contained (the
	// files its $refs named are inside it, under "$defs").
	Tools []message.Tool
	// Output is the JSON Schema the model's answer must match, bundled
	// the same way and named after the template; nil when the answer is
	// free text.
	Output *message.Output
	// OutputSchema is the output schema as index.json gives it: inline,
	// or {"$ref": "path"} to a file of the set (promptkit gen reads it, so
	// that a file several templates' outputs name is one Go type).
	OutputSchema json.RawMessage
	// Cache is where the cacheable prefix of the messages ends; nil when
	// the entry marks none.
	Cache *Cache

	// output is Output's schema, compiled: ValidateOutput validates
	// answers with it.
	output *schema.Schema
}

// Cache is a template's cache breakpoint: the prefix of its messages up
// to and including message Message (0-based: 0 is the first) is the same
// for every render — the set does not load otherwise — and every request
// marks that message with a cache_control of TTL ("" the provider's
// default, "5m" or "1h").
type Cache struct {
	Message int
	TTL     string
}

// IsZero reports whether c declares nothing.
func (c Contract) IsZero() bool {
	return c.Model.IsZero() && c.Tools == nil && c.Output == nil && c.Cache == nil
}

// MarshalJSON writes the contract as a provider-neutral request carries
// it: {"model": …, "tools": […], "output": {"name", "schema", "strict"},
// "cache": {"message": N, "ttl": …}}, each part left out when it is not
// declared.
func (c Contract) MarshalJSON() ([]byte, error) {
	var out struct {
		Model  *message.Settings `json:"model,omitempty"`
		Tools  json.RawMessage   `json:"tools,omitempty"`
		Output *message.Output   `json:"output,omitempty"`
		Cache  *Cache            `json:"cache,omitempty"`
	}
	if !c.Model.IsZero() {
		out.Model = &c.Model
	}
	if c.Tools != nil {
		tools, err := message.EncodeTools(c.Tools)
		if err != nil {
			return nil, err
		}
		out.Tools = tools
	}
	out.Output, out.Cache = c.Output, c.Cache
	return json.Marshal(out)
}

// MarshalJSON writes {"message": N}, with "ttl" when it is set.
func (c Cache) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Message int    `json:"message"`
		TTL     string `json:"ttl,omitempty"`
	}{c.Message, c.TTL})
}

func (c Contract) clone() Contract {
	c.Model = c.Model.Clone()
	c.Tools = slices.Clone(c.Tools)
	for i := range c.Tools {
		c.Tools[i].Parameters = slices.Clone(c.Tools[i].Parameters)
		if s := c.Tools[i].Strict; s != nil {
			strict := *s
			c.Tools[i].Strict = &strict
		}
	}
	if c.Output != nil {
		o := *c.Output
		o.Schema = slices.Clone(o.Schema)
		c.Output = &o
	}
	c.OutputSchema = slices.Clone(c.OutputSchema)
	if c.Cache != nil {
		k := *c.Cache
		c.Cache = &k
	}
	return c
}

// contractKeys are the keys of an entry that declare its call.
var contractKeys = []string{"model", "tools", "output", "cache"}

// place is a file a contract is read from, for positions.
type place struct {
	file string
	data []byte
	tree *jsontree.Node
	src  *jinja.Source
}

func newPlace(file string, data []byte, tree *jsontree.Node) *place {
	return &place{file: file, data: data, tree: tree, src: jinja.NewSource(file, string(data))}
}

// problem reports a problem of template's contract at offset off of p.
func (l *loader) contractProblem(kind error, template string, p *place, off int, format string, args ...any) {
	e := &Error{Kind: kind, Template: template, Path: p.file, Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Col = p.src.Position(jinja.Pos(off))
	l.problem(e)
}

// contracts reads the call contracts of the entries from index.json
// (data, without its byte-order mark, and tree, its indexTree). Entries
// without one are left as they are.
func (l *loader) contracts(data []byte, tree *jsontree.Node, entries []Template) {
	if tree == nil {
		// Not an object, or a key repeated: parseIndexTree reported
		// what is wrong, or read the entries without positions.
		var err error
		if tree, err = jsontree.Parse(data); err != nil {
			return
		}
	}
	ix := newPlace(IndexFile, data, tree)
	byName := map[string]*jsontree.Node{}
	if ts := tree.Get("templates"); ts != nil {
		byName = make(map[string]*jsontree.Node, len(ts.Members))
		for _, m := range ts.Members {
			byName[m.Key] = m.Value
		}
	}
	for i := range entries {
		if e := byName[entries[i].Name]; e != nil {
			l.contract(&entries[i], ix, e)
		}
	}
}

// contract reads one entry's contract.
func (l *loader) contract(t *Template, ix *place, e *jsontree.Node) {
	c := &t.Contract
	var modelAt *place
	var model *jsontree.Node
	if n := e.Get("model"); n != nil {
		if p, root, ok := l.follow(t.Name, "model", ix, n); ok {
			modelAt, model = p, root
			s, err := message.DecodeSettings(root.Raw(p.data))
			for _, fe := range fieldErrors(err) {
				l.contractProblem(ErrContract, t.Name, p, locate(root, fe.Path), "model: %s", fe.Error())
			}
			c.Model = s
		}
	}
	if n := e.Get("tools"); n != nil {
		l.tools(t, ix, n)
	}
	if n := e.Get("output"); n != nil {
		l.output(t, ix, n)
	}
	if n := e.Get("cache"); n != nil {
		l.cache(t, ix, n)
	}
	if model != nil {
		l.checkToolChoice(t, modelAt, model)
	}
}

// fieldErrors lists the *message.FieldError of a joined error.
func fieldErrors(err error) []*message.FieldError {
	if err == nil {
		return nil
	}
	var out []*message.FieldError
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var fe *message.FieldError
		if errors.As(e, &fe) {
			out = append(out, fe)
		} else {
			out = append(out, &message.FieldError{Msg: e.Error()})
		}
	}
	return out
}

// locate is the offset of the key a path of dotted keys ends at, in n.
func locate(n *jsontree.Node, path string) int {
	off := n.Off
	if path == "" {
		return off
	}
	for _, k := range strings.Split(path, ".") {
		if n == nil || n.Kind != '{' || n.Get(k) == nil {
			return off
		}
		off, n = n.KeyOffset(k), n.Get(k)
	}
	return off
}

// follow reads a part of a contract that is written in a file of the set
// ({"$ref": "path"}, relative to the set's root): the file's place and
// root value. A part written inline is itself.
func (l *loader) follow(template, what string, at *place, n *jsontree.Node) (*place, *jsontree.Node, bool) {
	ref := n.Get("$ref")
	if ref == nil {
		return at, n, true
	}
	if ref.Kind != '"' || len(n.Members) != 1 {
		l.contractProblem(ErrContract, template, at, n.Off, "%s: {\"$ref\": \"path\"} names a file of the set, and takes no other key", what)
		return nil, nil, false
	}
	p := ref.Str
	if err := checkPath(p); err != nil {
		l.contractProblem(ErrSandbox, template, at, ref.Off, "%s: $ref %q: %v", what, p, err)
		return nil, nil, false
	}
	data, err := l.schemaFile(cleanPath(p))
	if err != nil {
		l.contractProblem(ErrContract, template, at, ref.Off, "%s: $ref %q: %v", what, p, err)
		return nil, nil, false
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	tree, err := jsontree.Parse(data)
	file := newPlace(cleanPath(p), data, nil)
	if err != nil {
		var se *jsontree.SyntaxError
		off := 0
		if errors.As(err, &se) {
			off = se.Off
		}
		l.contractProblem(ErrContract, template, file, off, "%s: %v", what, err)
		return nil, nil, false
	}
	file.tree = tree
	return file, tree, true
}

// tool is one declared tool, with where it is.
type tool struct {
	at   *place
	node *jsontree.Node
	spec message.Tool
}

// tools reads the entry's tools: a list of tools, each inline or a
// {"$ref"} to a file holding one tool or a list of them.
func (l *loader) tools(t *Template, ix *place, n *jsontree.Node) {
	if n.Kind != '[' {
		l.contractProblem(ErrContract, t.Name, ix, n.Off, "tools: want a list of tools, got %s", kindName(n))
		return
	}
	var all []tool
	for i, it := range n.Items {
		at, root, ok := l.follow(t.Name, fmt.Sprintf("tools[%d]", i), ix, it)
		if !ok {
			continue
		}
		switch {
		case at != ix && root.Kind == '[':
			for _, one := range root.Items {
				all = append(all, tool{at: at, node: one})
			}
		default:
			all = append(all, tool{at: at, node: root})
		}
	}
	var layers []contextstack.Layer
	var kept []tool
	for _, tl := range all {
		if !l.toolDecl(t, &tl) {
			continue
		}
		kept = append(kept, tl)
		spec := contextstack.ToolSpec{Name: tl.spec.Name, Type: "function", Description: tl.spec.Description, InputSchema: contextstack.Schema(tl.spec.Parameters)}
		layers = append(layers, contextstack.Layer{Source: tl.at.file, Content: contextstack.ToolDefinitions{Tools: []contextstack.ToolSpec{spec}}})
		// The description discipline of lint-tools.
		problems, err := contextstack.LintTools([]contextstack.ToolSpec{spec})
		if err != nil {
			l.contractProblem(ErrContract, t.Name, tl.at, tl.node.Off, "tool %q: %v", spec.Name, err)
		}
		for _, p := range problems {
			off := tl.node.KeyOffset("description")
			if p.Rule == contextstack.RuleInvalidSchema {
				off = tl.node.KeyOffset("parameters")
			}
			l.contractProblem(ErrContract, t.Name, tl.at, off, "%s (%s)", p, p.Rule)
		}
	}
	// No name twice, by the context stack's rule: one layer per tool.
	for _, err := range contextstack.NewStack(layers...).ToolProblems() {
		var conflict *contextstack.ToolNameConflictError
		if !errors.As(err, &conflict) {
			continue // every tool has a name: toolDecl refused those without
		}
		first, second := kept[conflict.FirstLayer], kept[conflict.SecondLayer]
		line, col := first.at.src.Position(jinja.Pos(first.node.Get("name").Off))
		l.contractProblem(ErrContract, t.Name, second.at, second.node.Get("name").Off,
			"tool %q is declared twice: first at %s:%d:%d (%v)", conflict.Name, first.at.file, line, col, contextstack.ErrToolNameConflict)
	}
	for _, tl := range kept {
		t.Contract.Tools = append(t.Contract.Tools, tl.spec)
	}
	if t.Contract.Tools == nil {
		t.Contract.Tools = []message.Tool{}
	}
}

// toolKeys are the keys of a declared tool.
var toolKeys = []string{"name", "description", "parameters", "strict"}

// emptyParameters are the parameters of a tool that declares none.
const emptyParameters = `{"type":"object","properties":{}}`

// toolDecl reads one tool; it reports whether the tool is whole enough
// to check further.
func (l *loader) toolDecl(t *Template, tl *tool) bool {
	n, at := tl.node, tl.at
	if n.Kind != '{' {
		l.contractProblem(ErrContract, t.Name, at, n.Off, "a tool is an object {name, description, parameters, strict}, not %s", kindName(n))
		return false
	}
	ok := true
	for _, m := range n.Members {
		if !slices.Contains(toolKeys, m.Key) {
			msg := fmt.Sprintf("unknown key %q of a tool (keys: %s)", m.Key, strings.Join(toolKeys, ", "))
			if near := suggest.Closest(m.Key, toolKeys); near != "" {
				msg = fmt.Sprintf("unknown key %q of a tool; did you mean %q?", m.Key, near)
			}
			l.contractProblem(ErrContract, t.Name, at, m.KeyOff, "%s", msg)
			ok = false
		}
	}
	name := n.Get("name")
	switch {
	case name == nil:
		l.contractProblem(ErrContract, t.Name, at, n.Off, "a tool without a \"name\"")
		return false
	case name.Kind != '"' || !message.ValidToolName(name.Str):
		l.contractProblem(ErrContract, t.Name, at, name.Off, "tool name %s: a name is 1 to 64 letters, digits, _ and - (%s)", name.Raw(at.data), message.ToolNamePattern)
		return false
	}
	tl.spec.Name = name.Str
	if d := n.Get("description"); d != nil {
		if d.Kind != '"' {
			l.contractProblem(ErrContract, t.Name, at, d.Off, "tool %q: the description is a string", name.Str)
			ok = false
		}
		tl.spec.Description = d.Str
	}
	if s := n.Get("strict"); s != nil {
		if s.Kind != 't' {
			l.contractProblem(ErrContract, t.Name, at, s.Off, "tool %q: strict is true or false", name.Str)
			ok = false
		}
		tl.spec.Strict = &s.Bool
	}
	tl.spec.Parameters = json.RawMessage(emptyParameters)
	if p := n.Get("parameters"); p != nil {
		raw, good := l.contractSchema(t, at, p, "tool "+strconv.Quote(name.Str)+": parameters")
		if !good {
			return false
		}
		var top struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(raw, &top) != nil || top.Type != "object" {
			l.contractProblem(ErrContract, t.Name, at, p.Off,
				"tool %q: parameters must be an object schema (\"type\": \"object\"): a model passes a tool its arguments as one JSON object", name.Str)
			return false
		}
		tl.spec.Parameters = raw
	}
	return ok
}

// contractSchema compiles a schema of a contract written at n of at
// (checking it as variables' schemas are checked) and returns it bundled
// for providers. what names it in problems; query makes its place in a
// file unique for the schema library.
func (l *loader) contractSchema(t *Template, at *place, n *jsontree.Node, what string) (json.RawMessage, bool) {
	// A file of tools several templates list is checked once.
	key := at.file + "#" + strconv.Itoa(n.Off)
	if b, ok := l.bundled[key]; ok {
		return b, b != nil
	}
	if l.bundled == nil {
		l.bundled = map[string]json.RawMessage{}
	}
	l.bundled[key] = nil
	raw := n.Raw(at.data)
	if l.schemas == nil {
		l.schemas = schema.NewCompiler(l.schemaFile)
	}
	var err error
	at1 := "at=" + strconv.Itoa(n.Off) // the schema's place in its file, for the library
	if at.file == IndexFile {
		_, err = l.schemas.Compile(t.Name, "$"+at1, raw)
	} else {
		_, err = l.schemas.CompileIn(at.file, at1, raw)
	}
	if err != nil {
		l.contractProblem(ErrSchema, t.Name, at, n.Off, "%s: schema: %v", what, err)
		return nil, false
	}
	file, root := at.file, at.tree
	if file == IndexFile {
		file, root = "", n // inline: refs are relative to the root, "#" is the schema
	}
	out, err := bundle(l.schemaFile, file, at.data, root, n)
	if err != nil {
		l.contractProblem(ErrContract, t.Name, at, n.Off, "%s: %v", what, err)
		return nil, false
	}
	l.bundled[key] = out
	return out, true
}

// output reads the entry's output schema.
func (l *loader) output(t *Template, ix *place, n *jsontree.Node) {
	raw, ok := l.contractSchema(t, ix, n, "output")
	if !ok {
		return
	}
	// Compiled again from the bundle, as it is sent: ValidateOutput holds
	// an answer to exactly what the provider was given.
	s, err := l.schemas.CompileIn(IndexFile, url.Values{"template": {t.Name}, "part": {"output"}}.Encode(), raw)
	if err != nil {
		l.contractProblem(ErrSchema, t.Name, ix, n.Off, "output: schema: %v", err)
		return
	}
	t.Contract.Output = &message.Output{Name: outputName(t.Name), Schema: raw, Strict: strictSubset(raw)}
	t.Contract.OutputSchema = json.RawMessage(n.Raw(ix.data))
	t.Contract.output = s
}

// outputName makes a template's name a schema name providers take.
func outputName(name string) string {
	out := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	return out[:min(len(out), 64)]
}

// cache reads the entry's cache breakpoint; compileSource proves it.
func (l *loader) cache(t *Template, ix *place, n *jsontree.Node) {
	if n.Kind != '{' {
		l.contractProblem(ErrContract, t.Name, ix, n.Off, "cache: want {\"message\": N} (the message the cacheable prefix ends with), got %s", kindName(n))
		return
	}
	c := &Cache{}
	ok := true
	for _, m := range n.Members {
		switch m.Key {
		case "message":
			i, err := m.Value.Num.Int64()
			if m.Value.Kind != '0' || err != nil || i < 0 || i > 1<<20 {
				l.contractProblem(ErrContract, t.Name, ix, m.Value.Off, "cache.message: want the index of a message (0 for the first), got %s", m.Value.Raw(ix.data))
				ok = false
			}
			c.Message = int(i)
		case "ttl":
			if m.Value.Kind != '"' || m.Value.Str != "5m" && m.Value.Str != "1h" {
				l.contractProblem(ErrContract, t.Name, ix, m.Value.Off, "cache.ttl: want \"5m\" or \"1h\", got %s", m.Value.Raw(ix.data))
				ok = false
			}
			c.TTL = m.Value.Str
		default:
			l.contractProblem(ErrContract, t.Name, ix, m.KeyOff, "cache: unknown key %q (keys: message, ttl)", m.Key)
			ok = false
		}
	}
	if n.Get("message") == nil {
		l.contractProblem(ErrContract, t.Name, ix, n.Off, "cache: missing \"message\": the index of the message the cacheable prefix ends with")
		ok = false
	}
	if ok {
		t.Contract.Cache = c
	}
}

// checkToolChoice holds tool_choice and parallel_tool_calls to the
// declared tools.
func (l *loader) checkToolChoice(t *Template, at *place, model *jsontree.Node) {
	s := t.Contract.Model
	names := make([]string, len(t.Contract.Tools))
	for i, tl := range t.Contract.Tools {
		names[i] = tl.Name
	}
	if s.ParallelToolCalls != nil && len(names) == 0 {
		l.contractProblem(ErrContract, t.Name, at, locate(model, "parallel_tool_calls"), "model: parallel_tool_calls: the template declares no tools")
	}
	switch s.ToolChoice {
	case "", message.ToolChoiceAuto, message.ToolChoiceNone, message.ToolChoiceRequired:
		if s.ToolChoice != "" && len(names) == 0 {
			l.contractProblem(ErrContract, t.Name, at, locate(model, "tool_choice"), "model: tool_choice: the template declares no tools")
		}
		return
	}
	if !slices.Contains(names, s.ToolChoice) {
		msg := fmt.Sprintf("model: tool_choice: %q is not a tool of the template (tools: %s; or auto, none, required)", s.ToolChoice, strings.Join(names, ", "))
		if len(names) == 0 {
			msg = fmt.Sprintf("model: tool_choice: %q names a tool, and the template has none that loads", s.ToolChoice)
		}
		if near := suggest.Closest(s.ToolChoice, names); near != "" {
			msg = fmt.Sprintf("model: tool_choice: %q is not a tool of the template; did you mean %q?", s.ToolChoice, near)
		}
		l.contractProblem(ErrContract, t.Name, at, locate(model, "tool_choice"), "%s", msg)
	}
}

// checkCache proves a template's cache breakpoint (jinja.FixedPrefix):
// the messages up to it must be the same for every render.
func (l *loader) checkCache(c *compiled, prog *jinja.Program) {
	cc := c.info.Contract.Cache
	if cc == nil {
		return
	}
	fe := jinja.FixedPrefix(prog, cc.Message+1)
	if fe == nil {
		return
	}
	e := &Error{Kind: ErrContract, Template: c.info.Name, Path: fe.File, Line: fe.Line, Col: fe.Col, Msg: "cache: " + fe.Msg}
	if c.declared(fe.Name) != nil {
		e.Variables = []string{fe.Name}
	}
	l.problem(e)
}

func kindName(n *jsontree.Node) string {
	switch n.Kind {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't':
		return "a boolean"
	}
	return "null"
}

func cleanPath(p string) string { return path.Clean(p) }
