package contextstack

import (
	"bytes"
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

// DecodeToolSpecs reads a JSON list of tool specs leniently: entries that
// are not objects are skipped, fields other than name, type, description
// and input_schema are ignored, and a missing or null input_schema becomes
// EmptyObjectSchema. Data that is not a list, or a known field of the
// wrong JSON type, is ErrDecode naming the entry.
func DecodeToolSpecs(data []byte) ([]ToolSpec, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("%w: want a list of tool specs: %v", ErrDecode, err)
	}
	tools := make([]ToolSpec, 0, len(entries))
	for i, e := range entries {
		if e = bytes.TrimSpace(e); len(e) == 0 || e[0] != '{' {
			continue
		}
		var t ToolSpec
		if err := json.Unmarshal(e, &t); err != nil {
			return nil, fmt.Errorf("%w: tool spec %d: %v", ErrDecode, i, err)
		}
		if t.InputSchema == "" {
			t.InputSchema = EmptyObjectSchema
		}
		tools = append(tools, t)
	}
	return tools, nil
}
