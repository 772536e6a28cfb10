package builders

import "github.com/seed-e7d2830f/promptkit/prompts"

// Jargon is one entry of a chat's jargon table: a term used in the chat
// and what it means. JSON: {"content": "…", "meaning": "…"}.
type Jargon struct {
	Content string `json:"content"`
	Meaning string `json:"meaning"`
}

// Polish builds the system prompt that rewrites a task's raw result into a
// chat message in the bot's own voice, from the template polish.
//
// It reads the data keys:
//   - result (required): the task's raw result;
//   - context: the recent chat, as text; absent or empty is passed as "";
//   - jargon: a list of Jargon ([]Jargon, or JSON objects with exactly the
//     fields content and meaning, both required); absent is an empty list;
//   - requester, personality, reply_style: when absent or empty they are
//     not passed at all, and the template changes the prompt accordingly;
//   - bot_name: as AgentSystem reads it.
//
// What an empty value changes (a placeholder, a section left out) is
// decided by the template.
//
// Escaped with EscapeXML: context, every jargon content and meaning,
// result, requester, personality, reply_style, bot_name.
type Polish struct {
	base
	botName string
}

// NewPolish returns the polish builder. botName is the default bot name.
func NewPolish(r Renderer, botName string) *Polish {
	return &Polish{
		base: newBase("polish", r,
			"context", "jargon", "result", "requester", "personality", "reply_style", keyBotName),
		botName: botName,
	}
}

// Build renders the polish prompt.
func (b *Polish) Build(ctx Context) (string, error) {
	d, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	result, err := d.required("result")
	if err != nil {
		return "", err
	}
	chat, err := d.str("context")
	if err != nil {
		return "", err
	}
	jargon, err := list(d, "jargon", func(j Jargon) string {
		switch {
		case j.Content == "":
			return "content"
		case j.Meaning == "":
			return "meaning"
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
	terms := make([]prompts.Jargon, len(jargon))
	for i, j := range jargon {
		terms[i] = prompts.Jargon{Content: EscapeXML(j.Content), Meaning: EscapeXML(j.Meaning)}
	}
	vars := prompts.PolishVars{
		Context: EscapeXML(chat),
		Jargon:  terms,
		Result:  EscapeXML(result),
		BotName: EscapeXML(bot),
	}
	for key, field := range map[string]**string{"requester": &vars.Requester, "personality": &vars.Personality, "reply_style": &vars.ReplyStyle} {
		s, err := d.str(key)
		if err != nil {
			return "", err
		}
		if s != "" {
			s = EscapeXML(s)
			*field = &s
		}
	}
	return b.rendered(prompts.RenderPolish(b.r, vars))
}
