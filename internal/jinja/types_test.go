package jinja_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// The type pass knows the builtins only from the runtime's declarations
// (engine.Catalog): their input kinds, result types and receivers. No
// builtin is named in types.go, so none can drift from what runs.
func TestTypesComeFromTheRuntime(t *testing.T) {
	c := engine.Catalog(engine.Options{})
	for name, spec := range c.Methods {
		if spec.Refused == "" {
			assert.NotZero(t, spec.Receivers, "method %s: the catalog does not say which values have it", name)
		}
	}
	assert.Equal(t, jinja.KindString, c.Methods["upper"].Receivers)
	assert.Equal(t, jinja.KindObject, c.Methods["items"].Receivers)
	assert.Equal(t, jinja.KindString, c.Filters["upper"].Input)
	assert.Equal(t, jinja.Result{Kinds: jinja.KindString}, c.Filters["upper"].Result)
	assert.Equal(t, jinja.Result{Kinds: jinja.KindInt}, c.Filters["count"].Result, "an alias has its target's types")
	assert.Equal(t, jinja.KindInt|jinja.KindBool, c.Tests["even"].Input)
	assert.Equal(t, jinja.Result{Kinds: jinja.KindArray, Items: jinja.KindString}, c.Methods["split"].Result)
	assert.Equal(t, jinja.Result{Kinds: jinja.KindInt}, c.Methods["count"].Result, "strings and lists agree")
	assert.Equal(t, jinja.Result{Kinds: jinja.KindArray, Items: jinja.KindInt}, c.Globals["range"].Result)

	names := map[string]bool{}
	for _, table := range []map[string]jinja.Spec{c.Filters, c.Tests, c.Methods, c.Globals} {
		for n := range table {
			names[n] = true
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "types.go", nil, 0)
	require.NoError(t, err)
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			assert.False(t, names[s], "types.go names the builtin %q: its types belong in its declaration", s)
		}
		return true
	})
}

func TestKindsString(t *testing.T) {
	for k, want := range map[jinja.Kinds]string{
		jinja.KindString:                   "a string",
		jinja.KindNumber:                   "a number",
		jinja.KindInt:                      "an integer",
		jinja.KindString | jinja.KindNull:  "a string or null",
		jinja.KindArray | jinja.KindObject: "an array or an object",
		0:                                  "anything",
	} {
		assert.Equal(t, want, k.String())
	}
}
