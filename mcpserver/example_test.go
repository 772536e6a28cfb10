package mcpserver_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/mcpserver"
)

// A host serves its set to an MCP client; here the client is the Go SDK's,
// in the same process.
func Example() {
	ctx := context.Background()
	m, err := manager.Open("testdata/set")
	if err != nil {
		panic(err)
	}
	defer m.Close()
	s, err := mcpserver.New(m)
	if err != nil {
		panic(err)
	}
	defer s.Close()

	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(ctx, serverSide, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "support",
		Arguments: map[string]string{"product": "麦麦", "question": "怎么退货？"}})
	if err != nil {
		panic(err)
	}
	for _, msg := range res.Messages {
		fmt.Println(msg.Role, msg.Content.(*mcp.TextContent).Meta, msg.Content.(*mcp.TextContent).Text)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "title", Arguments: map[string]string{"intnet": "查天气"}})
	fmt.Println(err)
	// Output:
	// user map[promptkit/role:system] 你是麦麦的客服，只根据已知信息回答。
	// user map[] 怎么退货？
	// calling "prompts/get": prompt "title": missing argument: intent; unknown argument "intnet": did you mean "intent"?
}
