package openaichat

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/seed-e7d2830f/promptkit/message"
)

// Request converts a provider-neutral request — what manager.Request
// renders from a template and its call contract — to the params of one
// Chat Completions call:
//
//	req, err := m.Request(ctx, "weather", vars)
//	params, err := openaichat.Request(req)
//	resp, err := client.Chat.Completions.New(ctx, params)
//
// The settings map one to one: name to model, max_output_tokens to
// max_completion_tokens, tool_choice to "auto", "none", "required" or the
// named function; the output schema becomes a response_format of type
// json_schema ("strict": true when the schema is in the strict subset,
// left out otherwise); the
// settings under "openai" are written into the request as they are.
// Messages and tools convert as Messages and Tools do, with the same
// options.
func Request(req message.Request, opts ...Option) (openai.ChatCompletionNewParams, error) {
	var p openai.ChatCompletionNewParams
	var err error
	if p.Messages, err = Messages(req.Messages, opts...); err != nil {
		return p, err
	}
	if len(req.Tools) > 0 {
		if p.Tools, err = Tools(req.Tools); err != nil {
			return p, err
		}
	}
	s := req.Model
	p.Model = shared.ChatModel(s.Name)
	if s.Temperature != nil {
		p.Temperature = param.NewOpt(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = param.NewOpt(*s.TopP)
	}
	if s.MaxOutputTokens != nil {
		p.MaxCompletionTokens = param.NewOpt(*s.MaxOutputTokens)
	}
	if s.Stop != nil {
		p.Stop.OfStringArray = s.Stop
	}
	if s.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(s.ReasoningEffort)
	}
	if s.Seed != nil {
		p.Seed = param.NewOpt(*s.Seed)
	}
	switch s.ToolChoice {
	case "":
	case message.ToolChoiceAuto, message.ToolChoiceNone, message.ToolChoiceRequired:
		p.ToolChoice.OfAuto = param.NewOpt(s.ToolChoice)
	default:
		p.ToolChoice.OfFunctionToolChoice = &openai.ChatCompletionNamedToolChoiceParam{
			Function: openai.ChatCompletionNamedToolChoiceFunctionParam{Name: s.ToolChoice}}
	}
	if s.ParallelToolCalls != nil {
		p.ParallelToolCalls = param.NewOpt(*s.ParallelToolCalls)
	}
	if o := req.Output; o != nil {
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(o.Schema, &schema); err != nil {
			return p, fmt.Errorf("openaichat: output: schema: %v: %w", err, ErrUnsupported)
		}
		f := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: o.Name, Schema: schema}
		if o.Strict {
			f.Strict = param.NewOpt(true)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: f}
	}
	if raw, ok := s.Provider["openai"]; ok {
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(raw, &extra); err != nil {
			return p, fmt.Errorf("openaichat: model.openai: %v: %w", err, ErrUnsupported)
		}
		fields := make(map[string]any, len(extra))
		for k, v := range extra {
			fields[k] = v
		}
		p.SetExtraFields(fields)
	}
	return p, nil
}
