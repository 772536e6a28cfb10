package promptkit_test

// The Go snippets of README.md and docs/, as code that compiles and runs.
// Each snippet names its function here in a <!-- compiled: FILE FUNC -->
// line, and TestDocSnippets checks that the snippet's lines appear in it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"testing/fstest"
	"time"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/service"
)

// goAPI is the README's "Go API".
func goAPI() error {
	m, err := manager.New(promptkit.FS()) // the embedded default set; manager.Open("prompts") reads a set on disk
	if err != nil {
		return err // every problem of the set, one a line
	}
	defer m.Close()
	out, err := m.Render("title", map[string]any{"intent": "查询明天的天气"})
	if errors.Is(err, manager.ErrMissingVariables) {
		return fmt.Errorf("a caller forgot a variable: %w", err)
	}
	if err != nil {
		return err
	}
	fmt.Println(strings.Contains(out, "<intent>查询明天的天气</intent>"))

	_, err = m.Render("title", nil)
	fmt.Println(errors.Is(err, manager.ErrMissingVariables))
	return nil
}

func Example_goAPI() {
	if err := goAPI(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// true
	// true
}

// toolTurn is the README's tool-calling turn: the system prompt rendered,
// the model's tool call and the tool's result appended, the conversation
// applied to a local model's chat template.
func toolTurn(ctx context.Context) (string, error) {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		return "", err
	}
	defer m.Close()
	system, err := m.Render("agent_system", map[string]any{"title": "天气查询", "intent": "查明天北京的天气", "bot_name": "麦麦"})
	if err != nil {
		return "", err
	}
	weather := message.Tool{Name: "get_weather", Description: "查询城市未来三天的天气预报；城市不存在时返回错误。",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)}
	msgs := []message.Message{
		message.Text(message.RoleSystem, system),
		message.Text(message.RoleUser, "北京明天天气如何？"),
	}

	// The model calls the tool: append its message as it came (json.Unmarshal
	// into a message.Message keeps every field, or fails naming the one it
	// does not know), run the call, append the result.
	var answer message.Message
	if err := json.Unmarshal([]byte(`{"role": "assistant", "content": null, "tool_calls": [
		{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"}}]}`), &answer); err != nil {
		return "", err
	}
	// Qwen's template prints the arguments with tojson: it wants the object
	// (a dict, as transformers' callers pass it), not the string.
	for i := range answer.ToolCalls {
		answer.ToolCalls[i].ObjectArguments = true
	}
	msgs = append(msgs, answer)
	for _, call := range answer.ToolCalls {
		var args struct {
			City string `json:"city"`
		}
		if err := call.DecodeArguments(&args); err != nil {
			return "", err
		}
		msgs = append(msgs, message.ToolResult(call, args.City+"：晴，25°C"))
	}

	// A local model: its chat template makes the prompt, as transformers does.
	config, err := os.ReadFile("testdata/qwen2.5/tokenizer_config.json")
	if err != nil {
		return "", err
	}
	ct, err := manager.ParseChatTemplateConfig("qwen2.5", config, "")
	if err != nil {
		return "", err
	}
	return ct.Apply(ctx, manager.ChatInput{Messages: msgs, Tools: []message.Tool{weather}, AddGenerationPrompt: true})
}

func Example_toolTurn() {
	prompt, err := toolTurn(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	_, turn, _ := strings.Cut(prompt, "<|im_start|>user\n")
	fmt.Print("<|im_start|>user\n" + turn)
	// Output:
	// <|im_start|>user
	// 北京明天天气如何？<|im_end|>
	// <|im_start|>assistant
	// <tool_call>
	// {"name": "get_weather", "arguments": {"city": "北京"}}
	// </tool_call><|im_end|>
	// <|im_start|>user
	// <tool_response>
	// 北京：晴，25°C
	// </tool_response><|im_end|>
	// <|im_start|>assistant
}

// watch is the hot-reload snippet of the README and docs/hot-reload.md.
func watch(dir string) error {
	m, err := manager.Open(dir, manager.WithWatch())
	if err != nil {
		return err // the first load is checked like any other: every problem is listed
	}
	defer m.Close() // stops watching; no goroutine is left behind

	cancel := m.Subscribe(func(ev manager.ReloadEvent) {
		if ev.Err != nil {
			log.Printf("prompts: reload refused, generation %d keeps serving:\n%v", ev.Generation, ev.Err)
			return
		}
		log.Printf("prompts: generation %d live, %d templates", ev.Generation, ev.Templates)
	})
	defer cancel()
	fmt.Println(m.Generation(), len(m.Templates()) > 0)
	return nil
}

func Example_watch() {
	dir, err := os.MkdirTemp("", "prompts")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(dir, promptkit.FS()); err != nil {
		fmt.Println(err)
		return
	}
	if err := watch(dir); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 true
}

// supportSet is the chat template of docs/chat-and-composition.md, and a
// text template for Partial.
var supportSet = fstest.MapFS{
	"index.json": {Data: []byte(`{"version": 1, "templates": {
		"support": {"path": "support.md", "variables": ["product", "examples", "question"]},
		"qa": {"path": "qa.md", "variables": ["product", "context_str", "query_str", "today"]}}}`)},
	"support.md": {Data: []byte(`{% chat role="system" %}
You answer questions about {{ product }}. Use only the documents given.
{% endchat %}

{% for ex in examples %}
{% chat role="user" %}{{ ex.question }}{% endchat %}
{% chat role="assistant" %}{{ ex.answer }}{% endchat %}
{% endfor %}

{% chat role="user" %}
{{ question }}
{% endchat %}
`)},
	"qa.md": {Data: []byte("{{ today }}: {{ product }}\n{{ context_str }}\nQ: {{ query_str }}")},
}

// chat is the RenderMessages snippet of docs/chat-and-composition.md.
func chat(m *manager.Manager) error {
	vars := map[string]any{
		"product":  "Acme",
		"examples": []any{map[string]any{"question": "Is it blue?", "answer": "Yes."}},
		"question": "Is it heavy?",
	}
	msgs, err := m.RenderMessages("support", vars) // []manager.Message
	if err != nil {
		return err
	}
	for _, msg := range msgs {
		fmt.Printf("%s: %s\n", msg.Role, msg.Text())
	}
	return nil
}

// partial is the Partial snippet of docs/chat-and-composition.md.
func partial(m *manager.Manager, ctx, q string) error {
	p, err := m.Partial("qa", map[string]any{"product": "Acme"},
		manager.WithVarMapping(map[string]string{"my_context": "context_str"}),
		manager.WithFunc("today", func(map[string]any) (any, error) {
			return time.Now().Format(time.DateOnly), nil
		}))
	if err != nil {
		return err
	}
	out, err := p.Render(map[string]any{"my_context": ctx, "query_str": q}) // p.RenderMessages for a chat template
	if err != nil {
		return err
	}
	date, rest, _ := strings.Cut(out, ": ")
	fmt.Println(len(date), rest)
	return nil
}

func Example_chatAndComposition() {
	m, err := manager.New(supportSet)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	if err := chat(m); err != nil {
		fmt.Println(err)
	}
	if err := partial(m, "Acme weighs 2 kg.", "How heavy is it?"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// system: You answer questions about Acme. Use only the documents given.
	// user: Is it blue?
	// assistant: Yes.
	// user: Is it heavy?
	// 10 Acme
	// Acme weighs 2 kg.
	// Q: How heavy is it?
}

// override is the overrides snippet of docs/chat-and-composition.md.
func override(m *manager.Manager, svc *service.Service, newSource string) error {
	err := m.Override("title", newSource) // or OverrideAll(map[name]source)
	if err != nil {
		return err
	}
	overrides := m.Overrides()      // name → source
	err = m.RemoveOverride("title") // back to the file's version
	if err != nil {
		return err
	}

	prompts := svc.Prompts() // "builder:template" → manager.Template
	err = svc.UpdatePrompts(map[string]string{"title:title": newSource})
	if err != nil {
		return err
	}
	out, err := svc.Build("title", builders.Task{}, map[string]any{"intent": "查天气"})
	if err != nil {
		return err
	}
	err = svc.RestorePrompts("title:title")
	if err != nil {
		return err
	}
	fmt.Println(len(overrides), prompts["title:title"].Path, out)
	return nil
}

func Example_overrides() {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	svc, err := service.New(m, service.WithDefaultBuilders())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := override(m, svc, "Title for: {{ intent }}"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 templates/title.md Title for: 查天气
}
