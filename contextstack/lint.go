package contextstack

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The tool-description discipline. A tool's description is read by the
// model; its input schema by the function-calling machinery. The
// description says when and why to use the tool, what it returns and how
// it fails (the surface); it does not repeat the schema's parameter
// names, types, required flags and defaults, and it does not describe how
// the tool works inside (the machinery: which API it calls, which table
// it reads). LintTools checks tool specs against that rule.

// The rules LintTools applies; Problem.Rule is one of them.
const (
	// RuleEmptyDescription: a tool without a description leaves the model
	// guessing when to use it.
	RuleEmptyDescription = "empty-description"
	// RuleParameterSection: a "Parameters:" section repeats the schema.
	RuleParameterSection = "parameter-section"
	// RuleParameterListed: a parameter of the schema listed with its type,
	// required flag or a colon ("- query: ...", "query (string)").
	RuleParameterListed = "parameter-listed"
	// RuleImplementation: the description says how the tool works (an
	// API, an endpoint, a URL, a table, a database) instead of when and
	// why to use it.
	RuleImplementation = "implementation"
	// RuleInvalidSchema: the input schema is not a JSON object.
	RuleInvalidSchema = "invalid-schema"
)

// Problem is one violation of the tool-description discipline.
type Problem struct {
	Tool    string // the tool's name
	Rule    string // one of the Rule constants
	Message string // what is wrong and what to do instead
}

// String formats the problem as `tool "name": message`.
func (p Problem) String() string { return fmt.Sprintf("tool %q: %s", p.Tool, p.Message) }

//go:embed toolrules.json
var toolRulesJSON []byte

// toolRules is toolrules.json: the words and patterns of the check, kept
// as data so that Go code carries no prompt vocabulary.
type toolRules struct {
	About                   string   `json:"about"`
	ParameterSectionPattern string   `json:"parameter_section_pattern"`
	ParameterSectionWords   []string `json:"parameter_section_words"`
	ParameterListedPatterns []string `json:"parameter_listed_patterns"`
	SchemaWords             []string `json:"schema_words"`
	Implementation          []struct {
		What    string `json:"what"`
		Pattern string `json:"pattern"`
	} `json:"implementation"`
}

type implPattern struct {
	what string
	re   *regexp.Regexp
}

type compiledRules struct {
	section *regexp.Regexp
	// listed are the parameter_listed_patterns with {schema_words}
	// filled in; {name} is filled per parameter.
	listed []string
	impl   []implPattern
}

// rules compiles toolrules.json once. The file is part of the source and
// its tests; a broken file is a bug, reported as an error by every
// LintTools call rather than by a panic.
var rules = sync.OnceValues(func() (*compiledRules, error) {
	var r toolRules
	dec := json.NewDecoder(bytes.NewReader(toolRulesJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("contextstack: toolrules.json: %w", err)
	}
	c := &compiledRules{}
	var err error
	section := strings.ReplaceAll(r.ParameterSectionPattern, "{words}", alternation(r.ParameterSectionWords))
	if c.section, err = regexp.Compile(section); err != nil {
		return nil, fmt.Errorf("contextstack: toolrules.json: parameter_section_pattern: %w", err)
	}
	// ASCII schema words end at a word boundary ("int" must not match
	// "into"); other scripts have no word boundaries in RE2.
	var ascii, other []string
	for _, w := range r.SchemaWords {
		if isASCIIWord(w) {
			ascii = append(ascii, w)
		} else {
			other = append(other, w)
		}
	}
	schemaWords := `(?:(?i:` + alternation(ascii) + `)\b|` + alternation(other) + `)`
	for i, p := range r.ParameterListedPatterns {
		p = strings.ReplaceAll(p, "{schema_words}", schemaWords)
		if _, err := regexp.Compile(strings.ReplaceAll(p, "{name}", "x")); err != nil {
			return nil, fmt.Errorf("contextstack: toolrules.json: parameter_listed_patterns[%d]: %w", i, err)
		}
		c.listed = append(c.listed, p)
	}
	for _, p := range r.Implementation {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return nil, fmt.Errorf("contextstack: toolrules.json: pattern for %q: %w", p.What, err)
		}
		c.impl = append(c.impl, implPattern{what: p.What, re: re})
	}
	return c, nil
})

// alternation quotes words and joins them with |, longest first so that
// the longer of two overlapping words wins.
func alternation(words []string) string {
	ws := slices.Clone(words)
	slices.SortStableFunc(ws, func(a, b string) int { return len(b) - len(a) })
	for i, w := range ws {
		ws[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(ws, "|")
}

func isASCIIWord(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == ' ' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

// LintTools checks each tool's description against the discipline and
// returns every problem, tool by tool in order, rules in the order of the
// Rule constants; RuleImplementation is reported once for each kind of
// machinery it finds (an API, an endpoint, a table…). It returns an error only if the check's own rules are
// broken.
func LintTools(tools []ToolSpec) ([]Problem, error) {
	r, err := rules()
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, t := range tools {
		out = append(out, r.lint(t)...)
	}
	return out, nil
}

func (r *compiledRules) lint(t ToolSpec) []Problem {
	var out []Problem
	add := func(rule, format string, args ...any) {
		out = append(out, Problem{Tool: t.Name, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	desc := t.Description
	params, schemaErr := schemaProperties(t.InputSchema)

	if strings.TrimSpace(desc) == "" {
		add(RuleEmptyDescription, "description is empty; say when and why to use the tool and how it fails")
	}
	if m := r.section.FindStringSubmatch(desc); m != nil {
		add(RuleParameterSection, "description has a parameters section (%q); the input schema carries the parameters", strings.TrimSpace(m[1]))
	}
	var listed []string
	for _, p := range params {
		if r.listsParameter(desc, p) {
			listed = append(listed, fmt.Sprintf("%q", p))
		}
	}
	if len(listed) > 0 {
		add(RuleParameterListed, "description lists parameters already in the input schema: %s; keep names, types, required flags and defaults in the schema", strings.Join(listed, ", "))
	}
	// One problem per kind of machinery, quoting its leftmost mention.
	type mention struct {
		at   int
		text string
	}
	var kinds []string
	found := make(map[string]mention)
	for _, p := range r.impl {
		loc := p.re.FindStringIndex(desc)
		if loc == nil {
			continue
		}
		prev, seen := found[p.what]
		if !seen {
			kinds = append(kinds, p.what)
		}
		if !seen || loc[0] < prev.at {
			found[p.what] = mention{at: loc[0], text: desc[loc[0]:loc[1]]}
		}
	}
	for _, what := range kinds {
		add(RuleImplementation, "description describes implementation (%s: %q); say when and why to use the tool, not how it works", what, strings.TrimSpace(found[what].text))
	}
	if schemaErr != nil {
		add(RuleInvalidSchema, "input schema: %v", schemaErr)
	}
	return out
}

// listsParameter reports whether desc lists parameter p the way a schema
// would: as a list item or "name:" line, or followed by a type or a
// required/optional/default word.
func (r *compiledRules) listsParameter(desc, p string) bool {
	if !strings.Contains(desc, p) {
		return false
	}
	name := `\b` + regexp.QuoteMeta(p) + `\b`
	for _, pat := range r.listed {
		// p is quoted and the pattern compiled in rules(), so this compiles.
		re, err := regexp.Compile(strings.ReplaceAll(pat, "{name}", name))
		if err == nil && re.MatchString(desc) {
			return true
		}
	}
	return false
}

// schemaProperties returns the sorted property names of a JSON Schema
// object. No schema has no properties.
func schemaProperties(schema Schema) ([]string, error) {
	if strings.TrimSpace(string(schema)) == "" {
		return nil, nil
	}
	var s map[string]json.RawMessage
	if err := json.Unmarshal([]byte(schema), &s); err != nil || s == nil {
		return nil, errors.New("not a JSON object")
	}
	var props map[string]json.RawMessage
	if raw, ok := s["properties"]; ok {
		if err := json.Unmarshal(raw, &props); err != nil {
			return nil, errors.New(`"properties" is not a JSON object`)
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}
