package builders

import "github.com/seed-e7d2830f/promptkit/prompts"

// Tool is one tool offered to a sub-agent. JSON: {"name", "description"};
// the name is required.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// SubAgentSystem builds the system prompt of a sub-agent, from the template
// subagent_system.
//
// It reads the data keys intent (the sub-task; when absent or empty, the
// task's intent, and one of them must be set), tool_list (a list of Tool,
// or JSON objects with exactly the fields name and description; absent is
// an empty list) and bot_name (as AgentSystem reads it).
//
// Escaped with EscapeXML: intent, every tool's name and description,
// bot_name.
type SubAgentSystem struct {
	base
	botName string
}

// NewSubAgentSystem returns the subagent_system builder. botName is the
// default bot name.
func NewSubAgentSystem(r Renderer, botName string) *SubAgentSystem {
	return &SubAgentSystem{base: newBase("subagent_system", r, keyIntent, "tool_list", keyBotName), botName: botName}
}

// Build renders the sub-agent's system prompt.
func (b *SubAgentSystem) Build(ctx Context) (string, error) {
	d, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	intent, err := d.intent()
	if err != nil {
		return "", err
	}
	tools, err := list(d, "tool_list", func(t Tool) string {
		if t.Name == "" {
			return "name"
		}
		return ""
	})
	if err != nil {
		return "", err
	}
	bot, err := d.botName(b.botName)
	if err != nil {
		return "", err
	}
	items := make([]prompts.Tool, len(tools))
	for i, t := range tools {
		items[i] = prompts.Tool{Name: EscapeXML(t.Name), Description: EscapeXML(t.Description)}
	}
	return b.rendered(prompts.RenderSubagentSystem(b.r, prompts.SubagentSystemVars{
		Intent:   EscapeXML(intent),
		ToolList: items,
		BotName:  EscapeXML(bot),
	}))
}
