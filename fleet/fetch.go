package fleet

import "context"

// Fetch reads the set ref names ("registry/repo:label" or
// "registry/repo@sha256:…") into memory, with its fixtures, checked as
// Pull checks it: every file against its blob digest, the set against the
// digest its manifest names. promptkit diff compares a registry's sets
// this way, without writing them anywhere.
func (c *Client) Fetch(ctx context.Context, ref string) (*Set, Info, error) {
	r, err := parseRef(ref)
	if err != nil {
		return nil, Info{}, err
	}
	repo, err := c.repository(r)
	if err != nil {
		return nil, Info{}, err
	}
	return fetchSet(ctx, repo, r.Reference)
}
