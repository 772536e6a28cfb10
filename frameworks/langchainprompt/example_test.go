package langchainprompt_test

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	"github.com/seed-e7d2830f/promptkit/frameworks/langchainprompt"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// langchainChain is the README's example: a template of the set as the
// prompt of a LangChainGo chain, and a chat template's messages for a
// model's GenerateContent.
func langchainChain(ctx context.Context, m *manager.Manager, llm llms.Model) (string, []llms.MessageContent, error) {
	title, err := langchainprompt.New(m, "title") // a prompts.FormatPrompter
	if err != nil {
		return "", nil, err
	}
	out, err := chains.Call(ctx, chains.NewLLMChain(llm, title), map[string]any{"intent": "查询明天北京的天气"})
	if err != nil {
		return "", nil, err // a misspelt variable: manager.ErrExtraVariables, with a did-you-mean
	}
	support, err := langchainprompt.New(m, "support")
	if err != nil {
		return "", nil, err
	}
	msgs, err := support.FormatMessageContents(ctx, map[string]any{"product": "麦麦", "question": "怎么退货？"})
	if err != nil {
		return "", nil, err
	}
	// llm.GenerateContent(ctx, msgs) sends them, images included
	return out["text"].(string), msgs, nil
}

func Example() {
	m, err := manager.Open("../../mcpserver/testdata/set")
	if err != nil {
		panic(err)
	}
	defer m.Close()
	title, msgs, err := langchainChain(context.Background(), m, &recorder{})
	if err != nil {
		panic(err)
	}
	fmt.Println(title)
	for _, msg := range msgs {
		fmt.Println(msg.Role, msg.Parts)
	}
	// Output:
	// 明天北京天气查询
	// system [你是麦麦的客服，只根据已知信息回答。]
	// human [怎么退货？]
}
