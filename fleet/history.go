package fleet

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"oras.land/oras-go/v2/registry/remote"
)

// A label's history lives in the registry itself, as tags. A registry
// keeps only where a tag points now, so every time promptkit points a
// label at a set (Push, Tag) it also tags the same manifest
// LABEL-at-TIME (UTC, nanoseconds: production-at-20250102T030405.123456789Z).
// Those tags are immutable by convention, cost one manifest PUT and no
// storage (they name a manifest the registry has anyway), keep every
// manifest a label ever served from garbage collection, and are seen by
// every registry tool ("oras repo tags", "crane ls"). History lists them,
// newest first, with each manifest's annotations: no side file, no
// server of our own.

const (
	historySep  = "-at-"
	historyTime = "20060102T150405.000000000Z"
)

// tagPattern is the OCI distribution spec's grammar of a tag.
// Compiled when first needed: a process that never names a tag does not
// pay for its 128 repetitions at start.
var tagPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$`) })

// maxLabel leaves room in a tag for the history suffix.
const maxLabel = 128 - len(historySep) - len(historyTime)

// historyTag names the history tag of label pointed at t.
func historyTag(label string, t time.Time) string {
	return label + historySep + t.UTC().Format(historyTime)
}

// parseHistoryTag splits a history tag into its label and time.
func parseHistoryTag(tag string) (label string, t time.Time, ok bool) {
	i := strings.LastIndex(tag, historySep)
	if i <= 0 {
		return "", time.Time{}, false
	}
	t, err := time.Parse(historyTime, tag[i+len(historySep):])
	if err != nil {
		return "", time.Time{}, false
	}
	return tag[:i], t, true
}

// checkLabel refuses a label that is not a tag, is too long to have
// history tags, or is a history tag itself.
func checkLabel(label string) error {
	switch {
	case !tagPattern().MatchString(label):
		return fmt.Errorf("%w: label %q is not a tag ([A-Za-z0-9_][A-Za-z0-9._-]*)", ErrReference, label)
	case len(label) > maxLabel:
		return fmt.Errorf("%w: label %q is longer than %d characters", ErrReference, label, maxLabel)
	}
	if _, _, ok := parseHistoryTag(label); ok {
		return fmt.Errorf("%w: %q is a history tag; promptkit writes those itself", ErrReference, label)
	}
	return nil
}

// Defaults of HistoryLimits.
const (
	DefaultHistoryPages   = 100
	DefaultHistoryTags    = 10_000
	DefaultHistoryTimeout = time.Minute
)

// HistoryLimits bound History, since a registry decides how long its tag
// list is and how many pages it takes. A zero field keeps its default.
type HistoryLimits struct {
	// Pages is how many pages of the tag list History reads (default 100).
	Pages int
	// Tags is how many tags it reads (default 10,000).
	Tags int
	// Timeout bounds the whole of History, every request included
	// (default one minute).
	Timeout time.Duration
}

// withDefaults fills in the zero fields.
func (l HistoryLimits) withDefaults() HistoryLimits {
	if l.Pages <= 0 {
		l.Pages = DefaultHistoryPages
	}
	if l.Tags <= 0 {
		l.Tags = DefaultHistoryTags
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultHistoryTimeout
	}
	return l
}

// errListingLimit stops the tag listing at a bound of HistoryLimits.
var errListingLimit = errors.New("fleet: tag listing limit")

// History is where a label has pointed, newest first.
type History struct {
	// Label is the label asked about; Current the manifest it points at
	// now ("" when the repository has no such label).
	Label   string
	Current string
	// Entries are the label's moves, newest first.
	Entries []Entry
	// Labels maps every label of the repository (history tags aside) to
	// the manifest it points at now.
	Labels map[string]string
	// Truncated says why History stopped reading the repository's tags
	// before their end (a bound of HistoryLimits); empty when it read
	// them all. Moves and labels in the tags not read are missing.
	Truncated string
}

// Entry is one move of a label, or (Time zero) where it points now when
// that move was made by another tool than promptkit and left no history
// tag.
type Entry struct {
	// Time is when the label was pointed at the manifest; zero if unknown.
	Time time.Time
	// Info describes the manifest and the set.
	Info
	// Labels are the labels pointing at this manifest now, sorted.
	Labels []string
	// Current is true for the entry the label points at now.
	Current bool
	// Err is set when the manifest is no promptkit set (another tool
	// tagged something else); Info then holds the manifest digest only.
	Err error
	// Promotion is who made the move and whether it overrode the gate,
	// when promptkit recorded it (see Tag); nil otherwise.
	Promotion *Promotion
}

// History lists where the label of ref ("registry/repo:label") has
// pointed, from the registry's tags and the manifests' annotations. It
// reads at most c.HistoryLimits' pages and tags of the tag list (History.
// Truncated then says so) and gives up after its timeout.
func (c *Client) History(ctx context.Context, ref string) (*History, error) {
	r, err := labelRef(ref)
	if err != nil {
		return nil, err
	}
	repo, err := c.repository(r)
	if err != nil {
		return nil, err
	}
	limits := c.HistoryLimits.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, limits.Timeout)
	defer cancel()
	h, err := history(ctx, repo, ref, r.Reference, limits)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return nil, fmt.Errorf("fleet: history %s: no complete answer within %v (HistoryLimits.Timeout): %w", ref, limits.Timeout, err)
	}
	return h, err
}

func history(ctx context.Context, repo *remote.Repository, ref, label string, limits HistoryLimits) (*History, error) {
	h := &History{Label: label, Labels: map[string]string{}}
	var tags []string
	pages := 0
	err := repo.Tags(ctx, "", func(page []string) error {
		pages++
		if pages > limits.Pages {
			h.Truncated = fmt.Sprintf("the registry's tag list goes on past %d pages; read the first %d (HistoryLimits.Pages)", limits.Pages, limits.Pages)
			return errListingLimit
		}
		if room := limits.Tags - len(tags); len(page) > room {
			tags = append(tags, page[:room]...)
			h.Truncated = fmt.Sprintf("the registry lists more than %d tags; read the first %d (HistoryLimits.Tags)", limits.Tags, limits.Tags)
			return errListingLimit
		}
		tags = append(tags, page...)
		return nil
	})
	if err != nil && !errors.Is(err, errListingLimit) {
		return nil, fmt.Errorf("fleet: history %s: %w", ref, err)
	}
	type move struct {
		tag string
		t   time.Time
	}
	var moves []move
	for _, tag := range tags {
		if referrersTag().MatchString(tag) {
			continue // the index of a manifest's referrers: not a label
		}
		if label, t, ok := parseHistoryTag(tag); ok {
			if label == h.Label {
				moves = append(moves, move{tag, t})
			}
			continue
		}
		d, err := repo.Resolve(ctx, tag)
		if err != nil {
			return nil, fmt.Errorf("fleet: history %s: tag %s: %w", ref, tag, err)
		}
		h.Labels[tag] = d.Digest.String()
	}
	h.Current = h.Labels[h.Label]
	slices.SortFunc(moves, func(a, b move) int { return b.t.Compare(a.t) })

	byManifest := map[string][]string{}
	for l, d := range h.Labels {
		byManifest[d] = append(byManifest[d], l)
	}
	infos := map[string]Entry{}
	records := map[string]map[string]*Promotion{} // manifest → history tag → its record
	describe := func(reference string) (Entry, error) {
		d, err := repo.Resolve(ctx, reference)
		if err != nil {
			return Entry{}, fmt.Errorf("fleet: history %s: %s: %w", ref, reference, err)
		}
		if e, ok := infos[d.Digest.String()]; ok {
			return e, nil
		}
		e := Entry{Info: Info{Manifest: d.Digest.String()}}
		if _, info, err := fetchManifest(ctx, repo, d.Digest.String()); err != nil {
			e.Err = err
		} else {
			e.Info = info
			if records[e.Manifest], err = promotions(ctx, repo, d); err != nil {
				return Entry{}, fmt.Errorf("fleet: history %s: %s: %w", ref, reference, err)
			}
		}
		e.Labels = slices.Sorted(slices.Values(byManifest[e.Manifest]))
		infos[e.Manifest] = e
		return e, nil
	}
	for _, mv := range moves {
		e, err := describe(mv.tag)
		if err != nil {
			return nil, err
		}
		e.Time = mv.t
		e.Promotion = records[e.Manifest][mv.tag]
		h.Entries = append(h.Entries, e)
	}
	if h.Current != "" {
		if len(h.Entries) > 0 && h.Entries[0].Manifest == h.Current {
			h.Entries[0].Current = true
		} else {
			e, err := describe(h.Current)
			if err != nil {
				return nil, err
			}
			e.Current = true
			h.Entries = slices.Insert(h.Entries, 0, e)
		}
	}
	return h, nil
}
