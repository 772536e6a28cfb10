package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

//promptkit:allow-inline CLI help text, not a prompt
const buildersUsage = `Usage: promptkit builders [--dir DIR]

Lists the builders that "promptkit build" and a plugin host's service
know: name, the template each renders, and the data keys each reads.

Example:
  promptkit builders
`

func runBuilders(c *cli, args []string) error {
	fs := c.newFlags("builders", buildersUsage)
	dir := fs.String("dir", "", "template set directory (default: the embedded set)")
	pos, err := c.parse(fs, buildersUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("builders takes no arguments\n\n%s", buildersUsage)
	}
	m, err := openSet(*dir)
	if err != nil {
		printProblems(c.stderr, err)
		return errReported
	}
	defer m.Close()
	svc, err := newService(m)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, b := range svc.Builders() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Name, b.Template, strings.Join(b.Keys, " "))
	}
	return tw.Flush()
}
