package main

//promptkit:allow-inline CLI help text with an example, not a prompt
const pullUsage = `Usage: promptkit pull REF DIR [--plain-http]

Pulls the template set REF names (registry/repo:label or
registry/repo@sha256:...) into DIR, which must not exist or be empty.
Every file is checked against its blob digest and the set, loaded from
the files written, against the digest the artifact names; on any failure
DIR is left as it was.

Flags:
  --plain-http  talk HTTP, not HTTPS (a registry on localhost)

Example:
  promptkit pull localhost:5000/prompts:production ./prompts --plain-http
`

func runPull(c *cli, args []string) error {
	fs := c.newFlags("pull", pullUsage)
	plain := registryFlags(fs)
	pos, err := c.parse(fs, pullUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("pull takes REF and DIR\n\n%s", pullUsage)
	}
	ref, dir := pos[0], pos[1]
	info, err := newClient(*plain).Pull(c.ctx, ref, dir)
	if err != nil {
		return refError(err, pullUsage)
	}
	return printInfo(c.stdout, ref, info)
}
