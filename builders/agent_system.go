package builders

import "github.com/seed-e7d2830f/promptkit/prompts"

// AgentSystem builds the system prompt of the agent loop from the template
// agent_system.
//
// The title and intent come from the task; the task must have an intent
// (ErrMissingValue), while an empty title is left for the template to
// omit. The data key bot_name names the bot; when it is absent or empty,
// the default bot name given to NewAgentSystem is used.
//
// Escaped with EscapeXML: title, intent, bot_name.
type AgentSystem struct {
	base
	botName string
}

// NewAgentSystem returns the agent_system builder. botName is the default
// bot name for builds whose data has no bot_name.
func NewAgentSystem(r Renderer, botName string) *AgentSystem {
	return &AgentSystem{base: newBase("agent_system", r, keyBotName), botName: botName}
}

// Build renders the agent's system prompt.
func (b *AgentSystem) Build(ctx Context) (string, error) {
	d, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	bot, err := d.botName(b.botName)
	if err != nil {
		return "", err
	}
	task := ctx.Task()
	if task.Intent == "" {
		return "", b.fail("task.intent", ErrMissingValue, "absent or empty", nil)
	}
	return b.rendered(prompts.RenderAgentSystem(b.r, prompts.AgentSystemVars{
		Title:   EscapeXML(task.Title),
		Intent:  EscapeXML(task.Intent),
		BotName: EscapeXML(bot),
	}))
}
