package jinja

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func checkSrc(t *testing.T, src string, declared []string, files map[string]string) error {
	t.Helper()
	tr, err := Parse("t.md", src, Options{})
	require.NoError(t, err)
	_, err = Check(tr, &Config{
		Catalog: Catalog{
			Filters:   map[string]Spec{"image": {}, "upper": {}},
			Tests:     map[string]Spec{"divisibleby": {MinArgs: 1, MaxArgs: 1}},
			Globals:   map[string]Spec{"range": {MinArgs: 1, MaxArgs: 3}},
			ChatRoles: []string{"user"},
		},
		Declared: declared,
		Load: func(p string) (*Tree, error) {
			src, ok := files[p]
			if !ok {
				return nil, &LoadError{Kind: Include, Msg: "no such file"}
			}
			return Parse(p, src, Options{})
		},
	})
	return err
}

// TestCheckIncludeWithoutContext: a template included without context is
// told so, not told to import with context.
func TestCheckIncludeWithoutContext(t *testing.T) {
	err := checkSrc(t, `{% include "p.md" without context %}`, []string{"x"}, map[string]string{"p.md": "{{ x }}"})
	assert.EqualError(t, err, `p.md:1:4: "x" is a variable of the including template, which a template included without context does not see: drop "without context" from the {% include %}`)
	err = checkSrc(t, `{% import "m.md" as m %}`, []string{"x"}, map[string]string{"m.md": "{{ x }}"})
	assert.ErrorContains(t, err, "an imported template sees only when imported with context")
}

func TestCheckArityOneArgument(t *testing.T) {
	err := checkSrc(t, "{{ 4 is divisibleby }}", nil, nil)
	assert.EqualError(t, err, "t.md:1:4: test divisibleby takes 1 argument")
}

// TestCheckMacroDefaultsInTheMacroScope: as in Jinja, a parameter's default
// is evaluated when the macro is called, in its scope: it sees the
// parameters and names bound after the macro. It was resolved where the
// macro is defined, so m(a=1, c=a) read an outer a (a silently wrong
// value) or reported a undeclared; and call block defaults were not
// checked at all.
func TestCheckMacroDefaultsInTheMacroScope(t *testing.T) {
	src := "{% set a = 9 %}{% macro m(a=1, c=a) %}{{ c }}{% endmacro %}"
	tr, err := Parse("t.md", src, Options{})
	require.NoError(t, err)
	prog, err := Check(tr, &Config{})
	require.NoError(t, err)
	m := tr.Root[1].(*MacroNode)
	ref := prog.Refs[m.Params[1].Default.(*NameExpr)]
	require.NotNil(t, ref)
	assert.Same(t, prog.Frame[m], ref.Frame, "the default's a is the parameter")

	assert.NoError(t, checkSrc(t, "{% macro m(c=later) %}{% endmacro %}{% set later = 3 %}", nil, nil))
	assert.EqualError(t, checkSrc(t, "{% macro m(c=nope) %}{% endmacro %}", nil, nil), `t.md:1:14: undeclared variable "nope"`)
	assert.NoError(t, checkSrc(t, "{% macro m() %}{% endmacro %}{% call(v, w=v) m() %}{% endcall %}", nil, nil))
	assert.EqualError(t, checkSrc(t, "{% macro m() %}{% endmacro %}{% call(v, w=z) m() %}{% endcall %}", nil, nil), `t.md:1:43: undeclared variable "z"`)
}

// TestCheckImageArgumentsOnce: the image filter's arguments are one
// problem, with the chat check's message (it was reported twice).
func TestCheckImageArgumentsOnce(t *testing.T) {
	err := checkSrc(t, `{% chat role="user" %}{{ x | image(1) }}{% endchat %}`, []string{"x"}, nil)
	assert.EqualError(t, err, "t.md:1:26: the image filter takes no arguments: {{ x | image }}")
}
