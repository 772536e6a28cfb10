package providers_test

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers/anthropicmsg"
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
