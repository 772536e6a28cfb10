package fleet

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
)

// A promotion gate. Tag points a label at a set; with WithGate it first
// asks the gate whether the set may go there — promptkit tag's gate runs
// the set's fixtures and compares its contract with the set the label
// points at now — and refuses the move when the gate says no, unless the
// move is forced (WithForce). Who moved the label, and whether the move
// overrode the gate, is recorded in the registry beside the history tag:
// a small manifest of artifact type PromotionType whose subject is the
// set's manifest (an OCI referrer; where a registry lacks the referrers
// API, oras keeps the referrers index under the tag sha256-HEX, as the
// OCI distribution spec says). History reads it back (Entry.Promotion).

// PromotionType is the artifact type of a promotion's record.
const PromotionType = "application/vnd.promptkit.promotion.v1"

// The annotations of a promotion's record.
const (
	AnnotationPromotionLabel   = "org.promptkit.promotion.label"
	AnnotationPromotionTag     = "org.promptkit.promotion.history-tag"
	AnnotationPromotionActor   = "org.promptkit.promotion.actor"
	AnnotationPromotionForced  = "org.promptkit.promotion.forced"
	AnnotationPromotionRefusal = "org.promptkit.promotion.refusal"
)

// maxRefusal bounds the gate's words kept in a record's annotation.
const maxRefusal = 4 << 10

// ErrGate is wrapped by the error of a move the gate refused.
var ErrGate = errors.New("fleet: promotion refused")

// Gate decides whether a label may move to candidate, the set ref names;
// current is the set the label points at now, nil when there is none. An
// error refuses the move (Tag returns a *GateError) and says why.
type Gate func(ctx context.Context, candidate, current *Set) error

// GateError is a move the gate refused.
type GateError struct {
	Label string
	Err   error // what the gate said
}

func (e *GateError) Error() string {
	return fmt.Sprintf("fleet: the gate refuses to point %s at the set: %v", e.Label, e.Err)
}

// Unwrap makes errors.Is(err, ErrGate) hold, and reaches the gate's error.
func (e *GateError) Unwrap() []error { return []error{ErrGate, e.Err} }

// TagOption configures Tag.
type TagOption func(*tagConfig)

type tagConfig struct {
	gate   Gate
	force  bool
	actor  string
	forced func(refusal error) // told when a forced move overrode the gate
}

// WithGate asks g before the label moves.
func WithGate(g Gate) TagOption { return func(c *tagConfig) { c.gate = g } }

// WithActor records who moves the label (a user name) in the registry,
// for History.
func WithActor(actor string) TagOption { return func(c *tagConfig) { c.actor = actor } }

// WithForce moves the label even when the gate refuses; the refusal is
// recorded with the move, beside the actor, and told to forced (which may
// be nil) before the label moves.
func WithForce(forced func(refusal error)) TagOption {
	return func(c *tagConfig) { c.force, c.forced = true, forced }
}

// Promotion is how promptkit moved a label, as its record in the
// registry says.
type Promotion struct {
	// Actor is who moved it (WithActor), "" when not recorded.
	Actor string
	// Forced is true when the move overrode the gate; Refusal is then
	// what the gate said.
	Forced  bool
	Refusal string
}

// gate runs the gate of cfg for the move of label to the set of manifest
// man; it returns the refusal a forced move overrides.
func (c *Client) gate(ctx context.Context, repo *remote.Repository, man ocispec.Descriptor, label string, cfg *tagConfig) (refusal, err error) {
	if cfg.gate == nil {
		return nil, nil
	}
	candidate, _, err := fetchSet(ctx, repo, man.Digest.String())
	if err != nil {
		return nil, err
	}
	var current *Set
	now, err := repo.Resolve(ctx, label)
	switch {
	case errors.Is(err, errdef.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("fleet: tag %s: %w", label, err)
	default:
		if current, _, err = fetchSet(ctx, repo, now.Digest.String()); err != nil {
			return nil, fmt.Errorf("fleet: the set %s points at now: %w", label, err)
		}
	}
	refusal = cfg.gate(ctx, candidate, current)
	switch {
	case refusal == nil:
		return nil, nil
	case !cfg.force:
		return nil, &GateError{Label: label, Err: refusal}
	}
	if cfg.forced != nil {
		cfg.forced(refusal)
	}
	return refusal, nil
}

// record writes the record of a move: who made it, and the refusal it
// overrode. A move without an actor and without a refusal is not
// recorded.
func (c *Client) record(ctx context.Context, repo *remote.Repository, man ocispec.Descriptor, label, hist string, cfg *tagConfig, refusal error, at time.Time) error {
	if cfg.actor == "" && refusal == nil {
		return nil
	}
	ann := map[string]string{
		AnnotationPromotionLabel:  label,
		AnnotationPromotionTag:    hist,
		AnnotationPromotionForced: strconv.FormatBool(refusal != nil),
		AnnotationCreated:         at.UTC().Format(time.RFC3339),
	}
	if cfg.actor != "" {
		ann[AnnotationPromotionActor] = cfg.actor
	}
	if refusal != nil {
		msg := refusal.Error()
		if len(msg) > maxRefusal {
			msg = msg[:maxRefusal] + "…"
		}
		ann[AnnotationPromotionRefusal] = msg
	}
	// A registry without the referrers API keeps an index of them under a
	// tag that oras rewrites; deleting the old index needs delete rights a
	// registry may not give, and leaving it costs a small manifest.
	repo.SkipReferrersGC = true
	_, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, PromotionType,
		oras.PackManifestOptions{Subject: &man, ManifestAnnotations: ann})
	if err != nil {
		return fmt.Errorf("fleet: record the move of %s: %w", label, err)
	}
	return nil
}

// promotions reads the records of the moves to the manifest man, by
// history tag.
func promotions(ctx context.Context, repo *remote.Repository, man ocispec.Descriptor) (map[string]*Promotion, error) {
	out := map[string]*Promotion{}
	err := repo.Referrers(ctx, man, PromotionType, func(refs []ocispec.Descriptor) error {
		for _, r := range refs {
			a := r.Annotations
			if a[AnnotationPromotionTag] == "" {
				continue
			}
			out[a[AnnotationPromotionTag]] = &Promotion{Actor: a[AnnotationPromotionActor],
				Forced: a[AnnotationPromotionForced] == "true", Refusal: a[AnnotationPromotionRefusal]}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// referrersTag is the tag under which oras keeps a manifest's referrers
// where a registry lacks the referrers API: not a label.
var referrersTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256-[0-9a-f]{64}$`) })
