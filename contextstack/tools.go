package contextstack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// ToolChoice says which of a stack's tools a model gets in one turn. The
// stack decides which tools exist; the choice, which of them this turn
// offers. The zero value is Auto.
//
// Its JSON form is the string "auto" or "any", a tool name, or a list of
// tool names.
type ToolChoice struct {
	mode  string   // "", "auto", "any" or "names"
	names []string // for mode "names"
}

// Choice modes.
const (
	ChoiceAuto = "auto" // every tool; the model decides whether to call one
	ChoiceAny  = "any"  // every tool; the host asks the model to call one
)

var (
	// Auto offers every tool.
	Auto = ToolChoice{mode: ChoiceAuto}
	// Any offers every tool, like Auto; the host tells the model to call one.
	Any = ToolChoice{mode: ChoiceAny}
)

// ChooseTools offers only the named tools, in stack order. One name is
// the single-tool form, more are the list form; none offers no tool.
func ChooseTools(names ...string) ToolChoice {
	if names == nil {
		names = []string{}
	}
	return ToolChoice{mode: "names", names: slices.Clone(names)}
}

// Mode returns "auto", "any" or "names". The zero value's mode is "auto".
func (c ToolChoice) Mode() string {
	if c.mode == "" {
		return ChoiceAuto
	}
	return c.mode
}

// Names returns the chosen names; nil unless Mode is "names".
func (c ToolChoice) Names() []string { return slices.Clone(c.names) }

// Filter returns the tools this choice offers, in their order.
func (c ToolChoice) Filter(tools []ToolSpec) []ToolSpec {
	if c.mode != "names" {
		return tools
	}
	out := make([]ToolSpec, 0, min(len(c.names), len(tools)))
	for _, t := range tools {
		if slices.Contains(c.names, t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// SelectTools validates the stack (a tool name conflict is an error even
// when the choice would leave one side out) and returns the tools choice
// offers, deduplicated and in stack order.
func (s Stack) SelectTools(choice ToolChoice) ([]ToolSpec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return choice.Filter(s.tools()), nil
}

// MarshalJSON writes "auto", "any", a name (one chosen tool) or a list.
func (c ToolChoice) MarshalJSON() ([]byte, error) {
	if c.mode != "names" {
		return json.Marshal(c.Mode())
	}
	if len(c.names) == 1 && c.names[0] != ChoiceAuto && c.names[0] != ChoiceAny {
		return json.Marshal(c.names[0])
	}
	return json.Marshal(c.names)
}

// UnmarshalJSON reads what MarshalJSON writes. A string other than "auto"
// and "any" names one tool; null leaves c as it is, as encoding/json does
// for other types; an empty name, or anything but a string or a list of
// strings, is ErrInvalidToolChoice.
func (c *ToolChoice) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidToolChoice, err)
		}
		switch s {
		case ChoiceAuto:
			*c = Auto
		case ChoiceAny:
			*c = Any
		case "":
			return fmt.Errorf("%w: empty tool name", ErrInvalidToolChoice)
		default:
			*c = ChooseTools(s)
		}
		return nil
	}
	if len(data) > 0 && data[0] == '[' {
		var names []string
		if err := json.Unmarshal(data, &names); err != nil {
			return fmt.Errorf("%w: want a list of tool names: %v", ErrInvalidToolChoice, err)
		}
		if slices.Contains(names, "") {
			return fmt.Errorf("%w: empty tool name in list", ErrInvalidToolChoice)
		}
		*c = ChooseTools(names...)
		return nil
	}
	return fmt.Errorf("%w: want \"auto\", \"any\", a tool name or a list of names, got %s", ErrInvalidToolChoice, data)
}
