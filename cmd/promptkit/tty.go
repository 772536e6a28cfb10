package main

import (
	"io"
	"os"
	"strings"
)

// isTerminal reports whether w is a terminal (isTerminalFile, per
// platform), so a prompt printed there can end with a newline.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminalFile(f)
}

// writePrompt prints a prompt exactly. On a terminal, a prompt that does
// not end with a newline gets one, so the shell's prompt does not start
// glued to its last line; piped or redirected, nothing is added.
func (c *cli) writePrompt(out string) error {
	if isTerminal(c.stdout) && out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	_, err := io.WriteString(c.stdout, out)
	return err
}
