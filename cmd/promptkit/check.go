package main

import (
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
	"github.com/seed-e7d2830f/promptkit/manager"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const checkUsage = `Usage: promptkit check [DIR | --dir DIR]

Loads and checks a whole template set and prints every problem, one a
line, as path:line:col: message: index.json against its JSON Schema
(schemas/index.schema.json), every template, and every use of a typed
variable against the variable's schema. Declared variables that a
template never uses are problems here too. Exits 1 if anything is found;
otherwise prints one line with the number of templates and the set's
digest. The set is DIR (the same as --dir DIR), or the embedded set
without either.

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
	bad := checkIndexSchema(c, *dir)
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
	if n > 0 || bad {
		return errReported
	}
	noun := "templates"
	if len(m.Templates()) == 1 {
		noun = "template"
	}
	fmt.Fprintf(c.stdout, "ok: %d %s, digest %s\n", len(m.Templates()), noun, m.Digest())
	return nil
}

// checkIndexSchema prints where the set's index.json breaks the index
// schema, and reports whether it does. An index that cannot be read or
// parsed is left to the manager, which says why.
func checkIndexSchema(c *cli, dir string) bool {
	var data []byte
	var err error
	if dir == "" {
		data, err = fs.ReadFile(promptkit.FS(), manager.IndexFile)
	} else {
		var root *os.Root
		if root, err = os.OpenRoot(dir); err == nil {
			data, err = root.ReadFile(manager.IndexFile)
			root.Close()
		}
	}
	if err != nil {
		return false
	}
	ix, err := schema.CompileIndex(promptkit.IndexSchema())
	if err != nil {
		fmt.Fprintf(c.stdout, "%s: %v\n", promptkit.IndexSchemaPath, err)
		return true
	}
	vs, err := ix.Validate(data)
	if err != nil {
		return false
	}
	for _, v := range vs {
		if v.Path == "" {
			fmt.Fprintf(c.stdout, "%s: %s (%s)\n", manager.IndexFile, v.Msg, promptkit.IndexSchemaPath)
		} else {
			fmt.Fprintf(c.stdout, "%s: %s: %s (%s)\n", manager.IndexFile, v.Path, v.Msg, promptkit.IndexSchemaPath)
		}
	}
	return len(vs) > 0
}
