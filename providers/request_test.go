package providers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/providers/anthropicmsg"
	"github.com/seed-e7d2830f/promptkit/providers/internal/sdktest"
	"github.com/seed-e7d2830f/promptkit/providers/openaichat"
)

// The request promptkit makes for a template of a set, with its call
// contract (testdata/set), is the request each official SDK sends for the
// same call written by hand with the SDK's own params: both are sent by
// the SDK's client to a local server, and the two bodies are the same
// JSON, key order aside.

// normalized is JSON with its keys sorted and no spaces.
func normalized(t *testing.T, body []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

// schema reads a JSON Schema written by hand.
func schema(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}

const (
	system           = "你是天气助手。先用工具查询天气，再只用 JSON 回答：城市，以及每天的日期和最高气温。"
	question         = "北京未来 3 天的天气如何？"
	getWeatherParams = `{"type": "object", "properties": {"city": {"$ref": "#/$defs/city"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
		"required": ["city", "days"], "additionalProperties": false, "$defs": {"city": {"type": "string", "minLength": 1}}}`
	getWeatherDescription = "查询城市未来几天的天气预报；城市不存在时返回错误。"
	answerSchema          = `{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "array", "items": {"$ref": "#/$defs/day"}}},
		"required": ["city", "days"], "additionalProperties": false,
		"$defs": {"day": {"type": "object", "properties": {"date": {"type": "string"}, "high": {"type": "number"}}, "required": ["date", "high"], "additionalProperties": false}}}`
)

func TestOpenAIRequestIsTheHandBuiltOne(t *testing.T) {
	m, err := manager.Open("testdata/set")
	require.NoError(t, err)
	defer m.Close()
	req, err := m.Request(context.Background(), "weather", map[string]any{"city": "北京"})
	require.NoError(t, err)
	fromTemplate, err := openaichat.Request(req)
	require.NoError(t, err)

	byHand := openai.ChatCompletionNewParams{
		Model:               openai.ChatModelGPT4o,
		Temperature:         openai.Float(0.2),
		MaxCompletionTokens: openai.Int(512),
		Seed:                openai.Int(7),
		PresencePenalty:     openai.Float(0.5),
		ToolChoice:          openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")},
		Messages: []openai.ChatCompletionMessageParamUnion{
			{OfSystem: &openai.ChatCompletionSystemMessageParam{Content: openai.ChatCompletionSystemMessageParamContentUnion{
				OfArrayOfContentParts: []openai.ChatCompletionContentPartTextParam{{
					Text: system, PromptCacheBreakpoint: openai.NewChatCompletionContentPartTextPromptCacheBreakpointParam()}}}}},
			openai.UserMessage(question),
		},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: "get_weather", Description: openai.String(getWeatherDescription),
			Parameters: schema(t, getWeatherParams), Strict: openai.Bool(true)})},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "weather", Schema: schema(t, answerSchema), Strict: openai.Bool(true)}}},
	}
	require.Equal(t, normalized(t, sendOpenAI(t, byHand)), normalized(t, sendOpenAI(t, fromTemplate)))
}

func TestAnthropicRequestIsTheHandBuiltOne(t *testing.T) {
	m, err := manager.Open("testdata/set")
	require.NoError(t, err)
	defer m.Close()
	req, err := m.Request(context.Background(), "weather_claude", map[string]any{"city": "北京"})
	require.NoError(t, err)
	fromTemplate, err := anthropicmsg.Request(req)
	require.NoError(t, err)

	var params map[string]any
	require.NoError(t, json.Unmarshal([]byte(getWeatherParams), &params))
	byHand := anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_5,
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: system, CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h}}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(question))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name: "get_weather", Description: anthropic.String(getWeatherDescription), Strict: anthropic.Bool(true),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: params["properties"], Required: []string{"city", "days"},
				ExtraFields: map[string]any{"additionalProperties": false, "$defs": params["$defs"]}}}}},
		ToolChoice: anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: "get_weather", DisableParallelToolUse: anthropic.Bool(true)}},
		OutputConfig: anthropic.OutputConfigParam{Effort: anthropic.OutputConfigEffortLow,
			Format: anthropic.JSONOutputFormatParam{Schema: schema(t, answerSchema)}},
		Metadata: anthropic.MetadataParam{UserID: anthropic.String("u-42")},
	}
	require.Equal(t, normalized(t, sendAnthropic(t, byHand)), normalized(t, sendAnthropic(t, fromTemplate)))
}

const (
	completion = `{"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
	"choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}]}`
	reply = `{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
	"content": [{"type": "text", "text": "{}"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}`
)

func sendOpenAI(t *testing.T, params openai.ChatCompletionNewParams) []byte {
	t.Helper()
	srv := sdktest.Serve(t, completion)
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	_, err := client.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	path, body := srv.Last()
	require.Equal(t, "/chat/completions", path)
	return body
}

func sendAnthropic(t *testing.T, params anthropic.MessageNewParams) []byte {
	t.Helper()
	srv := sdktest.Serve(t, reply)
	client := anthropic.NewClient(anthropicoption.WithBaseURL(srv.URL), anthropicoption.WithAPIKey("test"), anthropicoption.WithMaxRetries(0))
	_, err := client.Messages.New(context.Background(), params)
	require.NoError(t, err)
	path, body := srv.Last()
	require.Equal(t, "/v1/messages", path)
	return body
}
