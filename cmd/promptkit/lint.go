package main

import (
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/lint"
)

//promptkit:allow-inline CLI help text, not a prompt
const lintUsage = `Usage: promptkit lint [PACKAGES or DIRS]...

Finds prompts written inline in Go source, which belong in template files:
string literals in non-test code that hold template syntax ({{, {%), CJK
wording, or several lines of prose. Prints each as file:line:col: message
and exits 1 if any. A pattern is a directory, DIR/... (recursive; testdata,
vendor and hidden directories are skipped), a .go file, or an import path
of the main module; the default is ./... . A justified exception is marked
on the line above with //promptkit:allow-inline <reason>.

Example:
  promptkit lint ./...
`

func runLint(c *cli, args []string) error {
	fs := c.newFlags("lint", lintUsage)
	pos, err := c.parse(fs, lintUsage, args)
	if err != nil {
		return err
	}
	findings, err := lint.Paths(pos...)
	if errors.Is(err, lint.ErrPattern) {
		return usagef("%v\n\n%s", err, lintUsage)
	}
	for _, f := range findings {
		fmt.Fprintln(c.stdout, f)
	}
	if err != nil {
		return err // files that do not parse
	}
	if len(findings) > 0 {
		return errReported
	}
	return nil
}
