package contextstack

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
)

// A layer's JSON is one object: "type" picks the kind, "source" and
// "priority" (omitted when 0, the type's default) follow, and the content's
// fields sit beside them:
//
//	{"type":"tool_instructions","source":"platform","tool":"search","text":"..."}
//
// A stack's JSON is {"layers":[...]}. Decoding is strict: an unknown type,
// an unknown field or a field of the wrong JSON type is an error naming
// the layer, so a stack round-trips losslessly or not at all.

// MarshalJSON writes the layer as one flat object.
func (l Layer) MarshalJSON() ([]byte, error) {
	if !known(l.Content) {
		return nil, fmt.Errorf("%w: cannot encode content of type %T", ErrInvalidLayer, l.Content)
	}
	content, err := json.Marshal(l.Content)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(content) + len(l.Source) + 48)
	b.WriteString(`{"type":`)
	b.WriteString(strconv.Quote(string(l.Type())))
	if l.Source != "" {
		src, err := json.Marshal(l.Source)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"source":`)
		b.Write(src)
	}
	if l.Priority != 0 {
		b.WriteString(`,"priority":`)
		b.WriteString(strconv.Itoa(l.Priority))
	}
	// content is an object: "{}" or "{...}".
	if rest := content[1:]; len(rest) > 1 {
		b.WriteByte(',')
		b.Write(rest)
	} else {
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (l *Layer) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("%w: layer: %v", ErrDecode, err)
	}
	if fields == nil {
		return fmt.Errorf("%w: layer is null", ErrDecode)
	}
	var out Layer
	rawType, ok := fields["type"]
	if !ok {
		return fmt.Errorf("%w: layer has no \"type\"", ErrDecode)
	}
	var t LayerType
	if err := json.Unmarshal(rawType, &t); err != nil {
		return fmt.Errorf("%w: layer \"type\": %v", ErrDecode, err)
	}
	if raw, ok := fields["source"]; ok {
		if err := json.Unmarshal(raw, &out.Source); err != nil {
			return fmt.Errorf("%w: layer \"source\": %v", ErrDecode, err)
		}
	}
	if raw, ok := fields["priority"]; ok {
		if err := json.Unmarshal(raw, &out.Priority); err != nil {
			return fmt.Errorf("%w: layer \"priority\": %v", ErrDecode, err)
		}
	}
	delete(fields, "type")
	delete(fields, "source")
	delete(fields, "priority")

	var err error
	switch t {
	case TypeUserInstructions:
		out.Content, err = decodeContent[UserInstructions](fields)
	case TypeRuntimeInstructions:
		out.Content, err = decodeContent[RuntimeInstructions](fields)
	case TypeSkillCatalog:
		out.Content, err = decodeContent[SkillCatalog](fields)
	case TypeSkillBody:
		out.Content, err = decodeContent[SkillBody](fields)
	case TypeToolInstructions:
		out.Content, err = decodeContent[ToolInstructions](fields)
	case TypeContextPrompt:
		out.Content, err = decodeContent[ContextPrompt](fields)
	case TypeToolDefinitions:
		out.Content, err = decodeContent[ToolDefinitions](fields)
	case TypeDocument:
		out.Content, err = decodeContent[Document](fields)
	case TypeContentBundles:
		out.Content, err = decodeContent[ContentBundles](fields)
	default:
		return fmt.Errorf("%w: %q", ErrUnknownLayerType, t)
	}
	if err != nil {
		return fmt.Errorf("%w: %s layer: %v", ErrDecode, t, err)
	}
	*l = out
	return nil
}

// decodeContent decodes the content fields of a layer, refusing unknown ones.
func decodeContent[C Content](fields map[string]json.RawMessage) (C, error) {
	var c C
	rest, err := json.Marshal(fields)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	err = dec.Decode(&c)
	return c, err
}

type stackJSON struct {
	Layers []json.RawMessage `json:"layers"`
}

// MarshalJSON writes the stack as {"layers":[...]}.
func (s Stack) MarshalJSON() ([]byte, error) {
	layers := s.layers
	if layers == nil {
		layers = []Layer{}
	}
	out, err := json.Marshal(struct {
		Layers []Layer `json:"layers"`
	}{layers})
	if err != nil {
		return nil, fmt.Errorf("contextstack: encode stack: %w", err)
	}
	return out, nil
}

// UnmarshalJSON reads what MarshalJSON writes. Every layer is decoded
// strictly; the first problem is returned, naming its layer.
func (s *Stack) UnmarshalJSON(data []byte) error {
	var raw stackJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("%w: stack: %v", ErrDecode, err)
	}
	layers := make([]Layer, len(raw.Layers))
	for i, r := range raw.Layers {
		if err := layers[i].UnmarshalJSON(r); err != nil {
			return fmt.Errorf("layer %d: %w", i, err)
		}
	}
	*s = Stack{layers: layers}
	return nil
}

// EmptyObjectSchema is the input schema DecodeToolSpecs gives a tool that
// has none: an object with no properties.
const EmptyObjectSchema Schema = `{"type":"object","properties":{}}`

// EncodeToolSpecs writes tools as a JSON list of objects with only the
// fields a model reads: name, type, description and input_schema (empty
// ones left out).
func EncodeToolSpecs(tools []ToolSpec) ([]byte, error) {
	if tools == nil {
		tools = []ToolSpec{}
	}
	out, err := json.Marshal(tools)
	if err != nil {
		return nil, fmt.Errorf("contextstack: encode tool specs: %w", err)
	}
	return out, nil
}

// DecodeToolSpecs reads tool specs in the shapes tool lists come in:
//
//   - a JSON list of tools, an object holding that list under "tools" (an
//     OpenAI or MCP request or listing), or one tool alone;
//   - each tool in one of three forms: the form EncodeToolSpecs writes
//     ({"name", "type", "description", "input_schema"}, Anthropic's), the
//     bare form {"name", "description", "parameters"} (MCP's "inputSchema"
//     too), or OpenAI's {"type": "function", "function": {"name",
//     "description", "parameters"}}, whose Type is "function".
//
// It is lenient about the rest: entries of a list that are not objects
// are skipped, other fields are ignored, and a tool without a schema gets
// EmptyObjectSchema. Data that is none of these — invalid JSON, no list,
// an object entry with no name in any form, a non-empty list without one
// tool, or a known field of the wrong JSON type — is ErrDecode, saying
// which entry and which forms are accepted.
func DecodeToolSpecs(data []byte) ([]ToolSpec, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("%w: %v", ErrDecode, err)
	}
	data = bytes.TrimSpace(data) // valid JSON: only JSON's whitespace is around it
	var entries []json.RawMessage
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &entries); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDecode, err)
		}
	case len(data) > 0 && data[0] == '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDecode, err)
		}
		if list, ok := obj["tools"]; ok {
			if err := json.Unmarshal(list, &entries); err != nil || entries == nil {
				return nil, fmt.Errorf("%w: \"tools\" is not a list of tools (%s)", ErrDecode, toolForms)
			}
		} else {
			entries = []json.RawMessage{data} // one tool alone
		}
	default:
		return nil, fmt.Errorf("%w: not a tool list: want a list of tools, or an object with one under \"tools\" (%s)", ErrDecode, toolForms)
	}
	tools := make([]ToolSpec, 0, len(entries))
	for i, e := range entries {
		if e = bytes.TrimSpace(e); len(e) == 0 || e[0] != '{' {
			continue
		}
		t, err := decodeTool(e)
		if err != nil {
			return nil, fmt.Errorf("%w: tool spec %d: %v", ErrDecode, i, err)
		}
		tools = append(tools, t)
	}
	if len(entries) > 0 && len(tools) == 0 {
		return nil, fmt.Errorf("%w: none of the %d entries is a tool (%s)", ErrDecode, len(entries), toolForms)
	}
	return tools, nil
}

// toolForms names the tool forms DecodeToolSpecs reads, for its errors.
const toolForms = `each {"name", "description", "input_schema" or "parameters"}, or {"type": "function", "function": {"name", "description", "parameters"}}`

// toolJSON is a tool in any of the forms DecodeToolSpecs reads.
type toolJSON struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	InputSchema Schema          `json:"input_schema"`
	MCPSchema   Schema          `json:"inputSchema"`
	Parameters  Schema          `json:"parameters"`
	Function    json.RawMessage `json:"function"`
}

// decodeTool reads one tool object in any of its forms.
func decodeTool(data []byte) (ToolSpec, error) {
	var t toolJSON
	if err := json.Unmarshal(data, &t); err != nil {
		return ToolSpec{}, err
	}
	if f := bytes.TrimSpace(t.Function); len(f) > 0 && string(f) != "null" {
		if f[0] != '{' {
			return ToolSpec{}, fmt.Errorf(`"function" is not an object (%s)`, toolForms)
		}
		var inner toolJSON
		if err := json.Unmarshal(f, &inner); err != nil {
			return ToolSpec{}, fmt.Errorf(`"function": %v`, err)
		}
		typ := t.Type
		if typ == "" {
			typ = "function"
		}
		t, t.Type = inner, typ
	}
	if t.Name == "" {
		return ToolSpec{}, fmt.Errorf("no name: not a tool (%s)", toolForms)
	}
	schema := cmp.Or(t.InputSchema, t.MCPSchema, t.Parameters, EmptyObjectSchema)
	return ToolSpec{Name: t.Name, Type: t.Type, Description: t.Description, InputSchema: schema}, nil
}
