package fleet

import "errors"

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
