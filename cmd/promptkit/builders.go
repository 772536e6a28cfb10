package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

//promptkit:allow-inline CLI help text, not a prompt
const buildersUsage = `Usage: promptkit builders [--dir DIR]

Lists the default builders that the template set serves — those whose
templates it has (service.DefaultBuilders: the seven scene builders and
rag_answer) — with the template each renders and the data keys each reads.
"promptkit build" serves the same builders. The builders of a program of
your own are served by that program (service.WithBuilders), not here.

Example:
  promptkit builders
`

func runBuilders(c *cli, args []string) error {
	fs := c.newFlags("builders", buildersUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	pos, err := c.parse(fs, buildersUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("builders takes no arguments\n\n%s", buildersUsage)
	}
	m, err := openSet(*dir)
	if err != nil {
		return err
	}
	defer m.Close()
	set, err := setBuilders(m, "", "")
	if err != nil {
		return err
	}
	if line := set.unserved(); line != "" {
		fmt.Fprintf(c.stderr, "promptkit builders: %s\n", line)
	}
	if set.svc == nil {
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, b := range set.svc.Builders() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Name, b.Template, strings.Join(b.Keys, " "))
	}
	return tw.Flush()
}
