package tokens_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/tokens"
	"github.com/stretchr/testify/require"
)

// A chat's count: promptkit renders the model's chat template as
// transformers does (testdata/chat/NAME.txt is that text, and a case of
// the vectors), and counts it with the model's tokenizer.json as the
// reference does: the same ids, the special tokens one id each.
func TestChatCount(t *testing.T) {
	messages, err := os.ReadFile("testdata/chat/messages.json")
	require.NoError(t, err)
	for name, special := range map[string][]int{
		"qwen3":  {151644, 151645},         // <|im_start|>, <|im_end|>
		"llama3": {128000, 128006, 128009}, // <|begin_of_text|>, <|start_header_id|>, <|eot_id|>
	} {
		t.Run(name, func(t *testing.T) {
			dir := "testdata/tokenizers/" + name
			config, err := os.ReadFile(dir + "/tokenizer_config.json")
			require.NoError(t, err)
			tmpl, err := manager.ParseChatTemplateConfig(name, config, "")
			require.NoError(t, err)
			text, err := tmpl.Apply(context.Background(), manager.ChatInput{MessagesJSON: messages, AddGenerationPrompt: true})
			require.NoError(t, err)
			want, err := os.ReadFile("testdata/chat/" + name + ".txt")
			require.NoError(t, err)
			require.Equal(t, string(want), text)

			tok, err := tokens.ReadFile(os.DirFS(dir), "tokenizer.json.gz")
			require.NoError(t, err)
			var vf struct {
				IDs map[string][]int `json:"ids"`
			}
			data, err := os.ReadFile("testdata/vectors/" + name + ".json")
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &vf))
			ids := tok.Encode(text)
			require.Equal(t, vf.IDs["chat-"+name], ids)
			for _, id := range special {
				require.Contains(t, ids, id)
			}
			require.Equal(t, len(ids), tok.Count(text))
		})
	}
}
