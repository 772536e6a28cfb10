package setdiff

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// contractOfIndex reads the contracts of an index.json's templates (each
// template's source prints its variables).
func contractOfIndex(t *testing.T, index string, files map[string]string) (map[string]*Template, fstest.MapFS) {
	t.Helper()
	fsys := fstest.MapFS{"index.json": {Data: []byte(index)}}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	m, err := manager.New(fsys)
	require.NoError(t, err)
	defer m.Close()
	out := map[string]*Template{}
	for _, tpl := range m.Templates() {
		out[tpl.Name] = contractOf(tpl)
	}
	return out, fsys
}

// indexOf is an index.json of templates, each declaring vars (JSON).
func indexOf(templates map[string]string) string {
	index := `{"version": 1, "templates": {`
	for i, name := range slices.Sorted(maps.Keys(templates)) {
		if i > 0 {
			index += ", "
		}
		index += fmt.Sprintf(`%q: {"path": "%s.md", "variables": %s}`, name, name, templates[name])
	}
	return index + "}}"
}

// contractChanges compares two indexes' contracts and returns every change
// as "class template: path: message (RULE)".
func contractChanges(t *testing.T, a, b map[string]string, schemaFiles ...map[string]string) []string {
	t.Helper()
	ia, ib := indexOf(a), indexOf(b)
	filesA, filesB := sources(a), sources(b)
	if len(schemaFiles) == 2 {
		for p, s := range schemaFiles[0] {
			filesA[p] = s
		}
		for p, s := range schemaFiles[1] {
			filesB[p] = s
		}
	}
	ca, fa := contractOfIndex(t, ia, filesA)
	cb, fb := contractOfIndex(t, ib, filesB)
	c := &comparer{ra: newSchemaReader(fa), rb: newSchemaReader(fb), seen: map[string]bool{}}
	c.compareContracts(ca, cb)
	require.Empty(t, c.notes)
	var out []string
	for _, ch := range c.changes {
		out = append(out, ch.String())
	}
	return out
}

// sources are template files that read every variable a template
// declares (so none is unused), whatever its type.
func sources(templates map[string]string) map[string]string {
	files := map[string]string{}
	for name, vars := range templates {
		var names []string
		for _, v := range parseVars(vars) {
			names = append(names, "{{ "+v+" is defined }}")
		}
		files[name+".md"] = fmt.Sprint(names)
	}
	return files
}

func parseVars(vars string) []string {
	v, err := decodeJSON([]byte(vars))
	if err != nil {
		panic(err)
	}
	var out []string
	for _, x := range v.([]any) {
		switch y := x.(type) {
		case string:
			out = append(out, y)
		case map[string]any:
			out = append(out, y["name"].(string))
		}
	}
	return out
}

var contractCases = []struct {
	rule string
	a, b map[string]string
	want []string
}{
	{"TEMPLATE_REMOVED", map[string]string{"t": `[]`, "u": `[]`}, map[string]string{"t": `[]`},
		[]string{"breaking u: the template was removed (TEMPLATE_REMOVED)"}},
	{"TEMPLATE_ADDED", map[string]string{"t": `[]`}, map[string]string{"t": `[]`, "u": `["x"]`},
		[]string{"compatible u: the template was added (TEMPLATE_ADDED)"}},
	{"VARIABLE_REQUIRED_ADDED", map[string]string{"t": `["x"]`}, map[string]string{"t": `["x", "y"]`},
		[]string{"breaking t: y: a required variable was added; calls that do not pass it fail (VARIABLE_REQUIRED_ADDED)"}},
	{"VARIABLE_OPTIONAL_ADDED", map[string]string{"t": `["x"]`},
		map[string]string{"t": `["x", {"name": "tone", "required": false, "default": "正式"}, {"name": "n", "required": false}]`},
		[]string{
			`compatible t: tone: an optional variable was added, default "正式" (VARIABLE_OPTIONAL_ADDED)`,
			`compatible t: n: an optional variable was added, without a default (VARIABLE_OPTIONAL_ADDED)`,
		}},
	{"VARIABLE_REMOVED", map[string]string{"t": `["x", "y"]`}, map[string]string{"t": `["x"]`},
		[]string{"breaking t: y: the variable was removed; calls that pass it fail (VARIABLE_REMOVED)"}},
	{"VARIABLE_MADE_REQUIRED", map[string]string{"t": `[{"name": "x", "required": false}]`}, map[string]string{"t": `["x"]`},
		[]string{"breaking t: x: the variable became required (VARIABLE_MADE_REQUIRED)"}},
	{"VARIABLE_MADE_OPTIONAL", map[string]string{"t": `["x"]`}, map[string]string{"t": `[{"name": "x", "required": false, "default": 1}]`},
		[]string{"compatible t: x: the variable became optional (VARIABLE_MADE_OPTIONAL)"}},
	{"VARIABLE_DEFAULT_CHANGED",
		map[string]string{"t": `[{"name": "a", "required": false, "default": 1}, {"name": "b", "required": false, "default": [1]}, {"name": "c", "required": false}, {"name": "d", "required": false, "default": 1.0}]`},
		map[string]string{"t": `[{"name": "a", "required": false, "default": 2}, {"name": "b", "required": false}, {"name": "c", "required": false, "default": "x"}, {"name": "d", "required": false, "default": 1}]`},
		[]string{
			"breaking t: a: the default changed from 1 to 2 (VARIABLE_DEFAULT_CHANGED)",
			"breaking t: b: the default [1] was removed (VARIABLE_DEFAULT_CHANGED)",
			`breaking t: c: a default "x" was added (VARIABLE_DEFAULT_CHANGED)`,
		}},
	{"VARIABLE_TYPED", map[string]string{"t": `["x"]`}, map[string]string{"t": `[{"name": "x", "schema": {"type": "string"}}]`},
		[]string{"breaking t: x: the variable got a schema (VARIABLE_TYPED)"}},
	{"VARIABLE_UNTYPED", map[string]string{"t": `[{"name": "x", "schema": {"type": "string"}}]`}, map[string]string{"t": `["x"]`},
		[]string{"compatible t: x: the variable's schema was removed (VARIABLE_UNTYPED)"}},
}

func TestTemplateAndVariableRules(t *testing.T) {
	for _, tc := range contractCases {
		t.Run(tc.rule, func(t *testing.T) {
			assert.Equal(t, tc.want, contractChanges(t, tc.a, tc.b))
		})
	}
}

// schemaChanges compares two schemas of one value, x, in a direction.
func schemaChanges(t *testing.T, a, b string, dir Direction, files ...map[string]string) []string {
	t.Helper()
	fa, fb := fstest.MapFS{}, fstest.MapFS{}
	if len(files) == 2 {
		for p, s := range files[0] {
			fa[p] = &fstest.MapFile{Data: []byte(s)}
		}
		for p, s := range files[1] {
			fb[p] = &fstest.MapFile{Data: []byte(s)}
		}
	}
	c := &comparer{ra: newSchemaReader(fa), rb: newSchemaReader(fb), seen: map[string]bool{}, template: "t"}
	c.compareSchemas([]byte(a), []byte(b), "x", dir)
	require.Empty(t, c.notes)
	var out []string
	for _, ch := range c.changes {
		out = append(out, ch.String())
	}
	return out
}

// Every schema rule on pairs of schemas, in both directions: what narrows
// breaks an input and not an output, what widens the reverse.
var schemaCases = []struct {
	rule string
	a, b string
	want []string // the Input direction's; Output's classes follow from the rule
}{
	{"SCHEMA_TYPE_NARROWED", `{"type": ["string", "null"]}`, `{"type": "string"}`,
		[]string{"breaking t: x: type narrowed: null no longer allowed (SCHEMA_TYPE_NARROWED)"}},
	{"SCHEMA_TYPE_NARROWED", `{"type": "number"}`, `{"type": "integer"}`,
		[]string{"breaking t: x: type narrowed: non-integer number no longer allowed (SCHEMA_TYPE_NARROWED)"}},
	{"SCHEMA_TYPE_NARROWED", `{}`, `{"type": "object"}`,
		[]string{"breaking t: x: type narrowed: null, boolean, number, string, array no longer allowed (SCHEMA_TYPE_NARROWED)"}},
	{"SCHEMA_TYPE_WIDENED", `{"type": "integer"}`, `{"type": "number"}`,
		[]string{"compatible t: x: type widened: non-integer number now allowed (SCHEMA_TYPE_WIDENED)"}},
	{"SCHEMA_ENUM_ADDED", `{"type": "string"}`, `{"type": "string", "enum": ["a", "b"]}`,
		[]string{`breaking t: x: an enum was added: only ["a","b"] (SCHEMA_ENUM_ADDED)`}},
	{"SCHEMA_ENUM_REMOVED", `{"enum": ["a"]}`, `{"type": "string"}`,
		[]string{"compatible t: x: the enum was removed (SCHEMA_ENUM_REMOVED)"}},
	{"SCHEMA_ENUM_VALUE_REMOVED", `{"enum": ["a", "b", 1]}`, `{"enum": ["a", 1.0]}`,
		[]string{`breaking t: x: "b" removed from the enum (SCHEMA_ENUM_VALUE_REMOVED)`}},
	{"SCHEMA_ENUM_VALUE_ADDED", `{"enum": ["a"]}`, `{"enum": ["a", "c"]}`,
		[]string{`compatible t: x: "c" added to the enum (SCHEMA_ENUM_VALUE_ADDED)`}},
	{"SCHEMA_CONST_ADDED", `{"type": "string"}`, `{"type": "string", "const": "v1"}`,
		[]string{`breaking t: x: a const "v1" was added (SCHEMA_CONST_ADDED)`}},
	{"SCHEMA_CONST_REMOVED", `{"type": "string", "const": "v1"}`, `{"type": "string"}`,
		[]string{"compatible t: x: the const was removed (SCHEMA_CONST_REMOVED)"}},
	{"SCHEMA_CONST_CHANGED", `{"const": "v1"}`, `{"const": "v2"}`,
		[]string{`breaking t: x: the const changed from "v1" to "v2" (SCHEMA_CONST_CHANGED)`}},
	{"SCHEMA_PROPERTY_ADDED", `{"type": "object", "properties": {"a": {}}, "additionalProperties": false}`,
		`{"type": "object", "properties": {"a": {}, "b": {"type": "string"}}, "additionalProperties": false}`,
		[]string{"compatible t: x.b: the property was added (SCHEMA_PROPERTY_ADDED)"}},
	{"SCHEMA_PROPERTY_REMOVED", `{"type": "object", "properties": {"a": {}, "b": {}}, "additionalProperties": false}`,
		`{"type": "object", "properties": {"a": {}}, "additionalProperties": false}`,
		[]string{"breaking t: x.b: the property was removed, and the object allows no other properties (SCHEMA_PROPERTY_REMOVED)"}},
	{"SCHEMA_REQUIRED_ADDED", `{"type": "object", "properties": {"a": {}}}`, `{"type": "object", "properties": {"a": {}}, "required": ["a"]}`,
		[]string{"breaking t: x.a: the property became required (SCHEMA_REQUIRED_ADDED)"}},
	{"SCHEMA_REQUIRED_REMOVED", `{"type": "object", "required": ["a", "b"]}`, `{"type": "object", "required": ["b"]}`,
		[]string{"compatible t: x.a: the property is no longer required (SCHEMA_REQUIRED_REMOVED)"}},
	{"SCHEMA_ADDITIONAL_PROPERTIES_CLOSED", `{"type": "object"}`, `{"type": "object", "additionalProperties": false}`,
		[]string{"breaking t: x: other properties are no longer allowed (SCHEMA_ADDITIONAL_PROPERTIES_CLOSED)"}},
	{"SCHEMA_ADDITIONAL_PROPERTIES_OPENED", `{"type": "object", "additionalProperties": false}`, `{"type": "object", "additionalProperties": {"type": "string"}}`, []string{
		"compatible t: x: other properties are allowed now (SCHEMA_ADDITIONAL_PROPERTIES_OPENED)",
	}},
	{"SCHEMA_CONSTRAINT_TIGHTENED", `{"type": "string", "maxLength": 10}`, `{"type": "string", "maxLength": 5, "minLength": 1, "pattern": "^a"}`, []string{
		"breaking t: x: minLength 1 was added (SCHEMA_CONSTRAINT_TIGHTENED)",
		"breaking t: x: maxLength went from 10 to 5 (SCHEMA_CONSTRAINT_TIGHTENED)",
		`breaking t: x: pattern "^a" was added (SCHEMA_CONSTRAINT_TIGHTENED)`,
	}},
	{"SCHEMA_CONSTRAINT_LOOSENED", `{"type": "integer", "minimum": 1, "maximum": 5, "uniqueItems": true}`, `{"type": "integer", "minimum": 0}`, []string{
		"compatible t: x: minimum went from 1 to 0 (SCHEMA_CONSTRAINT_LOOSENED)",
		"compatible t: x: maximum 5 was removed (SCHEMA_CONSTRAINT_LOOSENED)",
		"compatible t: x: uniqueItems was removed (SCHEMA_CONSTRAINT_LOOSENED)",
	}},
	{"SCHEMA_CONSTRAINT_CHANGED", `{"type": "string", "format": "date"}`, `{"type": "string", "format": "date-time"}`,
		[]string{`breaking t: x: format changed from "date" to "date-time" (SCHEMA_CONSTRAINT_CHANGED)`}},
	{"SCHEMA_ALTERNATIVES_CHANGED", `{"anyOf": [{"type": "string"}, {"type": "null"}]}`, `{"anyOf": [{"type": "string"}, {"type": "null"}, {"type": "integer"}]}`,
		[]string{"breaking t: x: anyOf had 2 alternatives and has 3 (SCHEMA_ALTERNATIVES_CHANGED)"}},
	{"SCHEMA_KEYWORD_CHANGED", `{"type": "string"}`, `{"type": "string", "not": {"const": ""}}`,
		[]string{`breaking t: x: not changed from nothing to {"const":""} (SCHEMA_KEYWORD_CHANGED)`}},
}

func TestSchemaRules(t *testing.T) {
	for _, tc := range schemaCases {
		t.Run(tc.rule, func(t *testing.T) {
			got := schemaChanges(t, tc.a, tc.b, Input)
			assert.Equal(t, tc.want, got, "input")
			// The Output direction: each change with its rule's Output class.
			var want []string
			for _, w := range tc.want {
				for _, r := range Rules() {
					if strings.HasSuffix(w, " ("+r.ID+")") {
						class := string(r.Input)
						want = append(want, string(r.Output)+w[len(class):])
					}
				}
			}
			assert.Equal(t, want, schemaChanges(t, tc.a, tc.b, Output), "output")
		})
	}
}

// callChanges compares a template's call contract in two versions of its
// entry: each is the rest of the entry after its path.
func callChanges(t *testing.T, a, b string) []string {
	t.Helper()
	files := map[string]string{"t.md": `{% chat role="system" %}固定的说明。{% endchat %}{% chat role="user" %}问题{% endchat %}`}
	entry := func(rest string) string { return `{"version": 1, "templates": {"t": {"path": "t.md"` + rest + `}}}` }
	ca, fa := contractOfIndex(t, entry(a), files)
	cb, fb := contractOfIndex(t, entry(b), files)
	c := &comparer{ra: newSchemaReader(fa), rb: newSchemaReader(fb), seen: map[string]bool{}}
	c.compareContracts(ca, cb)
	require.Empty(t, c.notes)
	var out []string
	for _, ch := range c.changes {
		out = append(out, ch.String())
	}
	return out
}

const (
	weatherTool = `{"name": "get_weather", "description": "查询城市的天气预报；城市不存在时返回错误。", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}`
	timeTool    = `{"name": "get_time", "description": "查询城市此刻的当地时间；城市不存在时返回错误。"}`
)

// The call contract's rules: tools by name, their arguments and the
// answer compared in the Output direction (what widens breaks the host
// that reads them), the settings and the cache reported.
var callCases = []struct {
	rule string
	a, b string
	want []string
}{
	{"TOOL_REMOVED", `, "tools": [` + weatherTool + `, ` + timeTool + `]`, `, "tools": [` + weatherTool + `]`,
		[]string{"breaking t: @tools.get_time: the tool was removed (TOOL_REMOVED)"}},
	{"TOOL_ADDED", `, "tools": [` + weatherTool + `]`, `, "tools": [` + timeTool + `, ` + weatherTool + `]`,
		[]string{"compatible t: @tools.get_time: the tool was added (TOOL_ADDED)"}},
	{"TOOL_DESCRIPTION_CHANGED", `, "tools": [` + timeTool + `]`, `, "tools": [` + strings.Replace(timeTool, "此刻的", "", 1) + `]`,
		[]string{"compatible t: @tools.get_time: the description changed (TOOL_DESCRIPTION_CHANGED)"}},
	// The model passes the arguments to the host: narrowing them is
	// compatible, widening them breaks.
	{"SCHEMA_ENUM_ADDED", `, "tools": [` + weatherTool + `]`, `, "tools": [` + strings.Replace(weatherTool, `"city": {"type": "string"}`, `"city": {"type": "string", "enum": ["北京", "上海"]}`, 1) + `]`,
		[]string{`compatible t: @tools.get_weather.city: an enum was added: only ["北京","上海"] (SCHEMA_ENUM_ADDED)`}},
	{"SCHEMA_TYPE_WIDENED", `, "tools": [` + weatherTool + `]`, `, "tools": [` + strings.Replace(weatherTool, `"days": {"type": "integer"}`, `"days": {"type": "number"}`, 1) + `]`,
		[]string{"breaking t: @tools.get_weather.days: type widened: non-integer number now allowed (SCHEMA_TYPE_WIDENED)"}},
	{"OUTPUT_ADDED", ``, `, "output": {"type": "object"}`,
		[]string{"compatible t: @output: an output schema was added (OUTPUT_ADDED)"}},
	{"OUTPUT_REMOVED", `, "output": {"type": "object"}`, ``,
		[]string{"breaking t: @output: the output schema was removed (OUTPUT_REMOVED)"}},
	{"SCHEMA_REQUIRED_REMOVED", `, "output": {"type": "object", "properties": {"high": {"type": "number"}}, "required": ["high"]}`,
		`, "output": {"type": "object", "properties": {"high": {"type": "number"}}}`,
		[]string{"breaking t: @output.high: the property is no longer required (SCHEMA_REQUIRED_REMOVED)"}},
	{"MODEL_SETTING_CHANGED", `, "model": {"name": "gpt-4o", "temperature": 0.2, "openai": {"presence_penalty": 0.5}}`,
		`, "model": {"name": "gpt-4o-mini", "max_output_tokens": 512, "openai": {"presence_penalty": 1}}`,
		[]string{
			"compatible t: @model.max_output_tokens: set to 512 (MODEL_SETTING_CHANGED)",
			`compatible t: @model.name: changed from "gpt-4o" to "gpt-4o-mini" (MODEL_SETTING_CHANGED)`,
			`compatible t: @model.openai: changed from {"presence_penalty":0.5} to {"presence_penalty":1} (MODEL_SETTING_CHANGED)`,
			"compatible t: @model.temperature: 0.2 was removed (MODEL_SETTING_CHANGED)",
		}},
	{"CACHE_CHANGED", `, "cache": {"message": 0}`, `, "cache": {"message": 1, "ttl": "1h"}`,
		[]string{"compatible t: @cache: the cache breakpoint moved from message 0 to message 1 (ttl 1h) (CACHE_CHANGED)"}},
}

func TestCallRules(t *testing.T) {
	for _, tc := range callCases {
		t.Run(tc.rule, func(t *testing.T) {
			assert.Equal(t, tc.want, callChanges(t, tc.a, tc.b))
		})
	}
	assert.Empty(t, callChanges(t, `, "tools": [`+weatherTool+`], "model": {"name": "m"}, "output": {"type": "object"}, "cache": {"message": 0}`,
		`, "tools": [`+weatherTool+`], "model": {"name": "m"}, "output": {"type": "object"}, "cache": {"message": 0}`), "nothing changed")
}

// Every rule has a case of its own above, in which it fires.
func TestEveryRuleIsTested(t *testing.T) {
	fires := map[string]bool{}
	for _, tc := range contractCases {
		for _, w := range tc.want {
			fires[tc.rule] = fires[tc.rule] || strings.HasSuffix(w, "("+tc.rule+")")
		}
	}
	for _, tc := range schemaCases {
		for _, w := range tc.want {
			fires[tc.rule] = fires[tc.rule] || strings.HasSuffix(w, "("+tc.rule+")")
		}
	}
	for _, tc := range callCases {
		for _, w := range tc.want {
			fires[tc.rule] = fires[tc.rule] || strings.HasSuffix(w, "("+tc.rule+")")
		}
	}
	ids := map[string]bool{}
	for _, r := range Rules() {
		assert.True(t, fires[r.ID], "no case in which %s fires", r.ID)
		assert.NotEmpty(t, r.Doc, r.ID)
		assert.False(t, ids[r.ID], "%s twice", r.ID)
		ids[r.ID] = true
	}
}

// Schemas are compared through their $refs, nested values by the path a
// template reads them, and a recursive schema ends.
func TestSchemaWalk(t *testing.T) {
	files := []map[string]string{
		{"schemas/user.json": `{"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}`,
			"schemas/tree.json": `{"$defs": {"node": {"type": "object", "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}`},
		{"schemas/user.json": `{"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}}}}`,
			"schemas/tree.json": `{"$defs": {"node": {"type": "object", "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["label"]}}, "$ref": "#/$defs/node"}`},
	}
	assert.Equal(t, []string{
		"breaking t: x.name: maxLength 20 was added (SCHEMA_CONSTRAINT_TIGHTENED)",
		`breaking t: x.tags[]: an enum was added: only ["a","b"] (SCHEMA_ENUM_ADDED)`,
	}, schemaChanges(t, `{"$ref": "schemas/user.json"}`, `{"$ref": "schemas/user.json"}`, Input, files...))
	assert.Equal(t, []string{
		"breaking t: x.label: the property became required (SCHEMA_REQUIRED_ADDED)",
	}, schemaChanges(t, `{"$ref": "schemas/tree.json"}`, `{"$ref": "schemas/tree.json"}`, Input, files...))

	// A property declared where any value was allowed is compared with
	// what additionalProperties allowed.
	assert.Equal(t, []string{
		"breaking t: x.n: type narrowed: null, boolean, string, array, object no longer allowed (SCHEMA_TYPE_NARROWED)",
	}, schemaChanges(t, `{"type": "object"}`, `{"type": "object", "properties": {"n": {"type": "number"}}}`, Input))
	// A variable's whole contract through the index: schema files too.
	assert.Equal(t, []string{
		"breaking t: user.name: maxLength 20 was added (SCHEMA_CONSTRAINT_TIGHTENED)",
		`breaking t: user.tags[]: an enum was added: only ["a","b"] (SCHEMA_ENUM_ADDED)`,
	}, contractChanges(t,
		map[string]string{"t": `[{"name": "user", "schema": {"$ref": "schemas/user.json"}}]`},
		map[string]string{"t": `[{"name": "user", "schema": {"$ref": "schemas/user.json"}}]`}, files...))
}

// The README's table of rules names every rule.
func TestREADMEListsEveryRule(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for _, r := range Rules() {
		assert.Contains(t, string(readme), "`"+r.ID+"`", "README.md does not list %s", r.ID)
	}
}
