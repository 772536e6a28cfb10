package fleet

import (
	"fmt"
	"net/http"
	"strings"

	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// Client reaches registries. Its zero value is ready: HTTPS, credentials
// from the Docker config file and its credential helpers, as docker,
// oras and crane find them. A Client is safe for concurrent use.
type Client struct {
	// PlainHTTP talks HTTP instead of HTTPS: for a registry on localhost
	// or a test network, never by default.
	PlainHTTP bool
	// DockerConfig is the path of a Docker config.json to read credentials
	// from ("auths", "credsStore", "credHelpers"). Empty means
	// $DOCKER_CONFIG/config.json, else ~/.docker/config.json; a file that
	// does not exist means anonymous access.
	DockerConfig string
	// HTTPClient carries the requests; nil means oras' default client,
	// which retries a request on a timeout, a reset connection, 429 and 5xx.
	HTTPClient *http.Client
	// HistoryLimits bound what History reads of a registry, which may list
	// tags without end.
	HistoryLimits HistoryLimits
}

// repository returns an oras client for the repository of ref, with the
// Client's transport and credentials.
func (c *Client) repository(ref registry.Reference) (*remote.Repository, error) {
	store, err := c.credentials()
	if err != nil {
		return nil, err
	}
	repo := &remote.Repository{Reference: ref, PlainHTTP: c.PlainHTTP}
	client := &auth.Client{Credential: credentials.Credential(store), Cache: auth.NewCache()}
	if c.HTTPClient != nil {
		client.Client = c.HTTPClient
	} else {
		client.Client = auth.DefaultClient.Client
	}
	client.SetUserAgent("promptkit")
	repo.Client = client
	return repo, nil
}

func (c *Client) credentials() (credentials.Store, error) {
	var (
		store *credentials.DynamicStore
		err   error
	)
	if c.DockerConfig != "" {
		store, err = credentials.NewStore(c.DockerConfig, credentials.StoreOptions{})
	} else {
		store, err = credentials.NewStoreFromDocker(credentials.StoreOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("fleet: registry credentials: %w", err)
	}
	return store, nil
}

// parseRef parses "registry/repo:label" or "registry/repo@sha256:…".
// A reference without a label or digest is an error: promptkit never
// guesses "latest".
func parseRef(s string) (registry.Reference, error) {
	ref, err := registry.ParseReference(s)
	if err != nil {
		return ref, fmt.Errorf("%w: %q: %v", ErrReference, s, err)
	}
	if ref.Reference == "" {
		return ref, fmt.Errorf("%w: %q names no label (:label) or digest (@sha256:…)", ErrReference, s)
	}
	if strings.Contains(s, "@") {
		if _, err := ref.Digest(); err != nil {
			return ref, fmt.Errorf("%w: %q: %v", ErrReference, s, err)
		}
	}
	return ref, nil
}

// isDigest reports whether ref is pinned to a digest rather than a label.
func isDigest(ref registry.Reference) bool {
	return ref.ValidateReferenceAsDigest() == nil
}

// labelRef parses s and requires a label, for commands that write one.
func labelRef(s string) (registry.Reference, error) {
	ref, err := parseRef(s)
	if err != nil {
		return ref, err
	}
	if isDigest(ref) {
		return ref, fmt.Errorf("%w: %q is a digest; this needs a label (registry/repo:label)", ErrReference, s)
	}
	return ref, checkLabel(ref.Reference)
}

// Pinned returns the reference that pins ref's repository to manifest:
// Pinned("reg/prompts:production", "sha256:…") is "reg/prompts@sha256:…".
func Pinned(ref, manifest string) (string, error) {
	r, err := parseRef(ref)
	if err != nil {
		return "", err
	}
	r.Reference = manifest
	if err := r.ValidateReferenceAsDigest(); err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrReference, manifest, err)
	}
	return r.String(), nil
}
