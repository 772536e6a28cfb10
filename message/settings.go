package message

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jsontree"
	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

// Settings are a model call's settings, provider-neutral: each known
// setting has one meaning and one field in every provider's request (the
// providers module writes it there), and what only one provider takes
// goes under that provider's key, passed through verbatim:
//
//	{"name": "gpt-4o", "temperature": 0.2, "max_output_tokens": 512,
//	 "openai": {"presence_penalty": 0.5}, "anthropic": {"top_k": 40}}
//
// The zero value sets nothing: each provider's defaults apply. The known
// settings, their bounds and each provider's field are one table
// (SettingKeys); SettingsSchema is its JSON Schema.
type Settings struct {
	// Name is the model ("gpt-4o", "claude-sonnet-4-5").
	Name string
	// Temperature, from 0 to 2 (OpenAI; Anthropic's Messages API of
	// 2026-10-21 takes none).
	Temperature *float64
	// TopP is nucleus sampling, from 0 to 1 (OpenAI; not Anthropic's).
	TopP *float64
	// MaxOutputTokens bounds the answer (OpenAI's max_completion_tokens,
	// Anthropic's max_tokens, which Anthropic requires).
	MaxOutputTokens *int64
	// Stop are up to four sequences that end the answer.
	Stop []string
	// ReasoningEffort is how hard a reasoning model thinks: low, medium,
	// high, xhigh or max (the levels both providers have).
	ReasoningEffort string
	// Seed asks for a reproducible sample (OpenAI and OpenAI-compatible
	// servers; Anthropic has none).
	Seed *int64
	// ToolChoice is "auto", "none", "required" (call some tool) or the
	// name of the one tool to call.
	ToolChoice string
	// ParallelToolCalls says whether the model may call several tools in
	// one answer.
	ParallelToolCalls *bool
	// Provider holds, by provider ("openai", "anthropic"), a JSON object
	// of settings only that provider has, written into its request as
	// they are. A key the request fills from elsewhere (the messages,
	// the tools, a known setting) is refused.
	Provider map[string]json.RawMessage
}

// Setting describes one known setting: its JSON key, what values it
// takes, and the field of each provider's request it is written to.
type Setting struct {
	Key  string
	Doc  string
	Type string // "string", "number", "integer", "boolean" or "array" (of strings)
	// Minimum and Maximum bound a number or integer (nil: unbounded);
	// MaxItems bounds an array.
	Minimum, Maximum *float64
	MaxItems         int
	// Enum lists the values a string takes; nil: any non-empty string
	// (matching Pattern, when set).
	Enum    []string
	Pattern string
	re      *regexp.Regexp // Pattern, compiled
	// Fields are the request fields each provider takes it in: a dotted
	// path for a field nested in an object.
	Fields map[string]string
}

// Providers are the keys of the providers whose settings Settings passes
// through, with the fields of their requests promptkit fills itself
// (from the messages, tools and output schema, or a known setting), which
// their settings may not hold.
var providerParts = map[string][]string{
	"openai":    {"messages", "model", "tools", "response_format", "max_tokens"},
	"anthropic": {"messages", "model", "system", "tools", "output_config"},
}

// ProviderKeys returns the provider keys of Settings, sorted.
func ProviderKeys() []string {
	keys := make([]string, 0, len(providerParts))
	for k := range providerParts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ToolNamePattern is what a tool's name must match for every provider:
// letters, digits, _ and -, at most 64 (OpenAI's rule; Anthropic's is
// looser).
const ToolNamePattern = `^[A-Za-z0-9_-]{1,64}$`

var toolNameRE = regexp.MustCompile(ToolNamePattern)

// ValidToolName reports whether name matches ToolNamePattern.
func ValidToolName(name string) bool { return toolNameRE.MatchString(name) }

// The values of ToolChoice that are not a tool's name.
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceNone     = "none"
	ToolChoiceRequired = "required"
)

func bound(f float64) *float64 { return &f }

// settingKeys is the one table of the known settings, in the order they
// are written.
var settingKeys = []Setting{
	{Key: "name", Type: "string", Doc: "The model.",
		Fields: map[string]string{"openai": "model", "anthropic": "model"}},
	{Key: "temperature", Type: "number", Minimum: bound(0), Maximum: bound(2), Doc: "Sampling temperature (OpenAI and compatible servers; Anthropic's Messages API takes none).",
		Fields: map[string]string{"openai": "temperature"}},
	{Key: "top_p", Type: "number", Minimum: bound(0), Maximum: bound(1), Doc: "Nucleus sampling: the probability mass sampled from (OpenAI and compatible servers).",
		Fields: map[string]string{"openai": "top_p"}},
	{Key: "max_output_tokens", Type: "integer", Minimum: bound(1), Doc: "The most tokens the answer may have (Anthropic requires it).",
		Fields: map[string]string{"openai": "max_completion_tokens", "anthropic": "max_tokens"}},
	{Key: "stop", Type: "array", MaxItems: 4, Doc: "Up to four sequences that end the answer.",
		Fields: map[string]string{"openai": "stop", "anthropic": "stop_sequences"}},
	{Key: "reasoning_effort", Type: "string", Enum: []string{"low", "medium", "high", "xhigh", "max"}, Doc: "How hard a reasoning model thinks.",
		Fields: map[string]string{"openai": "reasoning_effort", "anthropic": "output_config.effort"}},
	{Key: "seed", Type: "integer", Doc: "A seed for reproducible sampling (OpenAI and compatible servers; Anthropic has none).",
		Fields: map[string]string{"openai": "seed"}},
	{Key: "tool_choice", Type: "string", Pattern: ToolNamePattern, re: toolNameRE, Doc: `"auto", "none", "required" (call some tool), or the name of the one tool to call.`,
		Fields: map[string]string{"openai": "tool_choice", "anthropic": "tool_choice"}},
	{Key: "parallel_tool_calls", Type: "boolean", Doc: "Whether the model may call several tools in one answer.",
		Fields: map[string]string{"openai": "parallel_tool_calls", "anthropic": "tool_choice.disable_parallel_tool_use"}},
}

// SettingKeys returns the table of the known settings, in the order they
// are written.
func SettingKeys() []Setting {
	out := slices.Clone(settingKeys)
	for i := range out {
		out[i].Enum = slices.Clone(out[i].Enum)
	}
	return out
}

// ErrSettings is wrapped by every problem DecodeSettings reports.
var ErrSettings = errors.New("message: invalid settings")

// DecodeSettings reads settings from their JSON object, strictly: an
// unknown key (with a near known one), a value of the wrong type or out of
// its bounds, a provider's object holding a key promptkit fills. Every
// problem is reported, each a *FieldError whose Path is the key
// ("temperature", "openai.messages"), joined; the settings that were
// read without a problem are returned beside them, so a caller that
// reports problems can check those further.
func DecodeSettings(data []byte) (Settings, error) {
	var s Settings
	tree, err := jsontree.Parse(data)
	if err != nil {
		return s, &FieldError{Msg: "invalid JSON: " + err.Error(), Err: ErrSettings}
	}
	return s, errors.Join(s.read(tree, data)...)
}

func (s *Settings) read(n *jsontree.Node, data []byte) []error {
	if n.Kind != '{' {
		return []error{&FieldError{Msg: "settings are a JSON object, not " + nodeKind(n), Err: ErrSettings}}
	}
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...), Err: ErrSettings})
	}
	for _, m := range n.Members {
		if parts, ok := providerParts[m.Key]; ok {
			if m.Value.Kind != '{' {
				bad(m.Key, "want the JSON object of %s's own settings, got %s", m.Key, nodeKind(m.Value))
				continue
			}
			for _, pm := range m.Value.Members {
				if slices.Contains(parts, pm.Key) {
					bad(m.Key+"."+pm.Key, "promptkit fills %s's %q itself (from the template's messages, tools, output or settings)", m.Key, pm.Key)
				} else if k := knownFor(m.Key, pm.Key); k != "" {
					bad(m.Key+"."+pm.Key, "%q is the setting %q: set it there, for every provider", pm.Key, k)
				}
			}
			if s.Provider == nil {
				s.Provider = map[string]json.RawMessage{}
			}
			var buf bytes.Buffer
			_ = json.Compact(&buf, m.Value.Raw(data)) // parsed already
			s.Provider[m.Key] = buf.Bytes()
			continue
		}
		i := slices.IndexFunc(settingKeys, func(k Setting) bool { return k.Key == m.Key })
		if i < 0 {
			msg := "not a setting (settings: " + strings.Join(knownKeys(), ", ") + "; a provider's own go under its key: " + strings.Join(ProviderKeys(), ", ") + ")"
			if near := suggest.Closest(m.Key, append(knownKeys(), ProviderKeys()...)); near != "" {
				msg = fmt.Sprintf("not a setting; did you mean %q?", near)
			}
			bad(m.Key, "%s", msg)
			continue
		}
		if msg := s.set(&settingKeys[i], m.Value); msg != "" {
			bad(m.Key, "%s", msg)
		}
	}
	return errs
}

// knownFor is the known setting whose field in provider's request is
// field, or "".
func knownFor(provider, field string) string {
	for _, k := range settingKeys {
		f := k.Fields[provider]
		if f == field || strings.HasPrefix(f, field+".") {
			return k.Key
		}
	}
	return ""
}

func knownKeys() []string {
	out := make([]string, len(settingKeys))
	for i, k := range settingKeys {
		out[i] = k.Key
	}
	return out
}

func nodeKind(n *jsontree.Node) string {
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

// set reads one known setting; it returns what is wrong, or "".
func (s *Settings) set(k *Setting, v *jsontree.Node) string {
	want := func() string { return fmt.Sprintf("want %s, got %s", k.describe(), nodeKind(v)) }
	switch k.Type {
	case "string":
		if v.Kind != '"' {
			return want()
		}
		if v.Str == "" {
			return "empty: leave the setting out instead"
		}
		if k.Enum != nil && !slices.Contains(k.Enum, v.Str) {
			return fmt.Sprintf("%q is not one of %s", v.Str, strings.Join(k.Enum, ", "))
		}
		if k.re != nil && !k.re.MatchString(v.Str) {
			return fmt.Sprintf("%q is not a tool name (%s)", v.Str, k.Pattern)
		}
	case "number", "integer":
		if v.Kind != '0' {
			return want()
		}
		f, err := v.Num.Float64()
		if err != nil || math.IsInf(f, 0) {
			return fmt.Sprintf("%s is out of range", v.Num)
		}
		if k.Type == "integer" {
			if _, err := strconv.ParseInt(v.Num.String(), 10, 64); err != nil {
				return fmt.Sprintf("want an integer, got %s", v.Num)
			}
		}
		if k.Minimum != nil && f < *k.Minimum || k.Maximum != nil && f > *k.Maximum {
			return fmt.Sprintf("%s is out of its bounds (%s)", v.Num, k.describe())
		}
	case "boolean":
		if v.Kind != 't' {
			return want()
		}
	case "array":
		if v.Kind != '[' || len(v.Items) == 0 {
			return want()
		}
		if len(v.Items) > k.MaxItems {
			return fmt.Sprintf("%d items, at most %d", len(v.Items), k.MaxItems)
		}
		for i, it := range v.Items {
			if it.Kind != '"' || it.Str == "" {
				return fmt.Sprintf("[%d]: want a non-empty string, got %s", i, nodeKind(it))
			}
		}
	}
	switch k.Key {
	case "name":
		s.Name = v.Str
	case "temperature":
		s.Temperature = float(v)
	case "top_p":
		s.TopP = float(v)
	case "max_output_tokens":
		s.MaxOutputTokens = integer(v)
	case "stop":
		for _, it := range v.Items {
			s.Stop = append(s.Stop, it.Str)
		}
	case "reasoning_effort":
		s.ReasoningEffort = v.Str
	case "seed":
		s.Seed = integer(v)
	case "tool_choice":
		s.ToolChoice = v.Str
	case "parallel_tool_calls":
		s.ParallelToolCalls = &v.Bool
	}
	return ""
}

func float(v *jsontree.Node) *float64 {
	f, _ := v.Num.Float64()
	return &f
}

func integer(v *jsontree.Node) *int64 {
	i, _ := strconv.ParseInt(v.Num.String(), 10, 64)
	return &i
}

// describe says what values a setting takes, for errors.
func (k *Setting) describe() string {
	switch k.Type {
	case "string":
		if k.Enum != nil {
			return "one of " + strings.Join(k.Enum, ", ")
		}
		return "a non-empty string"
	case "number", "integer":
		what := "a number"
		if k.Type == "integer" {
			what = "an integer"
		}
		switch {
		case k.Minimum != nil && k.Maximum != nil:
			return fmt.Sprintf("%s from %g to %g", what, *k.Minimum, *k.Maximum)
		case k.Minimum != nil:
			return fmt.Sprintf("%s of at least %g", what, *k.Minimum)
		}
		return what
	case "boolean":
		return "true or false"
	}
	return fmt.Sprintf("a list of 1 to %d non-empty strings", k.MaxItems)
}

// Clone returns a copy of s that shares nothing with it.
func (s Settings) Clone() Settings {
	s.Temperature, s.TopP = clonePtr(s.Temperature), clonePtr(s.TopP)
	s.MaxOutputTokens, s.Seed = clonePtr(s.MaxOutputTokens), clonePtr(s.Seed)
	s.ParallelToolCalls = clonePtr(s.ParallelToolCalls)
	s.Stop = slices.Clone(s.Stop)
	if s.Provider != nil {
		p := make(map[string]json.RawMessage, len(s.Provider))
		for k, v := range s.Provider {
			p[k] = slices.Clone(v)
		}
		s.Provider = p
	}
	return s
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// IsZero reports whether s sets nothing.
func (s Settings) IsZero() bool {
	return s.Name == "" && s.Temperature == nil && s.TopP == nil && s.MaxOutputTokens == nil && s.Stop == nil &&
		s.ReasoningEffort == "" && s.Seed == nil && s.ToolChoice == "" && s.ParallelToolCalls == nil && len(s.Provider) == 0
}

// MarshalJSON writes the known settings that are set, in the table's
// order, then each provider's object, by provider key.
func (s Settings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	add := func(key string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(key))
		b.WriteByte(':')
		data, err := json.Marshal(v)
		b.Write(data)
		return err
	}
	var err error
	for _, k := range settingKeys {
		var v any
		switch k.Key {
		case "name":
			v = nonEmpty(s.Name)
		case "temperature":
			v = ptr(s.Temperature)
		case "top_p":
			v = ptr(s.TopP)
		case "max_output_tokens":
			v = ptr(s.MaxOutputTokens)
		case "stop":
			if s.Stop != nil {
				v = s.Stop
			}
		case "reasoning_effort":
			v = nonEmpty(s.ReasoningEffort)
		case "seed":
			v = ptr(s.Seed)
		case "tool_choice":
			v = nonEmpty(s.ToolChoice)
		case "parallel_tool_calls":
			v = ptr(s.ParallelToolCalls)
		}
		if v != nil {
			err = errors.Join(err, add(k.Key, v))
		}
	}
	for _, p := range ProviderKeys() {
		if raw, ok := s.Provider[p]; ok {
			err = errors.Join(err, add(p, json.RawMessage(raw)))
		}
	}
	b.WriteByte('}')
	return b.Bytes(), err
}

func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func ptr[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// UnmarshalJSON reads what MarshalJSON writes, as DecodeSettings does.
func (s *Settings) UnmarshalJSON(data []byte) error {
	v, err := DecodeSettings(data)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// SettingsSchema returns the JSON Schema of Settings, made from the table
// of known settings: index.json's model settings are checked against it
// (schemas/index.schema.json holds a copy that a test keeps equal).
func SettingsSchema() json.RawMessage {
	props := map[string]any{}
	for _, k := range settingKeys {
		p := map[string]any{"description": k.Doc, "type": k.Type}
		switch k.Type {
		case "string":
			p["minLength"] = 1
			if k.Enum != nil {
				p["enum"] = k.Enum
			}
			if k.Pattern != "" {
				p["pattern"] = k.Pattern
			}
		case "array":
			p["items"] = map[string]any{"type": "string", "minLength": 1}
			p["minItems"], p["maxItems"] = 1, k.MaxItems
		}
		if k.Minimum != nil {
			p["minimum"] = *k.Minimum
		}
		if k.Maximum != nil {
			p["maximum"] = *k.Maximum
		}
		props[k.Key] = p
	}
	for _, name := range ProviderKeys() {
		var refused []string
		for _, k := range settingKeys {
			if f, ok := k.Fields[name]; ok {
				f, _, _ = strings.Cut(f, ".")
				if !slices.Contains(refused, f) {
					refused = append(refused, f)
				}
			}
		}
		for _, f := range providerParts[name] {
			if !slices.Contains(refused, f) {
				refused = append(refused, f)
			}
		}
		// Each refused field is a property whose schema is false: the
		// error names its path.
		taken := map[string]any{}
		for _, f := range refused {
			taken[f] = false
		}
		props[name] = map[string]any{
			"description": "Settings only " + name + " has, written into its request as they are; not the fields promptkit fills (false here).",
			"type":        "object",
			"properties":  taken,
		}
	}
	data, _ := json.Marshal(map[string]any{
		"description":          "A model call's provider-neutral settings; a provider's own settings go under its key.",
		"type":                 "object",
		"additionalProperties": false,
		"properties":           props,
	})
	return data
}
