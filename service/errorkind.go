package service

import (
	"errors"
	"slices"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/rag"
)

// builderKinds names the sentinels of the service, the builders and rag,
// most specific first. A builder's failed render is named by the
// manager's kind it wraps instead.
var builderKinds = []struct {
	err  error
	kind string
}{
	{ErrUnknownBuilder, "unknown_builder"},
	{ErrBuilderPanicked, "builder_panicked"},
	{ErrNotMessageBuilder, "not_message_builder"},
	{builders.ErrUnknownKey, "unknown_key"},
	{builders.ErrMissingValue, "missing_value"},
	{builders.ErrInvalidValue, "invalid_value"},
	{builders.ErrInvalidKind, "invalid_kind"},
	{rag.ErrNoEvidence, "no_evidence"},
}

// ErrorKind names the kind of an error of Build or BuildMessages, or of
// the manager: the manager's name (manager.ErrorKind) when it wraps one
// of the manager's sentinels, else the snake-case name of the service's,
// the builders' or rag's sentinel it wraps ("unknown_builder",
// "unknown_key", "missing_value", "no_evidence", …), else "other"; "" for
// nil. These are the kinds of promptkit serve's JSON errors.
func ErrorKind(err error) string {
	k := manager.ErrorKind(err)
	if k != "other" {
		return k
	}
	for _, b := range builderKinds {
		if errors.Is(err, b.err) {
			return b.kind
		}
	}
	return k
}

// ErrorKinds returns every name ErrorKind gives: the manager's
// (manager.ErrorKinds), then the service's, the builders' and rag's.
func ErrorKinds() []string {
	out := manager.ErrorKinds()
	out = slices.DeleteFunc(out, func(k string) bool { return k == "other" })
	for _, b := range builderKinds {
		out = append(out, b.kind)
	}
	return append(out, "other")
}
