package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

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
template never uses are problems here too, and so is every place a
template reads an optional variable without a default where no guard
covers it (is defined, default(…), {% if x is defined %}): a render
that does not pass it would fail. Exits 1 if anything is found;
otherwise prints, for each template whose entry declares a call
contract, what it declares (model, tools, output schema, cache: each one
checked, the cache breakpoint proven to end a prefix that is the same for
every render), then one line with the number of templates and the set's
digest. The set is DIR (the same as --dir DIR), or the embedded set
without either.

An entry that declares a token budget ("budget": {"tokens": N,
"encoding": "o200k_base"}) is proved to fit it on every render after
every cut its marks allow, its typed variables bounded by their schemas
(maxLength, maxItems, enums): a template whose worst case may exceed it
is a problem naming the variables that can overflow it, and so is one
whose worst case nothing bounds, naming what leaves it unbounded.

A template file that is empty or holds only whitespace renders nothing
whatever it is given, and a .md file beside the set's templates that no
entry uses and no template includes, imports or extends is likely a
leftover or a wrong path; check prints a warning line for each and still
exits 0, or 1 with --strict.

--tokens ENC also prints, for each template of a set that checks, the
tokens of its fixed text (its literal text outside tags, each piece once)
and of the part every render prints, counted with an encoding
(o200k_base, cl100k_base, p50k_base, r50k_base) or a model's
tokenizer.json; and the most any render can print after every allowed
cut, where the schemas of its typed variables bound it (in tokens of an
OpenAI encoding, where a token is at least one byte; in bytes otherwise),
or what leaves it unbounded.

Flags:
  --dir DIR   template set directory (default: the embedded set)
  --strict    warnings fail the check too (exit 1)
  --tokens ENC  print each template's fixed-text tokens and the most a render prints

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
	violations := checkIndexSchema(c, *dir)
	var opts []manager.Option
	if tok != nil {
		opts = append(opts, manager.WithWorstCase())
	}
	m, err := openSet(*dir, opts...)
	if _, noDir := errors.AsType[*setDirError](err); noDir {
		return err // no set to report on: an error, on stderr
	}
	if err != nil {
		// The index's mistakes are said once, in promptkit's words: the
		// schema's lines only for what the manager did not report.
		if !hasIndexProblem(err) {
			printLines(c.stdout, violations)
		}
		printProblems(c.stdout, err)
		if le, ok := errors.AsType[*manager.LoadError](err); ok {
			for _, u := range le.Unused {
				fmt.Fprintln(c.stdout, u)
			}
		}
		return errReported
	}
	defer m.Close()
	printLines(c.stdout, violations)
	unused := m.UnusedDeclarations()
	for _, u := range unused {
		fmt.Fprintln(c.stdout, u)
	}
	unguarded := m.UnguardedReads()
	for _, u := range unguarded {
		fmt.Fprintln(c.stdout, u)
	}
	if len(unused) > 0 || len(violations) > 0 || len(unguarded) > 0 {
		return errReported
	}
	warnings := blankTemplates(*dir, m.Templates())
	warnings = append(warnings, strayFiles(*dir, m.Files())...)
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

// hasIndexProblem reports whether a load error says what is wrong with
// index.json itself.
func hasIndexProblem(err error) bool {
	for _, p := range manager.Problems(err) {
		if errors.Is(p, manager.ErrIndex) || (p.Path == manager.IndexFile && errors.Is(p, manager.ErrSandbox)) {
			return true
		}
	}
	return false
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// strayFiles warns of .md files under the directories of the set's
// templates that the set does not use: no entry's path, and no file a
// template includes, imports or extends. used are the set's files.
func strayFiles(dir string, used []string) []string {
	fsys := promptkit.FS()
	if dir != "" {
		fsys = os.DirFS(dir)
	}
	// The directories that hold the set's templates, at their top: a
	// template at the root makes it the whole root.
	var tops []string
	for _, p := range used {
		if path.Ext(p) != ".md" {
			continue
		}
		top, _, ok := strings.Cut(p, "/")
		if !ok {
			top = "."
		}
		if !slices.Contains(tops, top) {
			tops = append(tops, top)
		}
	}
	slices.Sort(tops)
	var out []string
	for _, top := range tops {
		_ = fs.WalkDir(fsys, top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || path.Ext(p) != ".md" || slices.Contains(used, p) {
				return nil
			}
			out = append(out, fmt.Sprintf("%s: warning: no template uses this file (no entry of index.json names it, and no template includes, imports or extends it)", p))
			return nil
		})
	}
	return out
}

// checkIndexSchema returns where the set's index.json breaks the index
// schema, one line each. An index that cannot be read or parsed is left
// to the manager, which says why.
func checkIndexSchema(c *cli, dir string) []string {
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
				return nil
			}
			data, err = root.ReadFile(manager.IndexFile)
			root.Close()
		}
	}
	if err != nil {
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // skipped by the manager too
	ix, err := schema.CompileIndex(promptkit.IndexSchema())
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", promptkit.IndexSchemaPath, err)}
	}
	vs, err := ix.Validate(data)
	if err != nil {
		return nil
	}
	var out []string
	for _, v := range vs {
		if v.Path == "" {
			out = append(out, fmt.Sprintf("%s: %s (%s)", manager.IndexFile, v.Msg, promptkit.IndexSchemaPath))
		} else {
			out = append(out, fmt.Sprintf("%s: %s: %s (%s)", manager.IndexFile, v.Path, v.Msg, promptkit.IndexSchemaPath))
		}
	}
	return out
}
