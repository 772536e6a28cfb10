package manager_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// userSchema is the schema the typed-variable tests give "user".
const userSchema = `{"type": "object", "required": ["name"],
  "properties": {
    "name": {"type": "string"},
    "age": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "profile": {"type": "object", "properties": {"city": {"type": "string"}}},
    "scores": {"type": "array", "items": {"type": "number"}}
  }}`

// typedSet is a set with one template "t" whose variable user has
// userSchema, and an untyped variable plain.
func typedSet(source string, extra map[string]string) map[string]string {
	files := map[string]string{"t.md": source}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

func typedIndex(userSchemaJSON string) string {
	return `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [
	  {"name": "user", "schema": ` + userSchemaJSON + `},
	  {"name": "plain", "required": false}]}}}`
}

// TestTypedLoad: every static rule, with the exact line it prints.
func TestTypedLoad(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		files map[string]string
		want  string // the one problem, exactly; "" loads
	}{
		{"a path in the schema", `{{ user.name }}{{ user.profile.city }}{{ user.tags[0] }}{{ user["age"] }}`, nil, ""},
		{"misspelled attribute", "hi {{ user.nmae }}",
			nil, `t.md:1:7: template "t": user.nmae is not in the schema of variable "user": user has no property "nmae"; did you mean "name"?`},
		{"no close property", "{{ user.zzzzzz }}",
			nil, `t.md:1:4: template "t": user.zzzzzz is not in the schema of variable "user": user has no property "zzzzzz" (it has: age, name, profile, scores, tags)`},
		{"nested path", "{{ user.profile.cty }}",
			nil, `t.md:1:4: template "t": user.profile.cty is not in the schema of variable "user": user.profile has no property "cty"; did you mean "city"?`},
		{"a dict method read as an attribute", "{{ user.profile.keys }}",
			nil, `t.md:1:4: template "t": user.profile.keys is the method keys of user.profile (an object in variable "user"'s schema), not a value: call it, user.profile.keys()`},
		{"a dict method called", "{{ user.profile.keys() | list }}{{ user.items() | length }}", nil, ""},
		{"key index", `{{ user["nmae"] }}`,
			nil, `t.md:1:4: template "t": user["nmae"] is not in the schema of variable "user": user has no property "nmae"; did you mean "name"?`},
		{"attribute of a string item", "{{ user.tags[0].text }}",
			nil, `t.md:1:4: template "t": user.tags[0].text is not in the schema of variable "user": user.tags[0] (user.tags[*]) is a string, which has no attributes`},
		{"position index of an object", "{{ user.profile[0] }}",
			nil, `t.md:1:4: template "t": user.profile[0] is not in the schema of variable "user": user.profile is an object, which cannot be indexed by position`},
		{"in a branch never taken", "{% if false %}\n  {{ user.agee }}\n{% endif %}",
			nil, `t.md:2:6: template "t": user.agee is not in the schema of variable "user": user has no property "agee"; did you mean "age"?`},
		{"loop variable", "{% for t in user.tags %}{{ t.upper() }}{{ t.label }}{% endfor %}",
			nil, `t.md:1:43: template "t": t.label is not in the schema of variable "user": t (user.tags[*]) is a string, which has no attributes`},
		{"set local", "{% set p = user.profile %}{{ p.cty }}",
			nil, `t.md:1:30: template "t": p.cty is not in the schema of variable "user": p (user.profile) has no property "cty"; did you mean "city"?`},
		{"with local", "{% with p = user.profile %}{{ p.cty }}{% endwith %}",
			nil, `t.md:1:31: template "t": p.cty is not in the schema of variable "user": p (user.profile) has no property "cty"; did you mean "city"?`},
		{"macro argument", "{% macro card(u) %}{{ u.nmae }}{% endmacro %}{{ card(user) }}",
			nil, `t.md:1:23: template "t": u.nmae is not in the schema of variable "user": u (user) has no property "nmae"; did you mean "name"?`},
		{"macro argument by keyword", "{% macro card(x, u=none) %}{{ u.nmae }}{% endmacro %}{{ card(1, u=user) }}{{ card(2, u=user) }}",
			nil, `t.md:1:31: template "t": u.nmae is not in the schema of variable "user": u (user) has no property "nmae"; did you mean "name"?`},
		{"macro called with other values is not typed", "{% macro card(u) %}{{ u.nmae }}{% endmacro %}{{ card(user) }}{{ card(plain) }}", nil, ""},
		{"included file", `{% include "parts/u.md" %}`, map[string]string{"parts/u.md": "\n{{ user.nmae }}"},
			`parts/u.md:2:4: template "t": user.nmae is not in the schema of variable "user": user has no property "nmae"; did you mean "name"?`},
		{"filter on the wrong type", "{{ user.age | upper }}",
			nil, `t.md:1:4: template "t": filter upper needs a string, but the schema of variable "user" makes user.age an integer`},
		{"join on a non-list", "{{ user.age | join(', ') }}",
			nil, `t.md:1:4: template "t": filter join needs a string or an array or an object, but the schema of variable "user" makes user.age an integer`},
		{"test on the wrong type", "{% if user.name is even %}x{% endif %}",
			nil, `t.md:1:7: template "t": test even needs an integer or a boolean, but the schema of variable "user" makes user.name a string`},
		{"method on the wrong type", "{% for s in user.scores %}{{ s.upper() }}{% endfor %}",
			nil, `t.md:1:30: template "t": method upper() needs a string, but the schema of variable "user" makes s (user.scores[*]) a number`},
		{"arithmetic on a string", "{{ user.name - 1 }}",
			nil, `t.md:1:4: template "t": operator - needs a number, but the schema of variable "user" makes user.name a string`},
		{"adding a string and a number", "{{ user.name + user.age }}",
			nil, `t.md:1:4: template "t": operator + cannot take a string and an integer: the schema of variable "user" makes user.name a string`},
		{"concatenation is fine", `{{ user.name ~ user.age }}{{ user.name + "!" }}{{ user.age * 2 }}{{ "%s" % user.age }}`, nil, ""},
		{"loop over a number", "{% for x in user.age %}{{ x }}{% endfor %}",
			nil, `t.md:1:13: template "t": for needs a string or an array or an object, but the schema of variable "user" makes user.age an integer`},
		{"default keeps the path", `{{ user.nick | default("无") }}`,
			nil, `t.md:1:4: template "t": user.nick is not in the schema of variable "user": user has no property "nick" (it has: age, name, profile, scores, tags)`},
		{"untyped variables keep today's rules", "{{ plain.anything.at.all | upper }}{{ plain - 1 }}", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manager.New(set(typedIndex(userSchema), typedSet(tc.src, tc.files)))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			require.ErrorIs(t, err, manager.ErrSchema)
			require.ErrorIs(t, err, manager.ErrTemplate)
			var e *manager.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, []string{"user"}, e.Variables)
			assert.Equal(t, "schema", manager.ErrorKind(err))
		})
	}
}

// A property named as a dict method is read with [...], as in Jinja.
func TestTypedPropertyNamedAsAMethod(t *testing.T) {
	idx := typedIndex(`{"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}}`)
	_, err := manager.New(set(idx, typedSet("{{ user.items | length }}", nil)))
	require.ErrorIs(t, err, manager.ErrSchema)
	assert.Equal(t, `t.md:1:4: template "t": user.items reads the method items of user, not its property "items": in Jinja an object's methods come before its keys; write user["items"]`, err.Error())

	m, err := manager.New(set(idx, typedSet(`{{ user["items"] | length }} {{ user.items() | list | length }}`, nil)))
	require.NoError(t, err)
	out, err := m.Render("t", map[string]any{"user": map[string]any{"items": []any{"a", "b"}}})
	require.NoError(t, err)
	assert.Equal(t, "2 1", out)
}

// TestTypedSchemaKinds: how the parts of JSON Schema shape the checks.
func TestTypedSchemaKinds(t *testing.T) {
	tests := []struct {
		name, schema, src string
		ok                bool
	}{
		{"additionalProperties true opens the object", `{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}`, "{{ user.b }}", true},
		{"additionalProperties schema types the rest", `{"type": "object", "additionalProperties": {"type": "integer"}}`, "{{ user.b | upper }}", false},
		{"patternProperties opens the object", `{"type": "object", "properties": {"a": {}}, "patternProperties": {"^x": {}}}`, "{{ user.x1 }}", true},
		{"no properties is a map", `{"type": "object"}`, "{{ user.anything }}", true},
		{"nullable object", `{"type": ["object", "null"], "properties": {"a": {"type": "string"}}}`, "{{ user.b }}", false},
		{"anyOf unions the properties", `{"anyOf": [{"type": "object", "properties": {"a": {}}}, {"type": "object", "properties": {"b": {}}}]}`, "{{ user.a }}{{ user.b }}", true},
		{"anyOf refuses what neither has", `{"anyOf": [{"type": "object", "properties": {"a": {}}}, {"type": "object", "properties": {"b": {}}}]}`, "{{ user.c }}", false},
		{"allOf merges the properties", `{"allOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]}`, "{{ user.a }}{{ user.b }}", true},
		{"$defs and $ref", `{"$defs": {"u": {"type": "object", "properties": {"a": {"type": "string"}}}}, "$ref": "#/$defs/u"}`, "{{ user.b }}", false},
		{"recursive schema", `{"$defs": {"n": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}, "v": {}}}}, "$ref": "#/$defs/n"}`,
			"{% for k in user.kids %}{% for g in k.kids %}{{ g.v }}{{ g.w }}{% endfor %}{% endfor %}", false},
		{"enum of strings is a string", `{"enum": ["a", "b"]}`, "{{ user - 1 }}", false},
		{"true schema is anything", `true`, "{{ user.x.y - 1 }}", true},
		{"prefixItems", `{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}`, "{{ user[1] | upper }}", false},
		{"items of an object array", `{"type": "array", "items": {"type": "object", "properties": {"id": {}}}}`, "{% for x in user %}{{ x.id }}{% endfor %}{{ user[0].id }}{{ (user | first).id }}{{ (user | last).idd }}", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manager.New(set(typedIndex(tc.schema), typedSet(tc.src, nil)))
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, manager.ErrSchema, "%v", err)
			}
		})
	}
}

// TestTypedSchemaFiles: $ref to files of the set, and what is refused.
func TestTypedSchemaFiles(t *testing.T) {
	idx := func(ref string) string {
		return `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "user", "schema": {"$ref": "` + ref + `"}}]}}}`
	}
	t.Run("a file of the set", func(t *testing.T) {
		files := map[string]string{"t.md": "{{ user.nmae }}", "schemas/user.json": userSchema}
		_, err := manager.New(set(idx("schemas/user.json"), files))
		require.ErrorIs(t, err, manager.ErrSchema)
		assert.Contains(t, err.Error(), `did you mean "name"?`)
	})
	t.Run("a file referring to another", func(t *testing.T) {
		files := map[string]string{"t.md": "{{ user.tag.nmae }}", "schemas/user.json": `{"type": "object", "properties": {"tag": {"$ref": "tag.json"}}}`,
			"schemas/tag.json": `{"type": "object", "properties": {"name": {"type": "string"}}}`}
		_, err := manager.New(set(idx("schemas/user.json"), files))
		require.ErrorIs(t, err, manager.ErrSchema)
		assert.Contains(t, err.Error(), `user.tag has no property "nmae"; did you mean "name"?`)
	})
	refused := []struct{ name, ref, want string }{
		{"missing file", "schemas/nope.json", `index.json: template "t": variable "user": schema: cannot read schemas/nope.json: no such file (paths are relative to the template set's root)`},
		{"outside the set", "../user.json", `index.json: template "t": variable "user": schema: cannot read`},
		{"a URL", "https://example.com/user.json", `index.json: template "t": variable "user": schema: cannot read https://example.com/user.json: schemas are read only from files of the template set, not from https://example.com/user.json`},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manager.New(set(idx(tc.ref), map[string]string{"t.md": "{{ user }}"}))
			require.ErrorIs(t, err, manager.ErrSchema)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("an invalid schema", func(t *testing.T) {
		_, err := manager.New(set(typedIndex(`{"type": "strnig"}`), typedSet("{{ user }}", nil)))
		require.ErrorIs(t, err, manager.ErrSchema)
		assert.Contains(t, err.Error(), `index.json: template "t": variable "user": schema: `)
	})
	t.Run("a default that breaks the schema", func(t *testing.T) {
		index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "n", "required": false, "default": "x", "schema": {"type": "integer"}}]}}}`
		_, err := manager.New(set(index, map[string]string{"t.md": "{{ n }}"}))
		require.ErrorIs(t, err, manager.ErrSchema)
		assert.Equal(t, `index.json: template "t": variable "n": the default does not match the schema: n: want integer, got string`, err.Error())
	})
	t.Run("the schema file is in the digest", func(t *testing.T) {
		files := map[string]string{"t.md": "{{ user.name }}", "schemas/user.json": userSchema}
		a, err := manager.New(set(idx("schemas/user.json"), files))
		require.NoError(t, err)
		files["schemas/user.json"] = strings.Replace(userSchema, `"age"`, `"years"`, 1)
		b, err := manager.New(set(idx("schemas/user.json"), files))
		require.NoError(t, err)
		assert.NotEqual(t, a.Digest(), b.Digest())
	})
	t.Run("Templates shows the schema", func(t *testing.T) {
		m, err := manager.New(set(idx("schemas/user.json"), map[string]string{"t.md": "{{ user.name }}", "schemas/user.json": userSchema}))
		require.NoError(t, err)
		tm, _ := m.Lookup("t")
		assert.JSONEq(t, `{"$ref": "schemas/user.json"}`, string(tm.Variables[0].Schema))
	})
}

// Profile is a host's own type: validated as encoding/json encodes it.
type Profile struct {
	City   string `json:"city,omitzero"`
	Secret string `json:"-"`
}

type User struct {
	Name    string    `json:"name"`
	Age     int       `json:"age,omitempty"`
	Tags    []string  `json:"tags,omitzero"`
	Profile *Profile  `json:"profile,omitzero"`
	Scores  []float64 `json:"scores,omitzero"`
}

// TestTypedRender: values are validated before rendering; every
// offending path is named, sorted.
func TestTypedRender(t *testing.T) {
	index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [
	  {"name": "user", "schema": ` + userSchema + `},
	  {"name": "n", "required": false, "schema": {"type": "integer"}},
	  {"name": "plain", "required": false}]}}}`
	m, err := manager.New(set(index, map[string]string{"t.md": "{{ user.name }}{% for t in user.tags | default([]) %},{{ t }}{% endfor %}{{ n | default('') }}{{ plain | default('') }}"}))
	require.NoError(t, err)
	tests := []struct {
		name string
		vars map[string]any
		want string // the output, or the error
		err  error
	}{
		{"JSON values", map[string]any{"user": map[string]any{"name": "A", "tags": []any{"x", "y"}}, "n": int64(3)}, "A,x,y3", nil},
		{"Go values", map[string]any{"user": User{Name: "B", Tags: []string{"z"}, Profile: &Profile{City: "C", Secret: "s"}}}, "B,z", nil},
		{"a pointer", map[string]any{"user": &User{Name: "P"}}, "P", nil},
		{"untyped variables are not validated", map[string]any{"user": map[string]any{"name": "A"}, "plain": []int{1}}, "A[1]", nil},
		{"every path, sorted", map[string]any{"user": map[string]any{"name": 1, "tags": []any{"a", 2, "b", true, "c", "d", "e", "f", "g", "h", 11.5}}, "n": "3"},
			`t.md: template "t": invalid variables: n: want integer, got string; user.name: want string, got number; user.tags[1]: want string, got number; user.tags[3]: want string, got boolean; user.tags[10]: want string, got number`, manager.ErrInvalidVariables},
		{"a missing property", map[string]any{"user": map[string]any{"age": 3}},
			`t.md: template "t": invalid variables: user.name: missing, and the schema requires it`, manager.ErrInvalidVariables},
		{"nil", map[string]any{"user": nil},
			`t.md: template "t": invalid variables: user: want object, got null`, manager.ErrInvalidVariables},
		{"a Go map of the wrong type", map[string]any{"user": map[string]int{"name": 1}},
			`t.md: template "t": invalid variables: user.name: want string, got number`, manager.ErrInvalidVariables},
		{"a float for an integer", map[string]any{"user": map[string]any{"name": "x"}, "n": 2.5},
			`t.md: template "t": invalid variables: n: want integer, got number`, manager.ErrInvalidVariables},
		{"missing comes first", map[string]any{"n": "x"}, `t.md: template "t": missing variables: user`, manager.ErrMissingVariables},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := m.Render("t", tc.vars)
			if tc.err == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, out)
				return
			}
			require.ErrorIs(t, err, tc.err)
			assert.Equal(t, tc.want, err.Error())
			assert.Empty(t, out)
		})
	}
	t.Run("variables names the typed variables that failed", func(t *testing.T) {
		_, err := m.Render("t", map[string]any{"user": map[string]any{"name": 1}, "n": "x"})
		var e *manager.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, []string{"n", "user"}, e.Variables)
		assert.Equal(t, "invalid_variables", manager.ErrorKind(err))
	})
	t.Run("through Partial and WithFunc", func(t *testing.T) {
		p, err := m.Partial("t", map[string]any{"user": map[string]any{"name": "A"}},
			manager.WithFunc("n", func(map[string]any) (any, error) { return "seven", nil }))
		require.NoError(t, err)
		_, err = p.Render(nil)
		require.ErrorIs(t, err, manager.ErrInvalidVariables)
		assert.Contains(t, err.Error(), "n: want integer, got string")
	})
	t.Run("RenderMessages validates too", func(t *testing.T) {
		_, err := m.RenderMessages("t", map[string]any{"user": map[string]any{"name": false}})
		require.ErrorIs(t, err, manager.ErrInvalidVariables)
	})
}

// A typed variable the template never reads is still checked when it is
// passed: the values the render binds are looked up once, for the check,
// the schema and the engine, and this one has no place among the engine's.
func TestTypedVariableNeverRead(t *testing.T) {
	index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [
	  {"name": "shown", "schema": {"type": "string"}},
	  {"name": "kept", "required": false, "schema": {"type": "integer"}},
	  {"name": "later", "required": false, "default": "d", "schema": {"type": "string"}}]}}}`
	m, err := manager.New(set(index, map[string]string{"t.md": "{{ shown }}|{{ later }}"}))
	require.NoError(t, err)
	out, err := m.Render("t", map[string]any{"shown": "a", "kept": 3})
	require.NoError(t, err)
	assert.Equal(t, "a|d", out, "an optional variable not passed takes its default")
	_, err = m.Render("t", map[string]any{"shown": "a", "kept": "three"})
	require.ErrorIs(t, err, manager.ErrInvalidVariables)
	assert.Equal(t, `t.md: template "t": invalid variables: kept: want integer, got string`, err.Error())
	_, err = m.Render("t", map[string]any{"shown": 1, "later": 2})
	require.ErrorIs(t, err, manager.ErrInvalidVariables)
	assert.Equal(t, `t.md: template "t": invalid variables: later: want string, got number; shown: want string, got number`, err.Error())
}

// An override passes the type checks a file passes.
func TestTypedOverride(t *testing.T) {
	m, err := manager.New(set(typedIndex(userSchema), typedSet("{{ user.name }}", nil)))
	require.NoError(t, err)
	err = m.Override("t", "{{ user.nmae }}")
	require.ErrorIs(t, err, manager.ErrSchema)
	assert.Equal(t, `t.md (override):1:4: template "t": user.nmae is not in the schema of variable "user": user has no property "nmae"; did you mean "name"?`, err.Error())
	require.NoError(t, m.Override("t", "{{ user.age }}"))
	_, err = m.Render("t", map[string]any{"user": map[string]any{"name": "A", "age": "x"}})
	require.ErrorIs(t, err, manager.ErrInvalidVariables, "the override keeps the entry's schemas")
}

// Typed renders are safe for concurrent use (run with -race).
func TestTypedConcurrentRenders(t *testing.T) {
	m, err := manager.New(set(typedIndex(userSchema), typedSet("{{ user.name }}{{ user.tags | join(',') }}", nil)))
	require.NoError(t, err)
	done := make(chan error, 8)
	for i := range 8 {
		go func() {
			for j := range 200 {
				tags := []any{"a", "b"}
				if (i+j)%3 == 0 {
					tags = append(tags, j)
				}
				_, err := m.Render("t", map[string]any{"user": map[string]any{"name": "n", "tags": tags}})
				if (i+j)%3 == 0 && !errors.Is(err, manager.ErrInvalidVariables) || (i+j)%3 != 0 && err != nil {
					done <- fmt.Errorf("goroutine %d, render %d: %v", i, j, err)
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		require.NoError(t, <-done)
	}
}

// SchemaFiles lists the files the schemas read, through $refs of $refs,
// and no other file of the set.
func TestSchemaFiles(t *testing.T) {
	m, err := manager.New(set(typedIndex(`{"$ref": "schemas/user.json"}`), typedSet("{{ user.name }}", map[string]string{
		"schemas/user.json":    `{"type": "object", "properties": {"name": {"type": "string"}, "home": {"$ref": "address.json"}}}`,
		"schemas/address.json": `{"type": "object"}`,
		"schemas/unused.json":  `{}`,
	})))
	require.NoError(t, err)
	assert.Equal(t, []string{"schemas/address.json", "schemas/user.json"}, m.SchemaFiles())

	plain, err := manager.New(set(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["x"]}}}`, map[string]string{"t.md": "{{ x }}"}))
	require.NoError(t, err)
	assert.Empty(t, plain.SchemaFiles())
}

// nestedAlternatives is the reproducer's schema: levels of anyOf, oneOf
// and allOf over the same next level twice, about 2 KB, that applies
// 2^levels subschemas to a 10-byte value.
func nestedAlternatives(levels int) string {
	kws := []string{"anyOf", "oneOf", "allOf"}
	var defs []string
	for i := range levels {
		next := fmt.Sprintf(`{"$ref": "#/$defs/l%d"}`, i+1)
		defs = append(defs, fmt.Sprintf(`"l%d": {%q: [%s, %s]}`, i, kws[i%3], next, next))
	}
	defs = append(defs, fmt.Sprintf(`"l%d": {"type": "string", "minLength": 20}`, levels))
	return `{"$defs": {` + strings.Join(defs, ", ") + `}, "$ref": "#/$defs/l0"}`
}

// A schema whose validation would cost beyond any budget is refused at
// load, naming the variable, the schema's file and the subschema's JSON
// pointer, in time, whether a value or a default would have met it.
func TestTypedSchemaShape(t *testing.T) {
	schema := nestedAlternatives(30)
	require.Less(t, len(schema), 2200)
	index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [
	  {"name": "q", "schema": {"$ref": "schemas/q.json"}},
	  {"name": "d", "required": false, "default": "short text", "schema": ` + schema + `}]}}}`
	start := time.Now()
	_, err := manager.New(set(index, map[string]string{"t.md": "{{ q }}{{ d }}", "schemas/q.json": schema}))
	require.ErrorIs(t, err, manager.ErrSchema)
	problems := manager.Problems(err)
	require.Len(t, problems, 2)
	assert.Equal(t, `schemas/q.json: template "t": variable "q": schema: schemas/q.json#/$defs/l18: written out with every $ref replaced by its target, the schema has more than 10000 subschemas (nested anyOf, oneOf or allOf over the same subschemas multiply them)`, problems[0].Error())
	assert.Equal(t, []string{"q"}, problems[0].Variables)
	assert.Equal(t, `index.json: template "t": variable "d": schema: #/$defs/l18: written out with every $ref replaced by its target, the schema has more than 10000 subschemas (nested anyOf, oneOf or allOf over the same subschemas multiply them)`, problems[1].Error())
	assert.Less(t, time.Since(start), hangBound, "refused from its shape, not by validating the default")
}

// doublingSchema passes the shape limits, yet on a list nested n deep
// whose innermost list is empty applies 2^n subschemas (each level tries
// both alternatives): its validation is bounded by the work budget.
const doublingSchema = `{"$defs": {
	"n": {"anyOf": [{"$ref": "#/$defs/m"}, {"$ref": "#/$defs/m"}]},
	"m": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/n"}}},
  "$ref": "#/$defs/n"}`

// A value whose validation would exceed the render's work budget is
// refused with ErrOutputLimit before the validation starts; one that
// takes longer than the render's deadline ends with ErrCanceled; the
// manager renders on afterwards.
func TestTypedValidationBudget(t *testing.T) {
	index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [
	  {"name": "nest", "required": false, "schema": ` + doublingSchema + `},
	  {"name": "n", "required": false, "schema": {"type": "integer", "maximum": 10}},
	  {"name": "p", "required": false, "schema": {"type": "string", "pattern": "^(a|b|ab|ba)*[a-z]{1,1000}x$"}}]}}}`
	m, err := manager.New(set(index, map[string]string{"t.md": `{{ nest | default("") }}{{ n | default("") }}{{ p | default("") | length }}`}))
	require.NoError(t, err)
	deep := `[]`
	for range 48 {
		deep = "[" + deep + "]"
	}
	for name, body := range map[string]string{
		"alternatives doubling at each level":          `{"nest": ` + deep + `}`,
		"a number of a million digits against maximum": `{"n": ` + strings.Repeat("9", 1_000_000) + `}`,
		"a complex pattern against a long string":      `{"p": "` + strings.Repeat("ab", 500_000) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			vars, err := manager.DecodeJSON([]byte(body))
			require.NoError(t, err)
			start := time.Now()
			_, err = m.Render("t", vars.(map[string]any))
			require.ErrorIs(t, err, manager.ErrOutputLimit)
			assert.Regexp(t, `^t\.md: template "t": validating variable "(nest|n|p)" against its schema would exceed the work budget \(WithMaxWork\)$`, err.Error())
			assert.Less(t, time.Since(start), hangBound)
			out, err := m.Render("t", map[string]any{"n": 3, "p": "abx"})
			require.NoError(t, err)
			assert.Equal(t, "33", out, "the manager renders on")
		})
	}

	slow, err := manager.New(set(index, map[string]string{"t.md": "{{ nest }}"}), manager.WithMaxWork(1<<50), manager.WithMaxRenderTime(50*time.Millisecond))
	require.NoError(t, err)
	vars, err := manager.DecodeJSON([]byte(`{"nest": ` + deep + `}`))
	require.NoError(t, err)
	_, err = slow.Render("t", vars.(map[string]any))
	require.ErrorIs(t, err, manager.ErrCanceled)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), `render cancelled while validating variable "nest"`)
}

// The validation's work is the render's: what validating spends, the
// template cannot spend again.
func TestTypedValidationSharesTheBudget(t *testing.T) {
	list := make([]any, 2000)
	for i := range list {
		list[i] = "item"
	}
	src := `{{ l | length }}{% for i in range(60000) %}{% endfor %}`
	for _, c := range []struct {
		schema string
		ok     bool
	}{
		{`{"type": "array"}`, true}, // the quick path: a unit a value
		{`{"type": "array", "items": {"type": "string", "minLength": 1}}`, false}, // the library: each item costs more than 128 units
	} {
		index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "l", "schema": ` + c.schema + `}]}}}`
		m, err := manager.New(set(index, map[string]string{"t.md": src}), manager.WithMaxWork(300_000))
		require.NoError(t, err)
		out, err := m.Render("t", map[string]any{"l": list})
		if c.ok {
			require.NoError(t, err, c.schema)
			assert.Equal(t, "2000", out)
			continue
		}
		require.ErrorIs(t, err, manager.ErrOutputLimit, c.schema)
		assert.Contains(t, err.Error(), "t.md:1:", "the template ran out of the work the validation left")
		assert.Contains(t, err.Error(), "WithMaxWork")
	}
}
