package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/manager"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const renderUsage = `Usage: promptkit render NAME [--messages] [--var KEY=VALUE]... [--vars FILE|-] [--dir DIR] [--tokens ENC]

Renders template NAME and prints the result exactly. On a terminal, a
result that does not end with a newline gets one, so the shell prompt
starts on a line of its own; piped or redirected, nothing is added.
--vars reads a JSON object (lists and objects feed loops; numbers keep
their form; objects keep the order of their keys, as Python's json.loads
does); --var KEY=VALUE sets one string variable, --var KEY:=JSON one JSON
value, and --var wins over --vars.
--messages renders into chat messages ({% chat %} blocks; a template
without them is one user message) and prints them as a JSON array:
[{"role": "system", "content": "…"}, …]. A chat template needs it: it
renders to messages, not to one text. --tokens ENC counts the result's
tokens with an encoding (o200k_base, cl100k_base, p50k_base, r50k_base)
or a model's tokenizer.json and prints the count on stderr (with
--messages: each message's text, without a chat format's own tokens);
stdout is unchanged.

Example:
  promptkit render agent_system --var title=周报 --var intent="整理本周进展" --var bot_name=麦麦
  promptkit render --messages qa_chat --vars vars.json
  promptkit render title --var intent="查询明天的天气" --tokens o200k_base
`

func runRender(c *cli, args []string) error {
	fs := c.newFlags("render", renderUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	varsFile := fs.String("vars", "", "JSON object of variables, or - for stdin")
	messages := fs.Bool("messages", false, "print chat messages as JSON")
	counter := tokensFlag(fs)
	var pairs varFlags
	fs.Var(&pairs, "var", "KEY=VALUE, a string, or KEY:=JSON (repeatable)")
	pos, err := c.parse(fs, renderUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("render takes exactly one template name\n\n%s", renderUsage)
	}
	vars, err := parseVars(*varsFile, pairs, c.stdin)
	if err != nil {
		return err
	}
	tok, err := openCounter(*counter)
	if err != nil {
		return err
	}
	m, err := openSet(*dir)
	if err != nil {
		return err
	}
	defer m.Close()
	if *messages {
		msgs, err := m.RenderMessagesContext(c.ctx, pos[0], vars)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(c.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(msgs); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		if tok != nil {
			printMessagesCount(c.stderr, tok, msgs)
		}
		return nil
	}
	out, err := m.RenderContext(c.ctx, pos[0], vars)
	if errors.Is(err, manager.ErrChatTemplate) {
		where := ""
		if me := (*manager.Error)(nil); errors.As(err, &me) && me.Path != "" {
			where = me.Path + ": "
		}
		return fmt.Errorf("%stemplate %q is a chat template: it renders to messages, not text; use --messages to print them as JSON", where, pos[0])
	}
	if err != nil {
		return err
	}
	if err := c.writePrompt(out); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if tok != nil {
		printCount(c.stderr, tok, out)
	}
	return nil
}
