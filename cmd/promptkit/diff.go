package main

import (
	"fmt"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/setdiff"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const diffUsage = `Usage: promptkit diff A B [--format text|json] [--allow-breaking] [--plain-http] [--tokens ENC]

Compares two versions of a template set, A (before) and B (after): the
templates added, removed and changed, with unified diffs of their files
and of the set's other files; the contract diff — every variable added or
removed, made required or optional, its default or its schema changed —
each change classed breaking or compatible by a named rule; and every
fixture of either set rendered in both, with the diff of its output.

A and B are each a directory; git:REF, the directory you are in as the
git revision REF holds it (git:REF:PATH: PATH from the repository's root),
read with git archive; or a set in an OCI registry, registry/repo:label or
registry/repo@sha256:... (with --plain-http for one without TLS).

Flags:
  --format text|json  how to print the report (default text)
  --allow-breaking    exit 0 even when a change is breaking
  --plain-http        talk HTTP, not HTTPS, to a registry (one on localhost)
  --tokens ENC        count the fixtures' outputs with ENC (an OpenAI encoding or
                      a tokenizer.json) and show each one's token delta

Examples:
  promptkit diff git:HEAD .                  # what the work tree changes
  promptkit diff git:v1.2:prompts prompts
  promptkit diff localhost:5000/prompts:production ./prompts --plain-http

Exit codes: 0 no breaking change (or --allow-breaking), 1 a breaking change
or a set that does not load, 2 bad usage.
`

func runDiff(c *cli, args []string) error {
	fs := c.newFlags("diff", diffUsage)
	format := fs.String("format", "text", "text or json")
	allow := fs.Bool("allow-breaking", false, "exit 0 on breaking changes")
	plain := registryFlags(fs)
	counter := fs.String("tokens", "", "count tokens with ENC")
	pos, err := c.parse(fs, diffUsage, args)
	if err != nil {
		return err
	}
	tok, err := openCounter(*counter)
	if err != nil {
		return err
	}
	var dopts []setdiff.Option
	if tok != nil {
		dopts = append(dopts, setdiff.WithCount(countWith(tok)))
	}
	if len(pos) != 2 {
		return usagef("diff takes two sets, A and B\n\n%s", diffUsage)
	}
	if *format != "text" && *format != "json" {
		return usagef("--format %q: want text or json\n\n%s", *format, diffUsage)
	}
	var sets [2]*setdiff.Set
	for i, name := range pos {
		fsys, release, err := c.openSource(name, *plain)
		if err != nil {
			return err
		}
		defer release()
		s, err := setdiff.Open(name, fsys)
		if err != nil {
			if len(manager.Problems(err)) > 0 {
				fmt.Fprintf(c.stderr, "%s does not load:\n", name)
				printProblems(c.stderr, err)
				return errReported
			}
			return err
		}
		defer s.Close()
		sets[i] = s
	}
	r, err := setdiff.Compare(c.ctx, sets[0], sets[1], dopts...)
	if err != nil {
		return err
	}
	if *format == "json" {
		err = r.WriteJSON(c.stdout)
	} else {
		err = r.WriteText(c.stdout)
	}
	if err != nil {
		return err
	}
	if n := r.Breaking(); n > 0 && !*allow {
		fmt.Fprintf(c.stderr, "promptkit diff: %d breaking %s (--allow-breaking accepts them)\n", n, plural(n, "change", "changes"))
		return errReported
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
