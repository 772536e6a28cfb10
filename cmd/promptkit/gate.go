package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"

	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/setdiff"
)

// promotionGate is promptkit tag's gate: the candidate's fixtures must
// pass, and its contract must not break the set the label points at now.
// What fails is printed to stderr, as promptkit test and promptkit diff
// print it.
func (c *cli) promotionGate(label string) fleet.Gate {
	return func(ctx context.Context, candidate, current *fleet.Set) error {
		var refusals []string
		m, err := manager.New(candidate.FS())
		if err != nil {
			return err
		}
		defer m.Close()
		suite, err := fixture.Load(candidate.FS())
		if err != nil {
			return fmt.Errorf("the set's fixture files have problems: %w", err)
		}
		report, err := fixture.Run(ctx, m, suite)
		if err != nil {
			return err
		}
		if n := report.Failed(); n > 0 {
			fmt.Fprintf(c.stderr, "the set's fixtures:\n")
			report.WriteText(c.stderr, false)
			var ids []string
			for _, r := range report.Results {
				if !r.Passed() {
					ids = append(ids, r.Fixture.ID())
				}
			}
			refusals = append(refusals, fmt.Sprintf("%d %s %s (%s)", n, plural(n, "fixture", "fixtures"), plural(n, "fails", "fail"), strings.Join(ids, ", ")))
		}
		if current != nil {
			r, err := compareSets(ctx, current, candidate, label)
			if err != nil {
				return err
			}
			if n := r.Breaking(); n > 0 {
				var which []string
				fmt.Fprintf(c.stderr, "breaking changes against the set %s points at now:\n", label)
				for _, ch := range r.Changes {
					if ch.Class == setdiff.Breaking {
						fmt.Fprintf(c.stderr, "  %s\n", ch)
						which = append(which, ch.Rule+" "+strings.TrimSuffix(ch.Template+": "+ch.Path, ": "))
					}
				}
				refusals = append(refusals, fmt.Sprintf("%d breaking %s against the set %s points at now (%s)",
					n, plural(n, "change", "changes"), label, strings.Join(which, ", ")))
			}
		}
		if len(refusals) > 0 {
			return errors.New(strings.Join(refusals, "; "))
		}
		return nil
	}
}

// compareSets diffs the set a label points at now with a candidate.
func compareSets(ctx context.Context, current, candidate *fleet.Set, label string) (*setdiff.Report, error) {
	a, err := setdiff.Open(label+" now", current.FS())
	if err != nil {
		return nil, err
	}
	defer a.Close()
	b, err := setdiff.Open("candidate", candidate.FS())
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return setdiff.Compare(ctx, a, b)
}

// actor is who runs the command, for the history: --actor, else $USER,
// else the account's name.
func actor(flag string) string {
	if flag != "" {
		return flag
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// tagOptions are the options of promptkit tag's move: the gate, the
// actor, and --force, which says what it overrides.
func (c *cli) tagOptions(label string, force bool, who string) []fleet.TagOption {
	opts := []fleet.TagOption{fleet.WithGate(c.promotionGate(label)), fleet.WithActor(who)}
	if force {
		if who == "" {
			who = "an unknown user"
		}
		opts = append(opts, fleet.WithForce(func(refusal error) {
			fmt.Fprintf(c.stderr, "promptkit tag: forced past the gate (%v); the history records it, by %s\n", refusal, who)
		}))
	}
	return opts
}
