package setdiff

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Class says whether a change breaks the programs that call a template.
type Class string

const (
	// Breaking: a call that worked may now fail, or a program that reads
	// what comes out may now get what it did not expect.
	Breaking Class = "breaking"
	// Compatible: every call that worked still works.
	Compatible Class = "compatible"
)

// Direction is which way the values a schema describes flow. A change that
// narrows what a schema accepts breaks those who send the values; one that
// widens it breaks those who receive them.
type Direction int

const (
	// Input: values flow into the template — a variable's schema. The
	// host sends them; narrowing breaks.
	Input Direction = iota
	// Output: values flow out to the host — what a model is asked to
	// answer, or to pass to a tool. The host receives them; widening
	// breaks.
	Output
)

// Rule is one rule of the contract diff: a named kind of change and its
// class. Like Buf's breaking-change rules, every change the diff reports
// is found by exactly one rule and named by its ID.
type Rule struct {
	// ID names the rule: TEMPLATE_REMOVED, VARIABLE_REQUIRED_ADDED,
	// SCHEMA_TYPE_NARROWED, …
	ID string
	// Input and Output are the rule's class for a schema whose values
	// flow into the template and out to the host (see Direction); the
	// rules of templates and variables have one class for both.
	Input, Output Class
	// Doc says what the rule finds and why it is classed so.
	Doc string
}

// finding is one change a rule found: where below its subject ("" for
// the subject itself, ".name" for a property, "[]" for items), and what.
type finding struct{ at, msg string }

// rule is a Rule with its check, over a pair of one subject — templates,
// variables, or one schema's keywords (the walker pairs subschemas) — of
// which one may be absent (nil).
type rule struct {
	Rule
	template func(a, b *Template) []finding
	variable func(a, b *Variable) []finding
	schema   func(a, b map[string]any) []finding
	// call checks the call contracts of a template in both sets; tool a
	// tool of them, by name.
	call func(a, b *Template) []finding
	tool func(a, b *Tool) []finding
}

// the effects of schema rules on what a schema accepts.
var (
	narrows = [2]Class{Input: Breaking, Output: Compatible}
	widens  = [2]Class{Input: Compatible, Output: Breaking}
	changes = [2]Class{Input: Breaking, Output: Breaking}
)

func schemaRule(id string, effect [2]Class, doc string, check func(a, b map[string]any) []finding) rule {
	return rule{Rule: Rule{ID: id, Input: effect[Input], Output: effect[Output], Doc: doc}, schema: check}
}

func fixed(id string, c Class, doc string) Rule { return Rule{ID: id, Input: c, Output: c, Doc: doc} }

// rules is the table of the contract diff, in the order changes are
// reported. A rule added here (the call contract's tools and output
// schema, say) is run by the walkers of compare.go on the subject it
// checks, and its ID and class appear in Rules.
var rules = []rule{
	{Rule: fixed("TEMPLATE_REMOVED", Breaking, "A template was removed: a program that renders it gets an unknown template."),
		template: func(a, b *Template) []finding { return when(a != nil && b == nil, "", "the template was removed") }},
	{Rule: fixed("TEMPLATE_ADDED", Compatible, "A template was added: no program renders it yet."),
		template: func(a, b *Template) []finding { return when(a == nil && b != nil, "", "the template was added") }},

	{Rule: fixed("VARIABLE_REQUIRED_ADDED", Breaking, "A required variable was added: a call that does not pass it fails (missing variables)."),
		variable: func(a, b *Variable) []finding {
			return when(a == nil && b != nil && b.Required, "", "a required variable was added; calls that do not pass it fail")
		}},
	{Rule: fixed("VARIABLE_OPTIONAL_ADDED", Compatible, "An optional variable was added: calls that do not pass it get its default, or undefined."),
		variable: func(a, b *Variable) []finding {
			if a != nil || b == nil || b.Required {
				return nil
			}
			if b.HasDefault {
				return found("", "an optional variable was added, default %s", display(b.Default))
			}
			return found("", "an optional variable was added, without a default")
		}},
	{Rule: fixed("VARIABLE_REMOVED", Breaking, "A variable was removed: a call that still passes it fails (extra variables)."),
		variable: func(a, b *Variable) []finding {
			return when(a != nil && b == nil, "", "the variable was removed; calls that pass it fail")
		}},
	{Rule: fixed("VARIABLE_MADE_REQUIRED", Breaking, "An optional variable became required: a call that does not pass it fails."),
		variable: func(a, b *Variable) []finding {
			return when(a != nil && b != nil && !a.Required && b.Required, "", "the variable became required")
		}},
	{Rule: fixed("VARIABLE_MADE_OPTIONAL", Compatible, "A required variable became optional: every call passes it already."),
		variable: func(a, b *Variable) []finding {
			return when(a != nil && b != nil && a.Required && !b.Required, "", "the variable became optional")
		}},
	{Rule: fixed("VARIABLE_DEFAULT_CHANGED", Breaking, "An optional variable's default was added, removed or changed: a call that does not pass it renders another prompt than before (as Buf's FIELD_SAME_DEFAULT)."),
		variable: func(a, b *Variable) []finding {
			if a == nil || b == nil || a.Required || b.Required {
				return nil
			}
			switch {
			case a.HasDefault && !b.HasDefault:
				return found("", "the default %s was removed", display(a.Default))
			case !a.HasDefault && b.HasDefault:
				return found("", "a default %s was added", display(b.Default))
			case a.HasDefault && !sameJSON(a.Default, b.Default):
				return found("", "the default changed from %s to %s", display(a.Default), display(b.Default))
			}
			return nil
		}},
	{Rule: fixed("VARIABLE_TYPED", Breaking, "An untyped variable got a schema: a value that was passed may now be refused (invalid variables)."),
		variable: func(a, b *Variable) []finding {
			return when(a != nil && b != nil && a.Schema == nil && b.Schema != nil, "", "the variable got a schema")
		}},
	{Rule: fixed("VARIABLE_UNTYPED", Compatible, "A variable's schema was removed: every value is accepted."),
		variable: func(a, b *Variable) []finding {
			return when(a != nil && b != nil && a.Schema != nil && b.Schema == nil, "", "the variable's schema was removed")
		}},

	{Rule: fixed("TOOL_REMOVED", Breaking, "A tool of the call contract was removed: a program built on the model calling it (a tool_choice naming it, a flow that waits for its calls) no longer gets those calls."),
		tool: func(a, b *Tool) []finding { return when(a != nil && b == nil, "", "the tool was removed") }},
	{Rule: fixed("TOOL_ADDED", Compatible, "A tool was added to the call contract: requests that worked still work; the model may call it, so the host must run its calls before it serves the new set."),
		tool: func(a, b *Tool) []finding { return when(a == nil && b != nil, "", "the tool was added") }},
	{Rule: fixed("TOOL_DESCRIPTION_CHANGED", Compatible, "A tool's description changed: no call breaks, but the model decides when to call the tool by it (reported)."),
		tool: func(a, b *Tool) []finding {
			return when(a != nil && b != nil && a.Description != b.Description, "", "the description changed")
		}},
	{Rule: fixed("OUTPUT_ADDED", Compatible, "The call contract got an output schema: the answer must match it now, which narrows what a program reads (answers flow out)."),
		call: func(a, b *Template) []finding {
			return when(a.Output == nil && b.Output != nil, "@output", "an output schema was added")
		}},
	{Rule: fixed("OUTPUT_REMOVED", Breaking, "The call contract's output schema was removed: the answer is free text, which a program that decodes it does not expect."),
		call: func(a, b *Template) []finding {
			return when(a.Output != nil && b.Output == nil, "@output", "the output schema was removed")
		}},
	{Rule: fixed("MODEL_SETTING_CHANGED", Compatible, "A model setting of the call contract was added, removed or changed (the model, its temperature, a provider's own settings, …): calls still work, and the answers may differ (reported)."),
		call: modelChanges},
	{Rule: fixed("CACHE_CHANGED", Compatible, "The cache breakpoint was added, removed or moved: what a provider caches changes, not what it answers (reported)."),
		call: func(a, b *Template) []finding {
			switch {
			case a.Cache == nil && b.Cache != nil:
				return found("@cache", "a cache breakpoint after message %d was added", b.Cache.Message)
			case a.Cache != nil && b.Cache == nil:
				return found("@cache", "the cache breakpoint after message %d was removed", a.Cache.Message)
			case a.Cache != nil && *a.Cache != *b.Cache:
				return found("@cache", "the cache breakpoint moved from %s to %s", cacheText(a.Cache), cacheText(b.Cache))
			}
			return nil
		}},

	schemaRule("SCHEMA_TYPE_NARROWED", narrows, "A schema allows fewer kinds of values (by its type, enum and const: its type lost one, or got one where it had none).",
		func(a, b map[string]any) []finding {
			if lost := kindsOnlyIn(a, b); len(lost) > 0 {
				return found("", "type narrowed: %s no longer allowed", typeNames(lost))
			}
			return nil
		}),
	schemaRule("SCHEMA_TYPE_WIDENED", widens, "A schema allows more kinds of values.",
		func(a, b map[string]any) []finding {
			if gained := kindsOnlyIn(b, a); len(gained) > 0 {
				return found("", "type widened: %s now allowed", typeNames(gained))
			}
			return nil
		}),
	schemaRule("SCHEMA_ENUM_ADDED", narrows, "A schema got an enum: only its values are accepted.",
		func(a, b map[string]any) []finding {
			return when(a["enum"] == nil && b["enum"] != nil, "", "an enum was added: only %s", display(b["enum"]))
		}),
	schemaRule("SCHEMA_ENUM_REMOVED", widens, "A schema's enum was removed: any value of its type is accepted.",
		func(a, b map[string]any) []finding {
			return when(a["enum"] != nil && b["enum"] == nil, "", "the enum was removed")
		}),
	schemaRule("SCHEMA_ENUM_VALUE_REMOVED", narrows, "A value left a schema's enum.",
		func(a, b map[string]any) []finding { return enumValues(a, b, "removed from the enum") }),
	schemaRule("SCHEMA_ENUM_VALUE_ADDED", widens, "A value joined a schema's enum.",
		func(a, b map[string]any) []finding { return enumValues(b, a, "added to the enum") }),
	schemaRule("SCHEMA_CONST_ADDED", narrows, "A schema got a const: only that value is accepted.",
		func(a, b map[string]any) []finding {
			_, had := a["const"]
			v, has := b["const"]
			return when(!had && has, "", "a const %s was added", display(v))
		}),
	schemaRule("SCHEMA_CONST_REMOVED", widens, "A schema's const was removed.",
		func(a, b map[string]any) []finding {
			_, had := a["const"]
			_, has := b["const"]
			return when(had && !has, "", "the const was removed")
		}),
	schemaRule("SCHEMA_CONST_CHANGED", changes, "A schema's const changed: the one value it accepts is another.",
		func(a, b map[string]any) []finding {
			va, had := a["const"]
			vb, has := b["const"]
			return when(had && has && !sameJSON(va, vb), "", "the const changed from %s to %s", display(va), display(vb))
		}),
	schemaRule("SCHEMA_PROPERTY_ADDED", widens, "A property was declared in an object that allowed no other properties (additionalProperties false): an object with it is accepted now.",
		func(a, b map[string]any) []finding {
			if !closed(a) {
				return nil // the walker compares it with what additionalProperties allowed
			}
			var out []finding
			for _, p := range onlyIn(props(b), props(a)) {
				out = append(out, finding{"." + p, "the property was added"})
			}
			return out
		}),
	schemaRule("SCHEMA_PROPERTY_REMOVED", narrows, "A property was removed from an object that allows no other properties: an object with it is refused now.",
		func(a, b map[string]any) []finding {
			if !closed(b) {
				return nil // the walker compares it with what additionalProperties allows
			}
			var out []finding
			for _, p := range onlyIn(props(a), props(b)) {
				out = append(out, finding{"." + p, "the property was removed, and the object allows no other properties"})
			}
			return out
		}),
	schemaRule("SCHEMA_REQUIRED_ADDED", narrows, "An object's property became required: an object without it is refused.",
		func(a, b map[string]any) []finding {
			var out []finding
			for _, p := range onlyIn(strs(b["required"]), strs(a["required"])) {
				out = append(out, finding{"." + p, "the property became required"})
			}
			return out
		}),
	schemaRule("SCHEMA_REQUIRED_REMOVED", widens, "An object's property is no longer required.",
		func(a, b map[string]any) []finding {
			var out []finding
			for _, p := range onlyIn(strs(a["required"]), strs(b["required"])) {
				out = append(out, finding{"." + p, "the property is no longer required"})
			}
			return out
		}),
	schemaRule("SCHEMA_ADDITIONAL_PROPERTIES_CLOSED", narrows, "An object that allowed other properties allows none (additionalProperties false).",
		func(a, b map[string]any) []finding {
			return when(!closed(a) && closed(b), "", "other properties are no longer allowed")
		}),
	schemaRule("SCHEMA_ADDITIONAL_PROPERTIES_OPENED", widens, "An object that allowed no other properties allows some.",
		func(a, b map[string]any) []finding {
			return when(closed(a) && !closed(b), "", "other properties are allowed now")
		}),
	schemaRule("SCHEMA_CONSTRAINT_TIGHTENED", narrows, "A bound was added or tightened (minLength, maximum, maxItems, …), or a pattern, a format, uniqueItems or multipleOf was added.",
		func(a, b map[string]any) []finding { return constraints(a, b, tightened) }),
	schemaRule("SCHEMA_CONSTRAINT_LOOSENED", widens, "A bound was removed or loosened, or a pattern, a format, uniqueItems or multipleOf was removed.",
		func(a, b map[string]any) []finding { return constraints(a, b, loosened) }),
	schemaRule("SCHEMA_CONSTRAINT_CHANGED", changes, "A pattern, a format or multipleOf changed: some values it accepted are refused, and the reverse.",
		func(a, b map[string]any) []finding { return constraints(a, b, replaced) }),
	schemaRule("SCHEMA_ALTERNATIVES_CHANGED", changes, "An allOf, anyOf or oneOf gained or lost alternatives (alternatives in the same places are compared one by one).",
		func(a, b map[string]any) []finding {
			var out []finding
			for _, k := range []string{"allOf", "anyOf", "oneOf"} {
				la, lb := len(list(a[k])), len(list(b[k]))
				if la != lb {
					out = append(out, finding{"", fmt.Sprintf("%s had %d alternatives and has %d", k, la, lb)})
				}
			}
			return out
		}),
	schemaRule("SCHEMA_KEYWORD_CHANGED", changes, "A keyword the diff does not analyse (not, if, patternProperties, contains, …) was added, removed or changed: classed breaking, to be reviewed.",
		func(a, b map[string]any) []finding {
			var out []finding
			for _, k := range slices.Sorted(maps.Keys(union2(a, b))) {
				tuple := k == "items" && (list(a[k]) != nil || list(b[k]) != nil) // draft 4's list of items
				if (analysed[k] && !tuple) || annotations[k] {
					continue
				}
				if va, vb := a[k], b[k]; !sameJSON(va, vb) {
					out = append(out, finding{"", fmt.Sprintf("%s changed from %s to %s", k, orNone(va), orNone(vb))})
				}
			}
			return out
		}),
}

// analysed are the keywords the rules and the walker read; a change of
// any other (annotations aside) is SCHEMA_KEYWORD_CHANGED.
var analysed = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "allOf": true, "anyOf": true, "oneOf": true, "$ref": true,
	"minLength": true, "maxLength": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "minItems": true, "maxItems": true, "minProperties": true, "maxProperties": true,
	"uniqueItems": true, "pattern": true, "format": true, "multipleOf": true,
}

// Rules returns the rules of the contract diff, in the order changes
// are reported.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = r.Rule
	}
	return out
}

func when(cond bool, at, format string, args ...any) []finding {
	if !cond {
		return nil
	}
	return found(at, format, args...)
}

func found(at, format string, args ...any) []finding {
	return []finding{{at, fmt.Sprintf(format, args...)}}
}

func orNone(v any) string {
	if v == nil {
		return "nothing"
	}
	return display(v)
}

// kindsOnlyIn are the kinds a's type allows and b's does not.
func kindsOnlyIn(a, b map[string]any) []string {
	ta, tb := kindsOf(a), kindsOf(b)
	var out []string
	for _, k := range jsonTypes {
		if ta[k] && !tb[k] {
			out = append(out, k)
		}
	}
	return out
}

// enumValues finds the values of a's enum that b's, which exists, lacks.
func enumValues(a, b map[string]any, msg string) []finding {
	ea, eb := list(a["enum"]), list(b["enum"])
	if a["enum"] == nil || b["enum"] == nil {
		return nil
	}
	var out []finding
	for _, v := range ea {
		if !slices.ContainsFunc(eb, func(w any) bool { return sameJSON(v, w) }) {
			out = append(out, finding{"", display(v) + " " + msg})
		}
	}
	return out
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func strs(v any) []string {
	var out []string
	for _, x := range list(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func props(m map[string]any) []string {
	p, _ := m["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(p))
}

// onlyIn are the strings of a that b lacks, in a's order.
func onlyIn(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// closed reports whether an object schema allows no properties beyond
// those it declares.
func closed(m map[string]any) bool {
	v, ok := m["additionalProperties"].(bool)
	return ok && !v
}

// The ways a constraint can change.
const (
	tightened = iota
	loosened
	replaced
)

// bounds are the numeric constraints: lower bounds tighten as they grow,
// upper bounds as they shrink.
var bounds = []struct {
	key   string
	lower bool
}{
	{"minLength", true}, {"maxLength", false}, {"minimum", true}, {"maximum", false},
	{"exclusiveMinimum", true}, {"exclusiveMaximum", false}, {"minItems", true}, {"maxItems", false},
	{"minProperties", true}, {"maxProperties", false},
}

// constraints finds the constraint changes of one way from a to b.
func constraints(a, b map[string]any, way int) []finding {
	var out []finding
	add := func(w int, format string, args ...any) {
		if w == way {
			out = append(out, finding{"", fmt.Sprintf(format, args...)})
		}
	}
	for _, bd := range bounds {
		va, had := a[bd.key]
		vb, has := b[bd.key]
		ra, okA := rat(va)
		rb, okB := rat(vb)
		switch {
		case !had && !has:
		case !had && okB:
			add(tightened, "%s %s was added", bd.key, display(vb))
		case had && !has:
			add(loosened, "%s %s was removed", bd.key, display(va))
		case okA && okB && ra.Cmp(rb) != 0:
			if (ra.Cmp(rb) < 0) == bd.lower {
				add(tightened, "%s went from %s to %s", bd.key, display(va), display(vb))
			} else {
				add(loosened, "%s went from %s to %s", bd.key, display(va), display(vb))
			}
		}
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		va, had := a[k]
		vb, has := b[k]
		switch {
		case !had && has:
			add(tightened, "%s %s was added", k, display(vb))
		case had && !has:
			add(loosened, "%s %s was removed", k, display(va))
		case had && !sameJSON(va, vb):
			add(replaced, "%s changed from %s to %s", k, display(va), display(vb))
		}
	}
	ua, _ := a["uniqueItems"].(bool)
	ub, _ := b["uniqueItems"].(bool)
	switch {
	case !ua && ub:
		add(tightened, "uniqueItems was added")
	case ua && !ub:
		add(loosened, "uniqueItems was removed")
	}
	return out
}

// modelChanges finds the model settings that differ, each by its key:
// the known settings and each provider's own.
func modelChanges(a, b *Template) []finding {
	ja, errA := json.Marshal(a.Model)
	jb, errB := json.Marshal(b.Model)
	if errA != nil || errB != nil {
		return nil
	}
	va, _ := decodeJSON(ja)
	vb, _ := decodeJSON(jb)
	ma, _ := va.(map[string]any)
	mb, _ := vb.(map[string]any)
	var out []finding
	for _, k := range slices.Sorted(maps.Keys(union2(ma, mb))) {
		x, hadX := ma[k]
		y, hasY := mb[k]
		switch {
		case !hadX:
			out = append(out, finding{"@model." + k, fmt.Sprintf("set to %s", display(y))})
		case !hasY:
			out = append(out, finding{"@model." + k, fmt.Sprintf("%s was removed", display(x))})
		case !sameJSON(x, y):
			out = append(out, finding{"@model." + k, fmt.Sprintf("changed from %s to %s", display(x), display(y))})
		}
	}
	return out
}

func cacheText(c *manager.Cache) string {
	s := fmt.Sprintf("message %d", c.Message)
	if c.TTL != "" {
		s += " (ttl " + c.TTL + ")"
	}
	return s
}
