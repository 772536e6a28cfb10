package contextstack_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/contextstack"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// A run starts from the incoming request. During the turn, retrieval
// brings a passage and the skill subsystem activates a skill; the request
// for the next model call is derived from the grown stack.
func Example() {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		fmt.Println(err)
		return
	}
	search := contextstack.ToolSpec{
		Name:        "search",
		Type:        "function",
		Description: "Search the knowledge base when the question needs facts from the documents.",
		InputSchema: contextstack.Schema(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
	}
	req := contextstack.Request{
		System: "Answer from the documents only.",
		Messages: []contextstack.Message{
			message.Text(message.RoleSystem, "a system message from an earlier turn"),
			message.Text(message.RoleUser, "How do I undo my last commit?"),
		},
		Tools:      []contextstack.ToolSpec{search},
		ToolChoice: contextstack.Auto,
	}

	git := contextstack.Skill{Name: "git", Description: "Work with Git repositories.", Location: "skills/git"}
	stack, err := contextstack.From(contextstack.FromRequest(req)).
		Document("citations", contextstack.Document{ID: "doc-7", ShorterID: "7", Title: "Undoing commits", Text: "git reset --soft HEAD~1 keeps the changes staged."}).
		ActivatedSkill("skill:git", git, "Prefer commands that keep the user's changes.").
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}

	next, err := stack.DeriveRequest(req, m, contextstack.WithClock(contextstack.FixedClock(time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC))))
	if err != nil {
		fmt.Println(err)
		return
	}
	blocks, _ := stack.SystemPrompt(m)
	for _, b := range blocks {
		first, _, _ := strings.Cut(b.Text, "\n")
		fmt.Printf("block %s (%s, %d): %s\n", b.Type, b.Source, b.Priority, first)
	}
	fmt.Println("system prompt is the blocks joined:", next.System == blocks[0].Text+contextstack.BlockSeparator+blocks[1].Text)
	for _, t := range next.Tools {
		fmt.Println("tool:", t.Name)
	}
	for _, d := range next.Documents {
		fmt.Printf("document: %s [%s] %s\n", d.ID, d.ShorterID, d.Title)
	}
	for _, msg := range next.Messages {
		fmt.Printf("message: %s: %s\n", msg.Role, msg.Text())
	}
	fmt.Println("time:", next.Time.Format(time.RFC3339))

	// Output:
	// block user_instructions (request, 100): Answer from the documents only.
	// block skill_body (skill:git, 400): ## 已激活的技能：git
	// system prompt is the blocks joined: true
	// tool: search
	// document: doc-7 [7] Undoing commits
	// message: user: How do I undo my last commit?
	// time: 2025-03-01T08:00:00Z
}

// Two sources that register a tool with one name are refused when the
// stack is built, with both sources named.
func ExampleBuilder_Build_conflict() {
	search := contextstack.ToolSpec{Name: "search", Description: "Search the documents."}
	_, err := contextstack.NewBuilder().
		Tools("rag", search).
		Tools("web", search).
		Build()

	var conflict *contextstack.ToolNameConflictError
	if errors.As(err, &conflict) {
		fmt.Println(conflict.Code(), conflict.Name, conflict.FirstSource, conflict.SecondSource)
	}
	fmt.Println(err)
	// Output:
	// TOOL_NAME_CONFLICT search rag web
	// contextstack: tool name conflict: "search" in layer 1 (source "web") is already defined in layer 0 (source "rag")
}

// Changes return new stacks; the old one is a snapshot that stays as it
// was.
func ExampleStack_Append() {
	turn1 := contextstack.NewStack(contextstack.Layer{Source: "request", Content: contextstack.UserInstructions{Text: "Be brief."}})
	turn2 := turn1.Append(contextstack.Layer{Source: "loop", Content: contextstack.RuntimeInstructions{Text: "Wrap up now."}})
	turn3 := turn2.RemoveSource("loop")
	fmt.Println(turn1.Len(), turn2.Len(), turn3.Len())
	// Output: 1 2 1
}

// The tool choice of a turn picks from the stack's tools, in stack order.
func ExampleStack_SelectTools() {
	stack := contextstack.NewStack(
		contextstack.Layer{Source: "rag", Content: contextstack.ToolDefinitions{Tools: []contextstack.ToolSpec{{Name: "search"}, {Name: "fetch"}}}},
		contextstack.Layer{Source: "platform", Content: contextstack.ToolDefinitions{Tools: []contextstack.ToolSpec{{Name: "clock"}}}},
	)
	for _, choice := range []contextstack.ToolChoice{contextstack.Auto, contextstack.ChooseTools("clock"), contextstack.ChooseTools("clock", "search")} {
		tools, _ := stack.SelectTools(choice)
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		data, _ := json.Marshal(choice)
		fmt.Printf("%s → %v\n", data, names)
	}
	// Output:
	// "auto" → [search fetch clock]
	// "clock" → [clock]
	// ["clock","search"] → [search clock]
}

// LintTools holds tool descriptions to the discipline: when and why to
// use the tool, not its parameters or its implementation.
func ExampleLintTools() {
	problems, _ := contextstack.LintTools([]contextstack.ToolSpec{
		{
			Name:        "recent_messages",
			Description: "Calls the chat API and reads rows from the chat_records table.\nArgs:\n- limit: how many",
			InputSchema: contextstack.Schema(`{"type":"object","properties":{"limit":{"type":"integer"}}}`),
		},
		{
			Name:        "search_users",
			Description: "Find a known user or group by nickname or id; returns the user_id to send a message to.",
		},
	})
	for _, p := range problems {
		fmt.Println(p.Rule)
	}
	// Output:
	// parameter-section
	// parameter-listed
	// implementation
	// implementation
}
