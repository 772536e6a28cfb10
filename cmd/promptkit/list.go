package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const listUsage = `Usage: promptkit list [--dir DIR]

Lists the templates of a set: the set's digest first (what hosts report
and registries carry, see promptkit push), then one line per template:
name, path, the first 12 hex digits of its hash, its variables
(optional ones with "?", defaults after "=") and, in brackets, the call
contract its entry declares (model, tools, output schema, cache).

Example:
  promptkit list --dir ./prompts
`

func runList(c *cli, args []string) error {
	fs := c.newFlags("list", listUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	pos, err := c.parse(fs, listUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("list takes no arguments\n\n%s", listUsage)
	}
	m, err := openSet(*dir)
	if err != nil {
		return err
	}
	defer m.Close()
	fmt.Fprintf(c.stdout, "digest %s\n", m.Digest())
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, t := range m.Templates() {
		vars := make([]string, len(t.Variables))
		for i, v := range t.Variables {
			s := v.Name
			if !v.Required {
				s += "?"
			}
			if v.HasDefault {
				s += fmt.Sprintf("=%v", v.Default)
			}
			vars[i] = s
		}
		line := strings.Join(vars, " ")
		if c := contractSummary(t.Contract); c != "" {
			line += "  [" + c + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Path, t.Hash[:min(12, len(t.Hash))], line)
	}
	return tw.Flush()
}
