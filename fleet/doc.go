// Package fleet ships promptkit template sets through OCI registries — the
// registries a team already runs for its container images and Helm charts —
// and keeps a fleet of hosts serving the set a label points at.
//
// A set travels as an OCI artifact: exactly the files its digest covers
// (index.json and every file a template reads), each one layer, with the
// set's digest, the time and the pusher's message in the manifest's
// annotations. Labels are tags: promote a tested set by tagging it
// production, roll back by tagging an earlier manifest again. A host
// follows a label: it polls the label's manifest digest, pulls a new set
// when it moves, checks it whole and swaps it in through the manager's
// reload, and keeps every set it pulled on disk, so it starts with the last
// good one while the registry is down.
//
// This is the only package of promptkit that imports oras-go (the OCI
// client); the manager, the builders and the service never do, so a host
// that reads its prompts from files does not link it.
//
// # Trust model
//
// The registry is trusted as much as the people who may push to it: a set
// someone pushes is a set the fleet serves. What the package guarantees is
// integrity and the set's own checks, not authorship: every file is checked
// against its blob digest, the files against the set digest the manifest
// names (by loading them, with every check a set on disk passes, inside
// the manager's sandbox), an artifact's paths must stay inside the set,
// and its sizes are bounded (MaxFiles, MaxFileBytes, MaxSetBytes). Nothing
// in an artifact runs: it is template files. Sign artifacts with the
// registry's own tools (cosign, notation) where authorship matters.
//
// # Example
//
//	// Once, on a workstation or in CI:
//	//   promptkit push ./prompts registry.example/team/prompts:v7 --message "shorter titles"
//	//   promptkit tag registry.example/team/prompts:v7 production
//	f, err := fleet.Follow(ctx, "registry.example/team/prompts:production",
//		fleet.WithInterval(30*time.Second),
//		fleet.WithManagerOptions(manager.WithObserver(tracer)))
//	if err != nil {
//		return err // no registry and nothing cached
//	}
//	defer f.Close()
//	svc, err := service.New(f.Manager())
//
// # The artifact
//
// An OCI image manifest of version 1.1: artifactType ArtifactType, the
// empty config, one layer per file (MediaTypeIndex for index.json,
// MediaTypeFile for the others) named by its path in the standard title
// annotation, so "oras pull" unpacks a set too. Annotations:
// AnnotationDigest (the set digest, manager.Manager.Digest),
// AnnotationCreated and AnnotationMessage. A file unchanged between
// versions is one blob in the registry, uploaded once.
//
// # Labels and their history
//
// A registry keeps only where a tag points now. So every time promptkit
// points a label (Push, Tag), it also tags the same manifest
// LABEL-at-TIME (production-at-20250102T030405.123456789Z); History reads
// those tags and the manifests' annotations back: where the label has
// pointed, newest first, when, which set, who said what. The history tags
// also keep every manifest a label ever served safe from the registry's
// garbage collection, so a rollback target never disappears. A registry
// decides how long its tag list is: History reads at most
// Client.HistoryLimits' pages and tags of it, within a timeout (100, 10,000
// and one minute by default), and History.Truncated says when it stopped
// before the end.
//
// # Fixtures, and the promotion gate
//
// A set's fixtures (its fixtures directory: package fixture's sample
// inputs and golden files) travel with it as layers of their own media
// type, outside its digest, so a registry's set can be tested. Tag with
// WithGate asks a Gate before it moves a label — promptkit tag's runs the
// candidate's fixtures and compares its contract with the set the label
// points at now — and refuses a move the gate refuses (ErrGate), unless
// it is forced (WithForce). A move with an actor (WithActor), or a forced
// one, leaves a record in the registry: a small manifest of artifact type
// PromotionType, a referrer of the set's manifest, annotated with the
// history tag, the actor and what the gate said; History shows it
// (Entry.Promotion).
//
// # Following a label
//
// Follow resolves the label, pulls and checks its set, and returns a
// Follower whose Manager is an ordinary *manager.Manager. The follower's
// disk cache holds one directory per manifest (sets/sha256-…) and a
// symlink, current, to the set serving; the manager reads current, so a
// swap is: new set written and checked, link moved, manager reloaded (all
// or nothing: a set that fails leaves the old one serving, and the link
// moves back so a restart starts from a good set). Polls are HEAD requests,
// every interval with jitter (WithInterval, WithJitter); a manifest that
// was refused (a set that does not load, a manifest or file whose bytes do
// not match their digest: a *DigestError naming the reference and both
// digests) is remembered and not pulled again before a backoff of two
// intervals, doubling up to MaxRefusalBackoff. A follower that starts with
// a cache serves it at once and polls in the background, so a hung
// registry delays no start. A pinned reference (repo@sha256:…) is never
// polled: the same set on every run.
//
// What happens is observable: the manager's Generation, Digest, LastError
// and Subscribe report every swap as for a watched directory, and the
// follower's Status (manifest, set digest, polls, last poll and its error,
// last success, last change, FromCache) and Subscribe report every poll.
//
// # Credentials
//
// A Client reads credentials as docker, oras and crane do: the Docker
// config file ($DOCKER_CONFIG/config.json or ~/.docker/config.json) with
// its "auths", its credential store ("credsStore") and per-registry helpers
// ("credHelpers"); "docker login" or "oras login" writes them. HTTPS always,
// unless PlainHTTP is set (for a registry on localhost).
package fleet
