package message

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/internal/jsontree"
	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

// Request is one model call, provider-neutral: its settings, the
// conversation, the tools the model may call and the JSON Schema its
// answer must match. manager.Request makes one from a template's call
// contract and a render, and the providers module turns it into the
// params of each provider's official SDK. Its JSON:
//
//	{"model": {"name": "gpt-4o", "temperature": 0.2},
//	 "messages": [{"role": "system", "content": "…"}, {"role": "user", "content": "…"}],
//	 "tools": [{"type": "function", "function": {"name": "get_weather", "description": "…", "parameters": {…}}}],
//	 "output": {"name": "weather", "schema": {…}, "strict": true}}
//
// "model" is left out when it sets nothing, "tools" when there are none,
// "output" when the answer is free text.
type Request struct {
	Model    Settings
	Messages []Message
	Tools    []Tool
	Output   *Output
}

// Output is the JSON Schema a model's answer must match: OpenAI's
// response_format of type json_schema, Anthropic's output_config.format.
type Output struct {
	// Name names the schema for the provider (it matches
	// ToolNamePattern); manager.Request gives the template's name.
	Name string
	// Schema is the JSON Schema, self-contained: the files its $refs
	// named in the template set are inside it, under "$defs".
	Schema json.RawMessage
	// Strict says the schema is in the subset that strict structured
	// outputs take — every object lists its properties, requires each of
	// them and allows no other (additionalProperties false) — so a
	// provider may hold the answer to it while it is generated.
	Strict bool
}

type outputJSON struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// MarshalJSON writes {"name", "schema", "strict"}.
func (o Output) MarshalJSON() ([]byte, error) { return json.Marshal(outputJSON(o)) }

// UnmarshalJSON reads what MarshalJSON writes; every key is required and
// no other is taken.
func (o *Output) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v outputJSON
	if err := dec.Decode(&v); err != nil {
		return &FieldError{Msg: "output: " + err.Error(), Err: ErrInvalid}
	}
	if v.Name == "" || !ValidToolName(v.Name) {
		return &FieldError{Path: "name", Msg: fmt.Sprintf("%q is not a schema name (%s)", v.Name, ToolNamePattern), Err: ErrInvalid}
	}
	if len(v.Schema) == 0 || v.Schema[0] != '{' {
		return &FieldError{Path: "schema", Msg: "want a JSON Schema object", Err: ErrInvalid}
	}
	*o = Output(v)
	return nil
}

// MarshalJSON writes the request's JSON (see Request).
func (r Request) MarshalJSON() ([]byte, error) {
	var out struct {
		Model    *Settings       `json:"model,omitempty"`
		Messages json.RawMessage `json:"messages"`
		Tools    json.RawMessage `json:"tools,omitempty"`
		Output   *Output         `json:"output,omitempty"`
	}
	if !r.Model.IsZero() {
		out.Model = &r.Model
	}
	var err error
	if out.Messages, err = EncodeMessages(r.Messages); err != nil {
		return nil, err
	}
	if len(r.Tools) > 0 {
		if out.Tools, err = EncodeTools(r.Tools); err != nil {
			return nil, err
		}
	}
	out.Output = r.Output
	return json.Marshal(out)
}

// requestKeys are the keys of a request's JSON.
var requestKeys = []string{"model", "messages", "tools", "output"}

// DecodeRequest reads a request's JSON strictly: a key it does not have,
// a key twice, a message, tool, setting or output that is not one. Every
// key's problems are reported, joined; their paths start at the request
// ("messages[2].role", "model.temperature").
func DecodeRequest(data []byte) (Request, error) {
	var r Request
	tree, err := jsontree.Parse(data)
	if err != nil {
		return r, &FieldError{Msg: "invalid JSON: " + err.Error(), Err: ErrInvalid}
	}
	if tree.Kind != '{' {
		return r, &FieldError{Msg: "a request is a JSON object, not " + nodeKind(tree), Err: ErrInvalid}
	}
	var errs []error
	in := func(key string, err error) {
		var fe *FieldError
		if errors.As(err, &fe) && fe.Path != "" && fe.Path[0] != '[' && !hasRoot(fe.Path, key) {
			fe.Path = key + "." + fe.Path
		} else if errors.As(err, &fe) && fe.Path == "" {
			fe.Path = key
		}
		errs = append(errs, err)
	}
	for _, m := range tree.Members {
		raw := m.Value.Raw(data)
		switch m.Key {
		case "model":
			s, err := DecodeSettings(raw)
			if err != nil {
				for _, e := range unjoin(err) {
					in("model", e)
				}
			}
			r.Model = s
		case "messages":
			msgs, err := DecodeMessages(raw)
			if err != nil {
				errs = append(errs, err)
			}
			r.Messages = msgs
		case "tools":
			tools, err := DecodeTools(raw)
			if err != nil {
				errs = append(errs, err)
			}
			r.Tools = tools
		case "output":
			var o Output
			if err := o.UnmarshalJSON(raw); err != nil {
				in("output", err)
			} else {
				r.Output = &o
			}
		default:
			msg := "unknown field"
			if near := suggest.Closest(m.Key, requestKeys); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			errs = append(errs, &FieldError{Path: keyPath(m.Key), Msg: msg, Err: ErrUnknownField})
		}
	}
	if tree.Get("messages") == nil {
		errs = append(errs, &FieldError{Path: "messages", Msg: "missing: a request has messages", Err: ErrInvalid})
	}
	if len(errs) > 0 {
		return Request{}, errors.Join(errs...)
	}
	return r, nil
}

func hasRoot(path, key string) bool {
	return path == key || len(path) > len(key) && path[:len(key)] == key && (path[len(key)] == '.' || path[len(key)] == '[')
}

// unjoin lists the errors errors.Join joined, or err itself.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// UnmarshalJSON reads a request as DecodeRequest does.
func (r *Request) UnmarshalJSON(data []byte) error {
	v, err := DecodeRequest(data)
	if err != nil {
		return err
	}
	*r = v
	return nil
}
