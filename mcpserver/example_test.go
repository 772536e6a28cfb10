package mcpserver_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/mcpserver"
)

// serveMCP is the README's host: its set, watched, as MCP prompts for one
// client over transport.
func serveMCP(ctx context.Context, dir string, transport mcp.Transport) error {
	m, err := manager.Open(dir, manager.WithWatch())
	if err != nil {
		return err // every problem of the set, one a line
	}
	defer m.Close()
	s, err := mcpserver.New(m) // or fleet's f.Manager(): a registry label's updates reach clients too
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Run(ctx, transport) // &mcp.StdioTransport{}; or s.Serve(ctx, ln): streamable HTTP at /mcp
}

// A host serves its set to an MCP client; here the client is the Go SDK's,
// in the same process.
func Example() {
	ctx := context.Background()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- serveMCP(ctx, "testdata/set", serverSide) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		panic(err)
	}
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
	cs.Close()
	fmt.Println(<-done)
	// Output:
	// user map[promptkit/role:system] 你是麦麦的客服，只根据已知信息回答。
	// user map[] 怎么退货？
	// calling "prompts/get": prompt "title": missing argument: intent; unknown argument "intnet": did you mean "intent"?
	// <nil>
}
