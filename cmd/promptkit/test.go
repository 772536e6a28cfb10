package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/internal/atomicfile"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const testUsage = `Usage: promptkit test [TARGET]... [--dir DIR] [--update] [--junit FILE] [--verbose] [--tokens ENC]

Runs the fixtures of a template set: the sample inputs in fixtures/*.json
beside index.json, each rendered through its template, builder or
model chat template and checked against what it expects (a golden file,
texts it contains or not, regular expressions, an error of a kind). Every
failure is printed with, for a golden file, the unified diff of the
golden and the output. TARGET names a template, a builder or a chat
template (its path), or a fixture (FILE/NAME); without one, every fixture
runs. The set must load first, as promptkit check loads it.

--update rewrites the golden files of fixtures whose output differs from
theirs, or whose golden file does not exist yet: review them with git
diff. Each file is replaced atomically.

Flags:
  --dir DIR     template set directory (default: the embedded set)
  --update      write the golden files from the current outputs (needs --dir)
  --junit FILE  also write the results as JUnit XML to FILE, for CI
  --verbose     list the fixtures that passed too
  --tokens ENC  count each output's tokens with ENC (an OpenAI encoding such
                as o200k_base, or a model's tokenizer.json) and check the
                fixtures' token bounds; without it they are not checked

Example:
  promptkit test --dir ./prompts
  promptkit test title --dir ./prompts --update
  promptkit test --dir ./prompts --junit fixtures.xml

Exit codes: 0 every fixture passed, 1 a fixture failed (or the set or a
fixture file has problems), 2 bad usage.
`

func runTest(c *cli, args []string) error {
	fs := c.newFlags("test", testUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	update := fs.Bool("update", false, "write the golden files")
	junit := fs.String("junit", "", "write JUnit XML to FILE")
	verbose := fs.Bool("verbose", false, "list passing fixtures too")
	counter := fs.String("tokens", "", "count tokens with ENC")
	targets, err := c.parse(fs, testUsage, args)
	if err != nil {
		return err
	}
	tok, err := openCounter(*counter)
	if err != nil {
		return err
	}
	if *update && *dir == "" {
		return usagef("--update writes golden files into the set's directory: give it with --dir DIR\n\n%s", testUsage)
	}
	writeJUnit := func(r *fixture.Report, loadErr error) error {
		if *junit == "" {
			return nil
		}
		var b bytes.Buffer
		var err error
		if r != nil {
			err = r.WriteJUnit(&b, time.Now())
		} else {
			err = fixture.WriteJUnitError(&b, time.Now(), loadErr)
		}
		if err == nil {
			err = atomicfile.WriteFile(*junit, b.Bytes(), 0o644)
		}
		if err != nil {
			return usagef("--junit %s: %v", *junit, err)
		}
		return nil
	}

	m, err := openSet(*dir)
	if err != nil {
		printProblems(c.stderr, err)
		fmt.Fprintln(c.stderr, "promptkit test: the set does not load; no fixture ran")
		return errors.Join(writeJUnit(nil, err), errReported)
	}
	defer m.Close()
	fsys := promptkit.FS()
	var root *os.Root
	if *dir != "" {
		if root, err = os.OpenRoot(*dir); err != nil {
			return usagef("--dir: %v", err)
		}
		defer root.Close()
		fsys = root.FS()
	}
	suite, err := fixture.Load(fsys)
	if err != nil {
		printFixtureProblems(c, err)
		fmt.Fprintln(c.stderr, "promptkit test: the fixture files have problems; no fixture ran")
		return errors.Join(writeJUnit(nil, err), errReported)
	}
	selected, err := suite.Select(targets...)
	if err != nil {
		return usagef("%v\n\n%s", err, testUsage)
	}
	if len(selected) == 0 {
		fmt.Fprintf(c.stdout, "fixtures: none in %s/ (see promptkit help test)\n", fixture.Dir)
		return writeJUnit(&fixture.Report{}, nil)
	}
	var ropts []fixture.Option
	if tok != nil {
		ropts = append(ropts, fixture.WithCount(countWith(tok)))
	}
	runner, err := fixture.NewRunner(m, suite, ropts...)
	if err != nil {
		return err
	}
	report := runner.RunAll(c.ctx, selected)
	if err := c.ctx.Err(); err != nil {
		return err
	}
	if *update {
		written, err := report.Update(root)
		for _, p := range written {
			fmt.Fprintf(c.stdout, "updated %s\n", p)
		}
		if err != nil {
			return fmt.Errorf("--update: %w", err)
		}
	}
	if err := report.WriteText(c.stdout, *verbose); err != nil {
		return err
	}
	if err := writeJUnit(report, nil); err != nil {
		return err
	}
	if report.Failed() > 0 {
		return errReported
	}
	return nil
}

// printFixtureProblems prints every problem of the fixture files, one a
// line, as path:line:col: message.
func printFixtureProblems(c *cli, err error) {
	if le, ok := errors.AsType[*fixture.LoadError](err); ok {
		for _, p := range le.Problems {
			fmt.Fprintln(c.stderr, p)
		}
		return
	}
	fmt.Fprintln(c.stderr, err)
}
