package main

import (
	"go/token"
	"os"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/gen"
	"github.com/seed-e7d2830f/promptkit/internal/atomicfile"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const genUsage = `Usage: promptkit gen [--dir DIR] [--package NAME] [--out FILE]

Generates the typed Go API of a template set: for each template a struct
of its variables (types from their JSON Schemas; any without one;
optional variables as pointers, optional properties tagged omitzero) and
a function that renders it, so that a misspelled field or a value of the
wrong type does not compile. The set is checked whole first. Writes the
Go file to FILE (through a temporary file renamed over it, so a failed
write leaves the old file whole), or to standard output.

Example:
  promptkit gen --dir ./prompts --package prompts --out prompts/prompts.go
`

func runGen(c *cli, args []string) error {
	fs := c.newFlags("gen", genUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	pkg := fs.String("package", "prompts", "the generated file's package name")
	out := fs.String("out", "", "write the Go file here instead of standard output")
	pos, err := c.parse(fs, genUsage, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("gen takes no arguments\n\n%s", genUsage)
	}
	if !token.IsIdentifier(*pkg) || *pkg == "_" {
		return usagef("--package %q is not a Go package name\n\n%s", *pkg, genUsage)
	}
	set := promptkit.FS()
	if *dir != "" {
		if err := checkSetDir(*dir); err != nil {
			return err
		}
		root, err := os.OpenRoot(*dir)
		if err != nil {
			return err
		}
		defer root.Close()
		set = root.FS()
	}
	src, err := gen.Generate(set, gen.Options{Package: *pkg, Command: genCommand(*dir, *pkg, *out)})
	if err != nil {
		return err // on stderr: stdout is the generated file
	}
	if *out == "" {
		_, err = c.stdout.Write(src)
		return err
	}
	// A full disk or a kill while writing leaves the old file whole.
	return atomicfile.WriteFile(*out, src, 0o644)
}

// genCommand is the command line that regenerates the file, for its
// header.
func genCommand(dir, pkg, out string) string {
	cmd := "promptkit gen"
	if dir != "" {
		cmd += " --dir " + dir
	}
	if pkg != "prompts" {
		cmd += " --package " + pkg
	}
	if out != "" {
		cmd += " --out " + out
	}
	return cmd
}
