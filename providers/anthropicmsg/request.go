package anthropicmsg

import (
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/seed-e7d2830f/promptkit/message"
)

// Request converts a provider-neutral request — what manager.Request
// renders from a template and its call contract — to the params of one
// Messages API call:
//
//	req, err := m.Request(ctx, "weather", vars)
//	params, err := anthropicmsg.Request(req)
//	resp, err := client.Messages.New(ctx, params)
//
// The settings map to their Messages API fields: name to model,
// max_output_tokens to max_tokens (which Anthropic requires: a request
// without it is an error), stop to stop_sequences, reasoning_effort to
// output_config.effort, tool_choice to auto, none, any (for "required")
// or the named tool, parallel_tool_calls false to the choice's
// disable_parallel_tool_use; the output schema becomes
// output_config.format; the settings under "anthropic" are written into
// the request as they are. What the Messages API (2026-10-21) has no
// field for is an error naming it: temperature, top_p, seed. Messages and
// tools convert as Messages and Tools do, with the same options.
func Request(req message.Request, opts ...Option) (anthropic.MessageNewParams, error) {
	var p anthropic.MessageNewParams
	var err error
	if p.System, p.Messages, err = Messages(req.Messages, opts...); err != nil {
		return p, err
	}
	if len(req.Tools) > 0 {
		if p.Tools, err = Tools(req.Tools); err != nil {
			return p, err
		}
	}
	s := req.Model
	p.Model = anthropic.Model(s.Name)
	if s.MaxOutputTokens == nil {
		return p, unsupported("anthropicmsg: a request without max_output_tokens: the Messages API requires max_tokens (declare it in the model settings)")
	}
	p.MaxTokens = *s.MaxOutputTokens
	for _, no := range []struct {
		set  bool
		name string
	}{{s.Temperature != nil, "temperature"}, {s.TopP != nil, "top_p"}, {s.Seed != nil, "seed"}} {
		if no.set {
			return p, unsupported("anthropicmsg: %s: the Messages API takes none (a setting for OpenAI alone goes under \"openai\")", no.name)
		}
	}
	p.StopSequences = s.Stop
	if s.ReasoningEffort != "" {
		p.OutputConfig.Effort = anthropic.OutputConfigEffort(s.ReasoningEffort)
	}
	noParallel := param.Opt[bool]{}
	if s.ParallelToolCalls != nil && !*s.ParallelToolCalls {
		noParallel = param.NewOpt(true)
	}
	switch s.ToolChoice {
	case "":
		if noParallel.Valid() {
			p.ToolChoice.OfAuto = &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: noParallel}
		}
	case message.ToolChoiceAuto:
		p.ToolChoice.OfAuto = &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: noParallel}
	case message.ToolChoiceRequired:
		p.ToolChoice.OfAny = &anthropic.ToolChoiceAnyParam{DisableParallelToolUse: noParallel}
	case message.ToolChoiceNone:
		none := anthropic.NewToolChoiceNoneParam()
		p.ToolChoice.OfNone = &none
	default:
		p.ToolChoice.OfTool = &anthropic.ToolChoiceToolParam{Name: s.ToolChoice, DisableParallelToolUse: noParallel}
	}
	if o := req.Output; o != nil {
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(o.Schema, &schema); err != nil {
			return p, unsupported("anthropicmsg: output: schema: %v", err)
		}
		p.OutputConfig.Format.Schema = make(map[string]any, len(schema))
		for k, v := range schema {
			p.OutputConfig.Format.Schema[k] = v
		}
	}
	if raw, ok := s.Provider["anthropic"]; ok {
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(raw, &extra); err != nil {
			return p, unsupported("anthropicmsg: model.anthropic: %v", err)
		}
		fields := make(map[string]any, len(extra))
		for k, v := range extra {
			fields[k] = v
		}
		p.SetExtraFields(fields)
	}
	return p, nil
}
