package fleet

import (
	"errors"

	"github.com/seed-e7d2830f/promptkit/internal/termsafe"
)

// Sentinel errors; every error of the package that is not a template
// set's own problem (a *manager.LoadError, matched by manager's sentinels)
// or the registry's (an oras error naming the request) wraps one of them.
var (
	// ErrReference is returned for a reference that is not
	// registry/repo:label or registry/repo@sha256:…, or a label that
	// promptkit keeps for its history tags.
	ErrReference = errors.New("fleet: invalid reference")
	// ErrUnused is returned when a set declares variables a template never
	// uses: promptkit check calls that a problem, so such a set is not
	// pushed.
	ErrUnused = errors.New("fleet: declared variables never used")
	// ErrNotSet is returned for an artifact that is not a promptkit
	// template set, or one whose manifest is malformed (a file without a
	// path, a path that leaves the set, a file twice, an oversized file).
	ErrNotSet = errors.New("fleet: not a promptkit template set")
	// ErrDigest is returned when the files of an artifact do not make the
	// set its digest annotation names, or a cached set no longer matches
	// the digest it was pulled with.
	ErrDigest = errors.New("fleet: set digest mismatch")
	// ErrDirNotEmpty is returned by Pull into a directory that has files.
	ErrDirNotEmpty = errors.New("fleet: target directory is not empty")
	// ErrClosed is returned by a Follower's methods after Close.
	ErrClosed = errors.New("fleet: follower closed")
)

// logText is an error as the follower logs it: a registry's words in it
// with every control and format character escaped (termsafe), so a log
// read on a terminal cannot be made to act.
func logText(err error) string { return termsafe.Text(err.Error()) }
