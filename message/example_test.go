package message_test

import (
	"encoding/json"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/message"
)

// A conversation read from a chat request encodes to the same JSON: the
// tool call's arguments are the model's text, null stays null.
func ExampleDecodeMessages() {
	data := []byte(`[
	  {"role": "user", "content": [{"type": "text", "text": "北京明天天气如何？"}, {"type": "image_url", "image_url": {"url": "https://example.com/sky.jpg", "detail": "low"}}]},
	  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"}}]},
	  {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "晴"}
	]`)
	msgs, err := message.DecodeMessages(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := msgs[1].ToolCalls[0]
	fmt.Println(call.Name, call.Arguments)
	out, _ := message.EncodeMessages(msgs)
	fmt.Println(string(out))

	_, err = message.DecodeMessages([]byte(`[{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "argumnets": "{}"}}]}]`))
	fmt.Println(err)
	// Output:
	// get_weather {"city": "北京"}
	// [{"role":"user","content":[{"type":"text","text":"北京明天天气如何？"},{"type":"image_url","image_url":{"url":"https://example.com/sky.jpg","detail":"low"}}]},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"北京\"}"}}]},{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"晴"}]
	// messages[0].tool_calls[0].function.argumnets: unknown field; did you mean "arguments"?
}

// A program builds messages with the model's tool call and the tool's
// result; they marshal in the Chat Completions shape.
func ExampleToolResult() {
	call := message.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京"}`}
	msgs := []message.Message{
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{call}},
		message.ToolResult(call, "晴，25°C"),
	}
	for _, m := range msgs {
		data, _ := json.Marshal(m)
		fmt.Println(string(data))
	}
	var args struct {
		City string `json:"city"`
	}
	if err := call.DecodeArguments(&args); err != nil {
		fmt.Println(err)
	}
	fmt.Println(args.City)
	// Output:
	// {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"北京\"}"}}]}
	// {"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"晴，25°C"}
	// 北京
}
