package main

import (
	"fmt"
	"io"
	"os"

	"github.com/seed-e7d2830f/promptkit/contextstack"
)

//promptkit:allow-inline CLI help text for people, not a prompt
const lintToolsUsage = `Usage: promptkit lint-tools FILE.json

Checks the descriptions of the tools in FILE (- for stdin): a JSON list of
tools, or an object with the list under "tools", each tool in one of the
forms models are given:

  {"name", "description", "input_schema"}                  (Anthropic)
  {"name", "description", "parameters"}                    (bare; MCP's inputSchema too)
  {"type": "function", "function": {"name", "description", "parameters"}}   (OpenAI)

A description says when and why to use the tool, what it returns and how
it fails; it does not list the schema's parameters, carry a parameters
section, or describe the implementation (the API it calls, the table it
reads). Prints every problem, one a line, as FILE: tool "NAME": message,
and exits 1 if anything is found; a file that cannot be read, is not JSON
or holds no tools is bad usage (exit 2), as for render --vars.

Example:
  promptkit lint-tools tools.json
`

func runLintTools(c *cli, args []string) error {
	fs := c.newFlags("lint-tools", lintToolsUsage)
	pos, err := c.parse(fs, lintToolsUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("lint-tools takes exactly one FILE.json\n\n%s", lintToolsUsage)
	}
	file := pos[0]
	var data []byte
	if file == "-" {
		data, err = io.ReadAll(c.stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return usagef("%v", err)
	}
	tools, err := contextstack.DecodeToolSpecs(data)
	if err != nil {
		return usagef("%s: %v", file, err)
	}
	if len(tools) == 0 {
		return usagef("%s: holds no tools (want a JSON list of tools, or an object with the list under \"tools\")", file)
	}
	problems, err := contextstack.LintTools(tools)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(c.stdout, "%s: %s\n", file, p)
	}
	if len(problems) > 0 {
		return errReported
	}
	return nil
}
