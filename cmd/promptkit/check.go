package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
	"github.com/seed-e7d2830f/promptkit/manager"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const checkUsage = `Usage: promptkit check [--strict] [--tokens ENC] [DIR | --dir DIR]

Loads and checks a whole template set and prints every problem, one a
line, as path:line:col: message: index.json against its JSON Schema
(schemas/index.schema.json), every template, and every use of a typed
variable against the variable's schema. Declared variables that a
template never uses are problems here too. Exits 1 if anything is found;
otherwise prints, for each template whose entry declares a call
contract, what it declares (model, tools, output schema, cache: each one
checked, the cache breakpoint proven to end a prefix that is the same for
every render), then one line with the number of templates and the set's
digest. The set is DIR (the same as --dir DIR), or the embedded set
without either.

A template file that is empty or holds only whitespace renders nothing
whatever it is given; check prints a warning line for it and still exits
0, or 1 with --strict.

--tokens ENC also prints, for each template of a set that checks, the
tokens of its fixed text (its literal text outside tags, each piece once)
and of the part every render prints, counted with an encoding
(o200k_base, cl100k_base, p50k_base, r50k_base) or a model's
tokenizer.json.

Flags:
  --dir DIR   template set directory (default: the embedded set)
  --strict    warnings fail the check too (exit 1)
  --tokens ENC  print each template's fixed-text tokens

Example:
  promptkit check ./prompts
`

func runCheck(c *cli, args []string) error {
	fs := c.newFlags("check", checkUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	strict := fs.Bool("strict", false, "warnings fail the check too (exit 1)")
	counter := tokensFlag(fs)
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
	if *dir != "" {
		if err := checkSetDir(*dir); err != nil {
			return err // no set to report on: an error, on stderr
		}
	}
	tok, err := openCounter(*counter)
	if err != nil {
		return err
	}
	bad := checkIndexSchema(c, *dir)
	m, err := openSet(*dir)
	if _, noDir := errors.AsType[*setDirError](err); noDir {
		return err // no set to report on: an error, on stderr
	}
	if err != nil {
		printProblems(c.stdout, err) // the report of the set's problems is check's output
		if le, ok := errors.AsType[*manager.LoadError](err); ok {
			for _, u := range le.Unused {
				fmt.Fprintln(c.stdout, u)
			}
		}
		return errReported
	}
	defer m.Close()
	unused := m.UnusedDeclarations()
	for _, u := range unused {
		fmt.Fprintln(c.stdout, u)
	}
	if len(unused) > 0 || bad {
		return errReported
	}
	warnings := blankTemplates(*dir, m.Templates())
	for _, w := range warnings {
		fmt.Fprintln(c.stdout, w)
	}
	if *strict && len(warnings) > 0 {
		return errReported
	}
	if tok != nil {
		if err := printFixedText(c.stdout, *dir, m, tok); err != nil {
			return err
		}
	}
	for _, t := range m.Templates() {
		if summary := contractSummary(t.Contract); summary != "" {
			fmt.Fprintf(c.stdout, "%s: template %q: contract: %s\n", t.Path, t.Name, summary)
		}
	}
	noun := "templates"
	if len(m.Templates()) == 1 {
		noun = "template"
	}
	fmt.Fprintf(c.stdout, "ok: %d %s, digest %s\n", len(m.Templates()), noun, m.Digest())
	return nil
}

// blankTemplates warns of template files that are empty or only
// whitespace: they load and render, but to nothing, which is rarely what
// the author meant (a file saved before it was written, a wrong path).
func blankTemplates(dir string, ts []manager.Template) []string {
	fsys := promptkit.FS()
	if dir != "" {
		fsys = os.DirFS(dir)
	}
	var out []string
	for _, t := range ts {
		b, err := fs.ReadFile(fsys, t.Path)
		if err != nil {
			continue // the manager read it a moment ago; a file that went away since is the next check's news
		}
		switch {
		case len(b) == 0:
			out = append(out, fmt.Sprintf("%s: template %q: warning: the file is empty", t.Path, t.Name))
		case len(bytes.TrimSpace(b)) == 0:
			out = append(out, fmt.Sprintf("%s: template %q: warning: the file holds only whitespace", t.Path, t.Name))
		}
	}
	return out
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
			// Only a regular file of a sane size: a FIFO would block the
			// read, and the manager reports either kind of file below.
			if fi, serr := root.Stat(manager.IndexFile); serr != nil || !fi.Mode().IsRegular() || fi.Size() > manager.DefaultMaxFileBytes {
				root.Close()
				return false
			}
			data, err = root.ReadFile(manager.IndexFile)
			root.Close()
		}
	}
	if err != nil {
		return false
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // skipped by the manager too
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
