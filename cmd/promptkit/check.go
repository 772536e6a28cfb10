package main

import (
	"fmt"
	"strings"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const checkUsage = `Usage: promptkit check [--dir DIR]

Loads and checks a whole template set and prints every problem, one a
line, as path:line:col: message. Declared variables that a template never
uses are problems here too. Exits 1 if anything is found; otherwise prints
one line with the number of templates and the set's digest.

Example:
  promptkit check --dir ./prompts
`

func runCheck(c *cli, args []string) error {
	fs := c.newFlags("check", checkUsage)
	dir := fs.String("dir", "", "template set directory (default: the embedded set)")
	pos, err := c.parse(fs, checkUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("check takes no arguments\n\n%s", checkUsage)
	}
	m, err := openSet(*dir)
	if err != nil {
		printProblems(c.stdout, err)
		return errReported
	}
	defer m.Close()
	n := 0
	for _, t := range m.Templates() {
		if u := m.Unused()[t.Name]; len(u) > 0 {
			n++
			fmt.Fprintf(c.stdout, "%s: template %q: declared variables never used: %s\n", t.Path, t.Name, strings.Join(u, ", "))
		}
	}
	if n > 0 {
		return errReported
	}
	noun := "templates"
	if len(m.Templates()) == 1 {
		noun = "template"
	}
	fmt.Fprintf(c.stdout, "ok: %d %s, digest %s\n", len(m.Templates()), noun, m.Digest())
	return nil
}
