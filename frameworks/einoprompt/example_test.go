package einoprompt_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/seed-e7d2830f/promptkit/frameworks/einoprompt"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// einoChain is the README's example: a template of the set as the first
// step of an Eino chain.
func einoChain(ctx context.Context, m *manager.Manager) ([]*schema.Message, error) {
	tmpl, err := einoprompt.New(m, "support") // a prompt.ChatTemplate
	if err != nil {
		return nil, err // the set has no such template (manager.ErrUnknownTemplate)
	}
	chain := compose.NewChain[map[string]any, []*schema.Message]()
	chain.AppendChatTemplate(tmpl) // then chain.AppendChatModel(model), …
	run, err := chain.Compile(ctx)
	if err != nil {
		return nil, err
	}
	return run.Invoke(ctx, map[string]any{"product": "麦麦", "question": "怎么退货？"})
}

func Example() {
	m, err := manager.Open("../../mcpserver/testdata/set")
	if err != nil {
		panic(err)
	}
	defer m.Close()
	msgs, err := einoChain(context.Background(), m)
	if err != nil {
		panic(err)
	}
	for _, msg := range msgs {
		fmt.Println(msg.Role, msg.Content)
	}
	// Output:
	// system 你是麦麦的客服，只根据已知信息回答。
	// user 怎么退货？
}
