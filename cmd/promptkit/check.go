package main

import (
	"fmt"
	"strings"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const checkUsage = `Usage: promptkit check [DIR | --dir DIR]

Loads and checks a whole template set and prints every problem, one a
line, as path:line:col: message. Declared variables that a template never
uses are problems here too. Exits 1 if anything is found; otherwise prints
one line with the number of templates and the set's digest. The set is DIR
(the same as --dir DIR), or the embedded set without either.

Example:
  promptkit check ./prompts
`

func runCheck(c *cli, args []string) error {
	fs := c.newFlags("check", checkUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	pos, err := c.parse(fs, checkUsage, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return usagef("check takes one directory\n\n%s", checkUsage)
	case len(pos) == 1 && *dir != "":
		return usagef("check takes the directory once: DIR or --dir DIR\n\n%s", checkUsage)
	case len(pos) == 1:
		*dir = pos[0]
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
