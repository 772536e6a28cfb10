package setdiff

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Template is a template's contract: what a program that renders it
// relies on. It is read from the set's index.json (manager.Template).
type Template struct {
	Name      string
	Variables []*Variable
	// The call contract its entry declares (manager.Contract): the model
	// settings, the tools, the output schema (nil when none; bundled, so
	// its $refs are inside it) and the cache breakpoint.
	Model  message.Settings
	Tools  []*Tool
	Output json.RawMessage
	Cache  *manager.Cache
}

// Tool is one tool of a template's call contract.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of its arguments, bundled.
	Parameters json.RawMessage
}

// Variable is one variable of a template's contract.
type Variable struct {
	Name       string
	Required   bool
	HasDefault bool
	Default    any // as manager.Template has it
	// Schema is the variable's JSON Schema as index.json gives it (nil
	// when untyped); $refs are resolved in its set when it is compared.
	Schema json.RawMessage
}

// contractOf is the contract of a manager's template.
func contractOf(t manager.Template) *Template {
	c := &Template{Name: t.Name, Model: t.Contract.Model, Cache: t.Contract.Cache}
	for _, v := range t.Variables {
		c.Variables = append(c.Variables, &Variable{Name: v.Name, Required: v.Required, HasDefault: v.HasDefault,
			Default: jsonOf(v.Default), Schema: v.Schema})
	}
	for _, tl := range t.Contract.Tools {
		c.Tools = append(c.Tools, &Tool{Name: tl.Name, Description: tl.Description, Parameters: tl.Parameters})
	}
	if o := t.Contract.Output; o != nil {
		c.Output = o.Schema
	}
	return c
}

// jsonOf turns a decoded default (integers as int64) into what the schema
// comparison reads (numbers as json.Number).
func jsonOf(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	out, err := decodeJSON(b)
	if err != nil {
		return v
	}
	return out
}

// Change is one change of the contract, found and classed by a rule.
type Change struct {
	// Rule is the ID of the rule that found it (see Rules).
	Rule string `json:"rule"`
	// Class is the rule's class for this change.
	Class Class `json:"class"`
	// Template is the template it is about.
	Template string `json:"template"`
	// Path is where in the template's contract: "" for the template
	// itself, a variable's name, and below it the path a template reads a
	// value by ("user.tags[]": the items of the list user.tags; "user.*":
	// its other properties; "user.anyOf[1]": an alternative). The call
	// contract's parts start with "@", which no variable's name does:
	// "@model.temperature", "@tools.get_weather" and its arguments below
	// it ("@tools.get_weather.city"), "@output" and the answer below it
	// ("@output.days[]"), "@cache".
	Path string `json:"path"`
	// Message says what changed, for people.
	Message string `json:"message"`
}

func (c Change) String() string {
	where := c.Template
	if c.Path != "" {
		where += ": " + c.Path
	}
	return fmt.Sprintf("%s %s: %s (%s)", c.Class, where, c.Message, c.Rule)
}

// comparer walks two contracts and runs the rules on every pair.
type comparer struct {
	ra, rb   *schemaReader
	template string
	changes  []Change
	notes    []string
	seen     map[string]bool
}

func (c *comparer) apply(check func(r *rule) []finding, at string, dir Direction) {
	for i := range rules {
		r := &rules[i]
		for _, f := range check(r) {
			class := r.Input
			if dir == Output {
				class = r.Output
			}
			c.changes = append(c.changes, Change{Rule: r.ID, Class: class, Template: c.template, Path: at + f.at, Message: f.msg})
		}
	}
}

// compareContracts compares the contracts of two sets' templates, by
// name.
func (c *comparer) compareContracts(a, b map[string]*Template) {
	for _, name := range slices.Sorted(maps.Keys(union2(a, b))) {
		ta, tb := a[name], b[name]
		c.template = name
		c.apply(func(r *rule) []finding {
			if r.template == nil {
				return nil
			}
			return r.template(ta, tb)
		}, "", Input)
		if ta == nil || tb == nil {
			continue
		}
		for _, vn := range variableNames(ta, tb) {
			va, vb := variable(ta, vn), variable(tb, vn)
			c.apply(func(r *rule) []finding {
				if r.variable == nil {
					return nil
				}
				return r.variable(va, vb)
			}, vn, Input)
			if va != nil && vb != nil && va.Schema != nil && vb.Schema != nil {
				c.compareSchemas(va.Schema, vb.Schema, vn, Input)
			}
		}
		c.compareCalls(ta, tb)
	}
}

// compareCalls compares two templates' call contracts: the model
// settings, the cache breakpoint, the output schema and the tools, by
// name. The values of the output schema and of a tool's parameters flow
// out to the host (a model's answer, a tool call's arguments): their
// schemas are compared in the Output direction.
func (c *comparer) compareCalls(a, b *Template) {
	c.apply(func(r *rule) []finding {
		if r.call == nil {
			return nil
		}
		return r.call(a, b)
	}, "", Input)
	for _, name := range toolNames(a, b) {
		ta, tb := tool(a, name), tool(b, name)
		at := "@tools." + name
		c.apply(func(r *rule) []finding {
			if r.tool == nil {
				return nil
			}
			return r.tool(ta, tb)
		}, at, Input)
		if ta != nil && tb != nil {
			c.compareSchemas(ta.Parameters, tb.Parameters, at, Output)
		}
	}
	if a.Output != nil && b.Output != nil {
		c.compareSchemas(a.Output, b.Output, "@output", Output)
	}
}

// toolNames are the tools of b in its order, then those only a has.
func toolNames(a, b *Template) []string {
	var out []string
	for _, t := range b.Tools {
		out = append(out, t.Name)
	}
	for _, t := range a.Tools {
		if !slices.Contains(out, t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}

func tool(t *Template, name string) *Tool {
	for _, tl := range t.Tools {
		if tl.Name == name {
			return tl
		}
	}
	return nil
}

func union2[T any](a, b map[string]T) map[string]T {
	out := make(map[string]T, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// variableNames are the variables of b in its order, then those only a has.
func variableNames(a, b *Template) []string {
	var out []string
	for _, v := range b.Variables {
		out = append(out, v.Name)
	}
	for _, v := range a.Variables {
		if !slices.Contains(out, v.Name) {
			out = append(out, v.Name)
		}
	}
	return out
}

func variable(t *Template, name string) *Variable {
	for _, v := range t.Variables {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// compareSchemas compares two schemas of one value (a variable's, or —
// in the Output direction — one a host receives), at the path at.
func (c *comparer) compareSchemas(rawA, rawB json.RawMessage, at string, dir Direction) {
	sa, err := c.ra.inline(rawA)
	if err == nil {
		var sb *schema
		if sb, err = c.rb.inline(rawB); err == nil {
			c.walk(sa, sb, at, dir)
			return
		}
	}
	c.notes = append(c.notes, fmt.Sprintf("%s: %s: the schemas were not compared: %v", c.template, at, err))
}

// empty is the schema that accepts everything.
func empty() *schema { return &schema{doc: &schemaDoc{}, v: map[string]any{}} }

// walk compares the schemas a and b of the value at the path at: the
// schema rules on their keywords, then their subschemas pair by pair.
func (c *comparer) walk(a, b *schema, at string, dir Direction) {
	var err error
	if a, err = c.ra.resolve(a); err == nil {
		b, err = c.rb.resolve(b)
	}
	if err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s: %s: not compared: %v", c.template, at, err))
		return
	}
	key := fmt.Sprintf("%p%s|%p%s|%d", a.doc, a.ptr, b.doc, b.ptr, dir)
	if c.seen[key] {
		return // a recursive schema: this pair is being compared already
	}
	c.seen[key] = true
	ka, kb := keywords(a), keywords(b)
	c.apply(func(r *rule) []finding {
		if r.schema == nil {
			return nil
		}
		return r.schema(ka, kb)
	}, at, dir)

	// A $ref beside other keywords is one more schema the value must match.
	ra, rb := c.refOf(a, ka, c.ra), c.refOf(b, kb, c.rb)
	if ra != nil || rb != nil {
		c.walk(orEmpty(ra), orEmpty(rb), at, dir)
	}

	// Properties: each one with the schema that checked it before and
	// checks it now (additionalProperties where it is not declared).
	pa, _ := ka["properties"].(map[string]any)
	pb, _ := kb["properties"].(map[string]any)
	for _, p := range slices.Sorted(maps.Keys(union2(pa, pb))) {
		va, inA := pa[p]
		vb, inB := pb[p]
		var sa, sb *schema
		switch {
		case inA && inB:
			sa, sb = a.child(va, "properties", p), b.child(vb, "properties", p)
		case inB && !closed(ka):
			sa, sb = additional(a, ka), b.child(vb, "properties", p)
		case inA && !closed(kb):
			sa, sb = a.child(va, "properties", p), additional(b, kb)
		default:
			continue // SCHEMA_PROPERTY_ADDED or _REMOVED said it
		}
		c.walk(sa, sb, at+"."+p, dir)
	}
	if isSchema(ka["additionalProperties"]) || isSchema(kb["additionalProperties"]) {
		if !closed(ka) && !closed(kb) {
			c.walk(additional(a, ka), additional(b, kb), at+".*", dir)
		}
	}
	if isSchema(ka["items"]) || isSchema(kb["items"]) {
		c.walk(sub(a, ka, "items"), sub(b, kb, "items"), at+"[]", dir)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		la, lb := list(ka[k]), list(kb[k])
		if len(la) != len(lb) {
			continue // SCHEMA_ALTERNATIVES_CHANGED said it
		}
		for i := range la {
			c.walk(a.child(la[i], k, strconv.Itoa(i)), b.child(lb[i], k, strconv.Itoa(i)), at+"."+k+"["+strconv.Itoa(i)+"]", dir)
		}
	}
}

// refOf is the schema a $ref beside other keywords names, or nil.
func (c *comparer) refOf(s *schema, k map[string]any, r *schemaReader) *schema {
	ref, ok := k["$ref"].(string)
	if !ok {
		return nil
	}
	t, err := r.ref(s, ref)
	if err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s: %v", c.template, err))
		return nil
	}
	return t
}

func orEmpty(s *schema) *schema {
	if s == nil {
		return empty()
	}
	return s
}

// isSchema reports whether v is a schema object (not absent, not a
// boolean).
func isSchema(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// additional is the schema of an object's undeclared properties.
func additional(s *schema, k map[string]any) *schema {
	if v, ok := k["additionalProperties"]; ok {
		return s.child(v, "additionalProperties")
	}
	return empty()
}

// sub is the subschema under key, or the empty schema.
func sub(s *schema, k map[string]any, key string) *schema {
	if v, ok := k[key]; ok && (isSchema(v) || isBool(v)) {
		return s.child(v, key)
	}
	return empty()
}

func isBool(v any) bool {
	_, ok := v.(bool)
	return ok
}
