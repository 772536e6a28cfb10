package fleet

import (
	"errors"
	"fmt"

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
	// set its digest annotation names, a cached set no longer matches the
	// digest it was pulled with, or the registry sends a manifest or a
	// file whose bytes do not have the digest that names them (a
	// *DigestError).
	ErrDigest = errors.New("fleet: set digest mismatch")
	// ErrDirNotEmpty is returned by Pull into a directory that has files.
	ErrDirNotEmpty = errors.New("fleet: target directory is not empty")
	// ErrClosed is returned by a Follower's methods after Close.
	ErrClosed = errors.New("fleet: follower closed")
)

// DigestError is a manifest or a file that the registry sent with bytes
// that do not have the digest naming them: a blob corrupted in the
// registry's storage, or forged. It names the reference pulled, what was
// read, and both digests. It wraps ErrDigest.
type DigestError struct {
	Ref       string // the reference pulled, "reg/prompts:production"
	What      string // "manifest", or `file "templates/greet.md"`
	Want, Got string // the digest naming the content, and the digest of what came
	// WantSize and GotSize are the size the descriptor says and the bytes
	// read (at most one more than WantSize).
	WantSize, GotSize int64
}

func (e *DigestError) Error() string {
	switch {
	case e.GotSize > e.WantSize:
		return fmt.Sprintf("fleet: %s: %s %s: the registry sent more than the %d bytes it names", e.Ref, e.What, e.Want, e.WantSize)
	case e.GotSize < e.WantSize:
		return fmt.Sprintf("fleet: %s: %s %s: the registry sent %d bytes of digest %s, not the %d bytes it names", e.Ref, e.What, e.Want, e.GotSize, e.Got, e.WantSize)
	}
	return fmt.Sprintf("fleet: %s: %s %s: the registry sent content whose digest is %s", e.Ref, e.What, e.Want, e.Got)
}

func (e *DigestError) Unwrap() error { return ErrDigest }

// logText is an error as the follower logs it: a registry's words in it
// with every control and format character escaped (termsafe), so a log
// read on a terminal cannot be made to act.
func logText(err error) string { return termsafe.Text(err.Error()) }
