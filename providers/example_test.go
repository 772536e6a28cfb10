package providers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers/anthropicmsg"
	"github.com/seed-e7d2830f/promptkit/providers/internal/weather"
	"github.com/seed-e7d2830f/promptkit/providers/openaichat"
)

// sdkRequests is the README's conversion of a conversation to the
// request params of both official SDKs.
func sdkRequests(msgs []message.Message, tools []message.Tool) (openai.ChatCompletionNewParams, anthropic.MessageNewParams, error) {
	var gpt openai.ChatCompletionNewParams
	var claude anthropic.MessageNewParams
	chat, err := openaichat.Messages(msgs)
	if err != nil {
		return gpt, claude, err // what OpenAI has no field for, named: messages[2] (assistant): …
	}
	chatTools, err := openaichat.Tools(tools)
	if err != nil {
		return gpt, claude, err
	}
	gpt = openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o, Messages: chat, Tools: chatTools}

	system, turns, err := anthropicmsg.Messages(msgs) // the system prompt apart, tool results in user turns
	if err != nil {
		return gpt, claude, err
	}
	claudeTools, err := anthropicmsg.Tools(tools)
	if err != nil {
		return gpt, claude, err
	}
	claude = anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet4_5, MaxTokens: 1024,
		System: system, Messages: turns, Tools: claudeTools}
	return gpt, claude, nil
}

func Example() {
	call := message.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京"}`}
	msgs := []message.Message{
		message.Text(message.RoleSystem, "你是天气助手。"),
		message.Text(message.RoleUser, "北京明天天气如何？"),
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{call}},
		message.ToolResult(call, "晴，25°C"),
	}
	tools := []message.Tool{{Name: "get_weather", Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}}`)}}
	gpt, claude, err := sdkRequests(msgs, tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range []any{gpt.Messages[2], gpt.Messages[3], claude.System, claude.Messages[1], claude.Messages[2]} {
		data, _ := json.Marshal(v)
		fmt.Println(string(data))
	}
	// Output:
	// {"tool_calls":[{"id":"call_1","function":{"arguments":"{\"city\": \"北京\"}","name":"get_weather"},"type":"function"}],"role":"assistant"}
	// {"content":"晴，25°C","tool_call_id":"call_1","role":"tool"}
	// [{"text":"你是天气助手。","type":"text"}]
	// {"content":[{"id":"call_1","input":{"city":"北京"},"name":"get_weather","type":"tool_use"}],"role":"assistant"}
	// {"content":[{"tool_use_id":"call_1","content":[{"text":"晴，25°C","type":"text"}],"type":"tool_result"}],"role":"user"}
}

// contractCall is the README's call contract in use: the weather
// template's request — its messages, model settings, tools, output schema
// and cache mark, all from the set — sent as OpenAI's with the official
// client, and the answer decoded into the type promptkit gen made of the
// output schema (package weather is the set's generated API).
func contractCall(ctx context.Context, m *manager.Manager, client openai.Client) (weather.Answer, error) {
	req, err := m.Request(ctx, "weather", weather.WeatherVars{City: "北京"}.Map())
	if err != nil {
		return weather.Answer{}, err // a missing or invalid variable, named
	}
	params, err := openaichat.Request(req) // model, settings, messages with the cache mark, tools, response_format
	if err != nil {
		return weather.Answer{}, err
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		return weather.Answer{}, err
	}
	return weather.DecodeWeather(ctx, m, []byte(resp.Choices[0].Message.Content)) // or: answer.days[0].high: want number, got string
}

// Example_callContract runs contractCall against a local server that
// answers as OpenAI would, and shows what the SDK sent.
func Example_callContract() {
	var sent []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o", "choices": [{"index": 0,
			"message": {"role": "assistant", "content": "{\"city\": \"北京\", \"days\": [{\"date\": \"2026-12-02\", \"high\": 3.5}]}"}, "finish_reason": "stop"}]}`)
	}))
	defer srv.Close()
	m, err := manager.Open("testdata/set")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	answer, err := contractCall(context.Background(), m, client)
	fmt.Printf("%+v %v\n", answer, err)

	var req struct {
		Model          string  `json:"model"`
		Temperature    float64 `json:"temperature"`
		Tools          []struct{ Function struct{ Name string } }
		ResponseFormat struct {
			JSONSchema struct {
				Name   string
				Strict bool
			} `json:"json_schema"`
		} `json:"response_format"`
		Messages []struct {
			Content json.RawMessage
		}
	}
	_ = json.Unmarshal(sent, &req)
	fmt.Println(req.Model, req.Temperature, req.Tools[0].Function.Name, req.ResponseFormat.JSONSchema.Name, req.ResponseFormat.JSONSchema.Strict)
	fmt.Println("the system message ends the cached prefix:", strings.Contains(string(req.Messages[0].Content), "prompt_cache_breakpoint"))
	// Output:
	// {City:北京 Days:[{Date:2026-12-02 High:3.5}]} <nil>
	// gpt-4o 0.2 get_weather weather true
	// the system message ends the cached prefix: true
}
