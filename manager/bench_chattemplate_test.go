package manager_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// The chat-template workload (testdata/bench/chat, which bench/ times
// against Jinja2, @huggingface/jinja and minja): six chat templates of
// the corpus applied to a ten-message conversation with three tools,
// tool calls and results.

type chatWorkload struct {
	name         string
	tmpl         *manager.ChatTemplate
	bos, eos     *string
	messagesJSON json.RawMessage
	toolsJSON    json.RawMessage
	messages     []message.Message
	tools        []message.Tool
	golden       string
}

func chatWorkloads(tb testing.TB) []chatWorkload {
	tb.Helper()
	dir := filepath.Join("testdata", "bench", "chat")
	var spec struct {
		Templates []struct{ Name, Case string }
	}
	var conv struct{ Messages, Tools json.RawMessage }
	for path, v := range map[string]any{"templates.json": &spec, "conversation.json": &conv} {
		data, err := os.ReadFile(filepath.Join(dir, path))
		require.NoError(tb, err)
		require.NoError(tb, json.Unmarshal(data, v))
	}
	msgs, err := message.DecodeMessages(conv.Messages)
	require.NoError(tb, err)
	tools, err := message.DecodeTools(conv.Tools)
	require.NoError(tb, err)
	var out []chatWorkload
	for _, s := range spec.Templates {
		var cf chatCorpusFile
		data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "chat", s.Case+".json"))
		require.NoError(tb, err)
		require.NoError(tb, json.Unmarshal(data, &cf))
		ct, err := manager.ParseChatTemplate(s.Name, cf.Template)
		require.NoError(tb, err)
		golden, err := os.ReadFile(filepath.Join(dir, s.Name+".golden"))
		require.NoError(tb, err)
		out = append(out, chatWorkload{name: s.Name, tmpl: ct, bos: cf.BOS, eos: cf.EOS,
			messagesJSON: conv.Messages, toolsJSON: conv.Tools, messages: msgs, tools: tools, golden: string(golden)})
	}
	require.Len(tb, out, 6)
	return out
}

// inputs are the ways a host passes the conversation: as JSON, as typed
// messages and tools, as JSON messages with tools decoded once (a server
// offering the same tools with every request), and decoded beforehand.
func (w chatWorkload) inputs(tb testing.TB) map[string]manager.ChatInput {
	msgs, err := manager.DecodeChatValue(w.messagesJSON)
	require.NoError(tb, err)
	tools, err := manager.DecodeChatValue(w.toolsJSON)
	require.NoError(tb, err)
	return map[string]manager.ChatInput{
		"json":       {MessagesJSON: w.messagesJSON, ToolsJSON: w.toolsJSON, AddGenerationPrompt: true, BOS: w.bos, EOS: w.eos},
		"typed":      {Messages: w.messages, Tools: w.tools, AddGenerationPrompt: true, BOS: w.bos, EOS: w.eos},
		"json_tools": {MessagesJSON: w.messagesJSON, ToolsValue: tools, AddGenerationPrompt: true, BOS: w.bos, EOS: w.eos},
		"values":     {MessagesValue: msgs, ToolsValue: tools, AddGenerationPrompt: true, BOS: w.bos, EOS: w.eos},
	}
}

func TestChatWorkload(t *testing.T) {
	for _, w := range chatWorkloads(t) {
		for how, in := range w.inputs(t) {
			out, err := w.tmpl.Apply(context.Background(), in)
			require.NoError(t, err, "%s from %s", w.name, how)
			require.Equal(t, w.golden, out, "%s from %s: Jinja2's output", w.name, how)
		}
	}
}

// BenchmarkChatApply applies each template of the workload to the
// conversation, given in each of the ways a host may hold it.
func BenchmarkChatApply(b *testing.B) {
	ctx := context.Background()
	for _, w := range chatWorkloads(b) {
		for _, how := range []string{"json", "typed", "json_tools", "values"} {
			in := w.inputs(b)[how]
			b.Run(w.name+"/"+how, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := w.tmpl.Apply(ctx, in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
