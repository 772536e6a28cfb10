package tokens_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

func Example() {
	tok, err := tokens.Encoding("o200k_base")
	if err != nil {
		log.Fatal(err)
	}
	prompt := "查询明天北京的天气，用一句话回答。"
	fmt.Println(tok.Count(prompt), "tokens,", len(prompt), "bytes")
	fmt.Println(tok.Encode("Hello, world!"))
	// Output:
	// 11 tokens, 51 bytes
	// [13225 11 2375 0]
}

// The count of a chat is the count of what the model reads: the model's
// chat template applied, then its tokenizer.json; the special tokens the
// template writes are one id each.
func Example_chat() {
	tok, err := tokens.ReadFile(os.DirFS("testdata/tokenizers/qwen3"), "tokenizer.json.gz")
	if err != nil {
		log.Fatal(err)
	}
	config, err := os.ReadFile("testdata/tokenizers/qwen3/tokenizer_config.json")
	if err != nil {
		log.Fatal(err)
	}
	tmpl, err := manager.ParseChatTemplateConfig("qwen3", config, "")
	if err != nil {
		log.Fatal(err)
	}
	text, err := tmpl.Apply(context.Background(), manager.ChatInput{
		MessagesJSON:        []byte(`[{"role": "user", "content": "明天北京的天气怎么样？"}]`),
		AddGenerationPrompt: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", text)
	fmt.Println(tok.Count(text), "tokens:", tok.Encode(text))
	// Output:
	// "<|im_start|>user\n明天北京的天气怎么样？<|im_end|>\n<|im_start|>assistant\n"
	// 14 tokens: [151644 872 198 104807 68990 9370 104307 104472 11319 151645 198 151644 77091 198]
}
