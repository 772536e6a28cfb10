package genkitprompt_test

import (
	"context"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/seed-e7d2830f/promptkit/frameworks/genkitprompt"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// genkitFlow is the README's example: a template of the set as a Genkit
// flow, its messages sent to a model.
func genkitFlow(ctx context.Context, g *genkit.Genkit, m *manager.Manager, model ai.Model) (string, error) {
	support, err := genkitprompt.Define(g, m, "support") // a flow: traced, in the Developer UI
	if err != nil {
		return "", err
	}
	msgs, err := support.Run(ctx, genkitprompt.Vars{"product": "麦麦", "question": "怎么退货？"})
	if err != nil {
		return "", err // a misspelt variable: manager.ErrExtraVariables, with a did-you-mean
	}
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(msgs...))
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

func Example() {
	ctx := context.Background()
	m, err := manager.Open("../../mcpserver/testdata/set")
	if err != nil {
		panic(err)
	}
	defer m.Close()
	g := genkit.Init(ctx)
	var sent [][]*ai.Message
	answer, err := genkitFlow(ctx, g, m, recorder(g, &sent))
	if err != nil {
		panic(err)
	}
	fmt.Println(answer)
	for _, msg := range sent[0] {
		fmt.Println(msg.Role, msg.Text())
	}
	// Output:
	// 好的
	// system 你是麦麦的客服，只根据已知信息回答。
	// user 怎么退货？
}
