package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/seed-e7d2830f/promptkit/manager"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const requestUsage = `Usage: promptkit request NAME [--var KEY=VALUE | --var KEY:=JSON]... [--vars FILE|-] [--dir DIR] [--tokens ENC]

Renders template NAME into the request its call contract in index.json
declares, provider-neutral, and prints it as JSON: the messages (one per
chat block; a template without chat blocks is one user message), the
model settings, the tools, the output schema the answer must match, and
the cache mark on the message that ends the cacheable prefix:

  {"model": {…}, "messages": […], "tools": […], "output": {"name", "schema", "strict"}}

Variables are read as render reads them. The request of a provider's API
is made from this JSON by the providers module's command (this command
does not link the providers' SDKs):

  promptkit request weather --var city=北京 | promptkit-providers convert --provider openai

--tokens ENC prints the count of the messages' text on stderr.

Example:
  promptkit request weather --dir prompts --var city=北京
`

func runRequest(c *cli, args []string) error {
	fs := c.newFlags("request", requestUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	varsFile := fs.String("vars", "", "JSON object of variables, or - for stdin")
	counter := tokensFlag(fs)
	var pairs varFlags
	fs.Var(&pairs, "var", "KEY=VALUE, a string, or KEY:=JSON (repeatable)")
	pos, err := c.parse(fs, requestUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("request takes exactly one template name\n\n%s", requestUsage)
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
	req, err := m.Request(c.ctx, pos[0], vars)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(req); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if tok != nil {
		printMessagesCount(c.stderr, tok, req.Messages)
	}
	return nil
}

// contractSummary is one line of what a template's call contract
// declares, for list and check; "" when it declares nothing.
func contractSummary(c manager.Contract) string {
	var parts []string
	if !c.Model.IsZero() {
		model := "model"
		if c.Model.Name != "" {
			model += " " + c.Model.Name
		}
		parts = append(parts, model)
	}
	if len(c.Tools) > 0 {
		names := make([]string, len(c.Tools))
		for i, t := range c.Tools {
			names[i] = t.Name
		}
		parts = append(parts, "tools "+strings.Join(names, ","))
	}
	if c.Output != nil {
		out := "output " + c.Output.Name
		if c.Output.Strict {
			out += " (strict)"
		}
		parts = append(parts, out)
	}
	if c.Cache != nil {
		parts = append(parts, fmt.Sprintf("cache after message %d", c.Cache.Message))
	}
	return strings.Join(parts, "; ")
}
