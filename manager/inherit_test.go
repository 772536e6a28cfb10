package manager_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Template inheritance within a set. The expected outputs are Jinja2
// 3.1's for the same files (a DictLoader of them).
func TestInheritance(t *testing.T) {
	fsys := fstest.MapFS{
		"index.json": {Data: []byte(`{"version":1,"templates":{
			"child":{"path":"child.md","variables":["who"]},"pre":{"path":"pre.md"},
			"plain":{"path":"plain.md"},"scoped":{"path":"scoped.md"}}}`)},
		"base.md":   {Data: []byte("[{% block title %}Base{% endblock %}]{% block body %}B{% block inner %}i{% endblock %}{% endblock %}")},
		"mid.md":    {Data: []byte("{% extends 'base.md' %}{% block title %}Mid-{{ super() }}{% endblock %}")},
		"child.md":  {Data: []byte("{% extends 'mid.md' %}{% set x = 'X' %}{% block inner %}<{{ super() }}{{ x }}{{ who }}>{% endblock %}{% block title %}Child-{{ super() }}{% endblock %}ignored")},
		"pre.md":    {Data: []byte("before{% extends 'base.md' %}after")},
		"plain.md":  {Data: []byte("{% block a %}A{% endblock %}|{% block b %}B{% endblock %}")},
		"scoped.md": {Data: []byte("{% for i in [1, 2] %}{% block c scoped %}[{{ i }}]{% endblock %}{% endfor %}")},
	}
	m, err := manager.New(fsys)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		vars map[string]any
		want string
	}{
		{"child", map[string]any{"who": "!"}, "[Child-Mid-Base]B<iX!>"},
		{"pre", nil, "before[Base]Bi"},
		{"plain", nil, "A|B"},
		{"scoped", nil, "[1][2]"},
	} {
		out, err := m.Render(tc.name, tc.vars)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, out, tc.name)
	}
	child, _ := m.Lookup("child")
	plain, _ := m.Lookup("plain")
	assert.NotEqual(t, plain.Hash, child.Hash)
	assert.Equal(t, []string{}, append([]string{}, m.Unused()["child"]...), "who is used, in a block")
}

func TestInheritanceChecked(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		kind  error
		msg   string
	}{
		{map[string]string{"t.md": "{% extends 'base.md' %}{% block b %}{{ nope }}{% endblock %}", "base.md": "{% block b %}{% endblock %}"},
			manager.ErrUndeclaredVariable, `t.md:1:40: template "t": undeclared variable "nope"`},
		{map[string]string{"t.md": "{% extends 'missing.md' %}"},
			manager.ErrTemplate, `t.md:1:1: template "t": extends "missing.md": no such file (paths are relative to the template set's root)`},
		{map[string]string{"t.md": "{% extends 'b.md' %}", "b.md": "{% extends 't.md' %}"},
			manager.ErrTemplate, "extends cycle: t.md -> b.md -> t.md"},
		{map[string]string{"t.md": "{% extends name %}"},
			manager.ErrUnsupported, "extends takes a literal path string"},
		{map[string]string{"t.md": "{% if true %}{% extends 'b.md' %}{% endif %}", "b.md": ""},
			manager.ErrTemplate, "must stand at the top level"},
		{map[string]string{"t.md": "{{ super() }}"},
			manager.ErrUndeclaredVariable, "super() exists only inside a {% block %}"},
	} {
		files := map[string]string{"index.json": `{"version":1,"templates":{"t":{"path":"t.md"}}}`}
		for k, v := range tc.files {
			files[k] = v
		}
		fsys := fstest.MapFS{}
		for k, v := range files {
			fsys[k] = &fstest.MapFile{Data: []byte(v)}
		}
		_, err := manager.New(fsys)
		require.ErrorIs(t, err, tc.kind, tc.files["t.md"])
		assert.Contains(t, err.Error(), tc.msg)
	}
}
