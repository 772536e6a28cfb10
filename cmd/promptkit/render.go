package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/seed-e7d2830f/promptkit/manager"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const renderUsage = `Usage: promptkit render NAME [--messages] [--var KEY=VALUE]... [--vars FILE|-] [--dir DIR] [--tokens ENC] [--budget N]

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
--budget N renders within N tokens, counted with --tokens' tokenizer or,
without it, the encoding of the model the template's call contract
names: what the template marks ({% shrink priority=N %} blocks, loops
marked shrink, {% chat … priority=N %} messages) is cut, lowest priority
first, until the render fits. stdout is the prompt that fits; stderr
says each cut ("cut FILE:LINE:COL: …") and the count. A render that
cannot fit, even with every cut, exits 1 saying by how many tokens.

Example:
  promptkit render agent_system --var title=周报 --var intent="整理本周进展" --var bot_name=麦麦
  promptkit render --messages qa_chat --vars vars.json
  promptkit render title --var intent="查询明天的天气" --tokens o200k_base
  promptkit render research --vars vars.json --budget 80 --tokens o200k_base
`

func runRender(c *cli, args []string) error {
	fs := c.newFlags("render", renderUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	varsFile := fs.String("vars", "", "JSON object of variables, or - for stdin")
	messages := fs.Bool("messages", false, "print chat messages as JSON")
	counter := tokensFlag(fs)
	budget := fs.Int("budget", 0, "render within N tokens, cutting what the template marks (counted with --tokens, or the contract model's encoding)")
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
	if *budget < 0 {
		return usagef("--budget %d: want a number of tokens, 1 or more", *budget)
	}
	m, err := openSet(*dir)
	if err != nil {
		return err
	}
	defer m.Close()
	if *budget > 0 {
		return c.renderBudget(m, pos[0], vars, *messages, manager.Budget{Tokens: *budget, Tokenizer: tok})
	}
	if *messages {
		msgs, err := m.RenderMessagesContext(c.ctx, pos[0], vars)
		if err != nil {
			return err
		}
		if err := c.writeMessages(msgs); err != nil {
			return err
		}
		if tok != nil {
			printMessagesCount(c.stderr, tok, msgs)
		}
		return nil
	}
	out, err := m.RenderContext(c.ctx, pos[0], vars)
	if err != nil {
		return chatTemplateHint(err, pos[0])
	}
	if err := c.writePrompt(out); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if tok != nil {
		printCount(c.stderr, tok, out)
	}
	return nil
}

// chatTemplateHint says what to do for a chat template rendered to text;
// other errors pass.
func chatTemplateHint(err error, name string) error {
	if !errors.Is(err, manager.ErrChatTemplate) {
		return err
	}
	where := ""
	if me := (*manager.Error)(nil); errors.As(err, &me) && me.Path != "" {
		where = me.Path + ": "
	}
	return fmt.Errorf("%stemplate %q is a chat template: it renders to messages, not text; use --messages to print them as JSON", where, name)
}

// writeMessages prints messages as render --messages does: a JSON array.
func (c *cli) writeMessages(msgs []manager.Message) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(msgs); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// renderBudget is render --budget: the prompt (or messages) that fits on
// stdout, each cut and the count on stderr.
func (c *cli) renderBudget(m *manager.Manager, name string, vars map[string]any, messages bool, b manager.Budget) error {
	if messages {
		r, err := m.RenderMessagesBudget(c.ctx, name, vars, b)
		if err != nil {
			return err
		}
		if err := c.writeMessages(r.Messages); err != nil {
			return err
		}
		printCuts(c.stderr, r)
		fmt.Fprintf(c.stderr, "%d tokens (%s) in the messages' text, within the budget of %d; without the tokens a model's chat format adds\n", r.Tokens, r.Tokenizer, r.Budget)
		return nil
	}
	r, err := m.RenderBudget(c.ctx, name, vars, b)
	if err != nil {
		return chatTemplateHint(err, name)
	}
	if err := c.writePrompt(r.Text); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	printCuts(c.stderr, r)
	fmt.Fprintf(c.stderr, "%d tokens (%s), within the budget of %d, %d bytes\n", r.Tokens, r.Tokenizer, r.Budget, len(r.Text))
	return nil
}

// printCuts writes what a budgeted render cut, one a line, in order.
func printCuts(w io.Writer, r *manager.Budgeted) {
	for _, cut := range r.Cuts {
		fmt.Fprintf(w, "cut %s\n", cut)
	}
}
