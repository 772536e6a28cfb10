package main

import (
	"fmt"
	"io"
	"os"

	"github.com/seed-e7d2830f/promptkit/contextstack"
)

//promptkit:allow-inline CLI help text for people, not a prompt
const lintToolsUsage = `Usage: promptkit lint-tools FILE.json

Checks the descriptions in a JSON list of tool specs (objects with name,
type, description and input_schema; FILE may be - for stdin). A
description says when and why to use the tool, what it returns and how it
fails; it does not list the schema's parameters, carry a parameters
section, or describe the implementation (the API it calls, the table it
reads). Prints every problem, one a line, as FILE: tool "NAME": message,
and exits 1 if anything is found.

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
		return err
	}
	tools, err := contextstack.DecodeToolSpecs(data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
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
