// Package settest runs a template set's fixtures inside go test: one
// subtest per fixture (t.Run with the fixture's ID), each failing with
// every expectation that does not hold, a golden's with its unified diff.
// A program that keeps its prompts in a set of its own tests them with
// the rest of its code:
//
//	func TestPrompts(t *testing.T) {
//		settest.Run(t, os.DirFS("prompts"))
//	}
//
// Golden files are rewritten with promptkit test --update.
package settest

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit/fixture"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Run loads the set at the root of fsys (manager.New, with the manager
// options managerOpts gives) and its fixtures, and runs each fixture as a
// subtest of t. A set or fixture file that does not load fails t with
// every problem. A set without fixtures fails too: a test of nothing
// would pass silently. opts configure the fixtures' load and run
// (fixture.WithService, fixture.WithCount, fixture.WithChatOptions).
func Run(t *testing.T, fsys fs.FS, opts ...fixture.Option) {
	t.Helper()
	RunWith(t, fsys, nil, opts...)
}

// RunWith is Run with options for the set's manager (limits, a clock).
func RunWith(t *testing.T, fsys fs.FS, managerOpts []manager.Option, opts ...fixture.Option) {
	t.Helper()
	m, err := manager.New(fsys, managerOpts...)
	if err != nil {
		t.Fatalf("the template set does not load:\n%v", err)
	}
	t.Cleanup(func() { m.Close() })
	suite, err := fixture.Load(fsys, opts...)
	if err != nil {
		t.Fatalf("the fixture files have problems:\n%v", err)
	}
	if len(suite.Fixtures) == 0 {
		t.Fatalf("the set has no fixtures (%s/*.json)", fixture.Dir)
	}
	r, err := fixture.NewRunner(m, suite, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range suite.Fixtures {
		t.Run(f.ID(), func(t *testing.T) {
			res := r.Run(t.Context(), f)
			for _, n := range res.Notes {
				t.Log(n)
			}
			for _, fl := range res.Failures {
				msg := f.Where() + ": " + fl.Check + ": " + fl.Message
				if fl.Diff != "" {
					msg += "\n" + strings.TrimSuffix(fl.Diff, "\n")
				}
				t.Error(msg)
			}
		})
	}
}
