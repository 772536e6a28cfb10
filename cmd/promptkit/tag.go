package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/seed-e7d2830f/promptkit/fleet"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const tagUsage = `Usage: promptkit tag REF LABEL [--force] [--actor NAME] [--plain-http]

Points LABEL, in REF's repository, at the set REF names: promote a tested
set, or roll back by naming an earlier manifest (the digests are in
"promptkit history"). Hosts following the label serve the set at their
next poll. The move is recorded in the label's history, with who made it.

The set must pass its fixtures (as promptkit test runs them), and its
contract must not break the set the label points at now (as promptkit
diff classes changes); otherwise the label stays where it is and the
failures are printed. --force moves it anyway: the history records that
the move was forced, by whom, and what it overrode.

Flags:
  --force        move the label even when a fixture fails or a change breaks
  --actor NAME   who moves the label, for the history (default: $USER)
  --plain-http   talk HTTP, not HTTPS (a registry on localhost)

Examples:
  promptkit tag localhost:5000/prompts:v2 production --plain-http
  promptkit tag localhost:5000/prompts@sha256:3f1a... production --plain-http --force   # roll back past the gate
`

func runTag(c *cli, args []string) error {
	fs := c.newFlags("tag", tagUsage)
	plain := registryFlags(fs)
	force := fs.Bool("force", false, "move the label past the gate")
	actorFlag := fs.String("actor", "", "who moves the label")
	pos, err := c.parse(fs, tagUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("tag takes REF and LABEL\n\n%s", tagUsage)
	}
	ref, label := pos[0], pos[1]
	if strings.ContainsAny(label, "/:@") {
		return usagef("LABEL is a bare label such as production, not a reference: %q\n\n%s", label, tagUsage)
	}
	info, err := newClient(*plain).Tag(c.ctx, ref, label, c.tagOptions(label, *force, actor(*actorFlag))...)
	if errors.Is(err, fleet.ErrGate) {
		return fmt.Errorf("%w\n%s stays where it is; --force moves it anyway, recorded in its history", err, label)
	}
	if err != nil {
		return refError(err, tagUsage)
	}
	return printInfo(c.stdout, labelRef(ref, label), info)
}

// labelRef is ref's repository with label: "reg/prompts@sha256:…" and
// "production" give "reg/prompts:production".
func labelRef(ref, label string) string {
	repo := ref
	if i := strings.LastIndex(repo, "@"); i >= 0 {
		repo = repo[:i]
	}
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	return repo + ":" + label
}
