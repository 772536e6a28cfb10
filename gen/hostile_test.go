package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/gen"
)

// hostilePath is a template path that tries to end the comment naming it
// and add code, a directive, a block-comment end, the line terminators
// other tools honour, a carriage return and a bidi override. ("//go:"
// cannot be in a path: the index cleans "//" to "/".)
const hostilePath = "t\nfunc init() { panic(\"pwned\") }\n/go:generate touch pwned\n*/\u2028\u2029\u0085\r\u202e.md"

// hostileSet is a set whose names try to add code to the generated file
// or to collide with its names, with names that a struct can carry.
var hostileSet = fstest.MapFS{
	"index.json": {Data: []byte(`{"version": 1, "templates": {
 "t": {"path": ` + strconv.Quote(hostilePath) + `, "variables": [
   {"name": "map", "schema": {"type": "string"}},
   {"name": "vars", "schema": {"type": "object", "properties": {
     "//go:generate rm -rf /": {"type": "string"}, "*/ func init() {} /*": {"type": "string"},
     "func": {"type": "integer"}, "type": {"type": "integer"}, "package main": {"type": "integer"},
     "a-b": {"type": "string"}, "a_b": {"type": "string"}, "aB": {"type": "string"},
     "-": {"type": "string"}, "日本語": {"type": "string"}}}},
   {"name": "r", "schema": {"title": "Renderer", "type": "object", "properties": {"x": {"type": "string"}}}},
   {"name": "d", "schema": {"$ref": "#/$defs/x%0Afunc%20init()%20%7B%7D",
     "$defs": {"x\nfunc init() {}": {"type": "object", "properties": {"z": {"type": "string"}}}}}},
   {"name": "f", "schema": {"$ref": "schemas/*/func.json"}}
 ]},
 "func": {"path": "f.md", "variables": ["type", "chan", "go"]},
 "c": {"path": "c.md", "variables": [
   {"name": "q", "schema": {"title": "RenderT", "type": "object", "properties": {"x": {"type": "string"}}}}]}
}}`)},
	hostilePath:           {Data: []byte("{{ map }}{{ vars }}{{ r }}{{ d }}{{ f }}")},
	"c.md":                {Data: []byte(`{% chat role="user" %}{{ q }}{% endchat %}`)},
	"f.md":                {Data: []byte("{{ type }}{{ chan }}{{ go }}")},
	"schemas/*/func.json": {Data: []byte(`{"type": "object", "properties": {"y": {"type": "string"}}}`)},
}

// TestGenerateHostileNames: whatever the set's names, the generated file
// declares exactly what the generator means to — no init function, no
// //go: directive, no declaration a name smuggled in, no two declarations
// of one name — and it compiles and vets.
func TestGenerateHostileNames(t *testing.T) {
	command := "promptkit gen\nfunc init() { panic(\"pwned\") }\n//go:generate touch pwned\n//"
	src, err := gen.Generate(hostileSet, gen.Options{Package: "hostile", Command: command})
	require.NoError(t, err)

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "hostile.go", src, parser.ParseComments)
	require.NoError(t, err, "%s", src)

	var decls []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil {
				name = d.Recv.List[0].Type.(*ast.Ident).Name + "." + name
			}
			decls = append(decls, name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					decls = append(decls, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						decls = append(decls, "var "+n.Name)
					}
				case *ast.ImportSpec:
					decls = append(decls, "import "+s.Path.Value)
				}
			}
		}
	}
	sort.Strings(decls)
	assert.Equal(t, []string{
		"CVars", "CVars.Map", "Func", "FuncVars", "FuncVars.Map", "MessageRenderer",
		"RenderCMessages", "RenderFunc", "RenderT", "RenderT2", "Renderer", "Renderer2",
		"TVars", "TVars.Map", "TVars2", "X0Afunc20init2829207B7D",
		`import "github.com/seed-e7d2830f/promptkit/message"`,
	}, decls)

	for _, g := range f.Comments {
		for _, c := range g.List {
			assert.True(t, strings.HasPrefix(c.Text, "//"), "only line comments: %q", c.Text)
			assert.False(t, strings.HasPrefix(c.Text, "//go:") || strings.HasPrefix(c.Text, "//line "), "a directive: %q", c.Text)
			assert.False(t, strings.ContainsAny(c.Text, "\r\u2028\u2029\u0085\u202e"), "a line end or bidi control in %q", c.Text)
		}
	}
	assert.Contains(t, string(src), `"t\nfunc init() { panic(\"pwned\") }\n/go:generate touch pwned\n*/\u2028\u2029\u0085\r\u202e.md"`,
		"the path is named, quoted, escapes visible")

	// The tags carry the properties' names exactly, as encoding/json reads them.
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "TVars2" {
			return true
		}
		for _, fld := range ts.Type.(*ast.StructType).Fields.List {
			tag, err := strconv.Unquote(fld.Tag.Value)
			require.NoError(t, err)
			name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			names = append(names, name)
		}
		return false
	})
	sort.Strings(names)
	assert.Equal(t, []string{"*/ func init() {} /*", "-", "//go:generate rm -rf /", "a-b", "aB", "a_b", "func", "package main", "type", "日本語"}, names)

	if testing.Short() {
		return
	}
	run := hostModule(t, map[string]string{
		"hostile/hostile.go": string(src),
		"main.go": `package main

import (
	"encoding/json"
	"fmt"

	"host/hostile"
)

func main() {
	b, _ := json.Marshal(hostile.TVars2{FuncInit: "a", X: "b", GoGenerateRmRf: "c", AB: "d", AB_: "e", AB__: "f", Func: 1, Type: 2, PackageMain: 3, X_: "g"})
	fmt.Println(string(b))
	fmt.Println(len(hostile.TVars{Map_: "m"}.Map()))
	_, _ = hostile.RenderFunc, hostile.FuncVars{Type: 1, Chan: 2, Go: 3} // keywords as names compile
}
`,
	})
	run("vet", "./...")
	assert.Equal(t, `{"*/ func init() {} /*":"a","-":"b","//go:generate rm -rf /":"c","a-b":"d","aB":"e","a_b":"f","func":1,"package main":3,"type":2,"日本語":"g"}`+"\n5\n",
		run("run", "."), "every field under its property's name; no init ran")
}

// TestGenerateRefusesUntaggableNames: a property that encoding/json cannot
// name in a struct tag (a newline, a backquote, a quote, a comma, nothing)
// is refused, every one at once, naming the template, the variable and the
// property — never written into the file.
func TestGenerateRefusesUntaggableNames(t *testing.T) {
	props := []string{"x\nfunc init() { panic(\"pwned\") }\n//", "a`b", `a"b`, "a,string", "", "a\u2028b"}
	var schema []string
	for _, p := range props {
		schema = append(schema, strconv.Quote(p)+`: {"type": "string"}`)
	}
	_, err := gen.Generate(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": [
			{"name": "v", "schema": {"type": "object", "properties": {` + strings.Join(schema, ", ") + `}}}]}}}`)},
		"t.md": {Data: []byte("{{ v }}")},
	}, gen.Options{})
	require.ErrorIs(t, err, gen.ErrGenerate)
	msg := err.Error()
	for _, p := range props {
		assert.Contains(t, msg, `template "t": variable "v": schema index.json: property `+strconv.Quote(p)+" cannot be the JSON name of a Go struct field")
	}
	assert.NotContains(t, msg, "\nfunc init", "the name is quoted in the error too")
}
