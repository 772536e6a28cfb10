package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/seed-e7d2830f/promptkit/fleet"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const pushUsage = `Usage: promptkit push DIR REF [--message TEXT] [--plain-http]

Checks the template set in DIR as "promptkit check" does and, only if it
has no problem, pushes it to REF (registry/repo:label) as an OCI artifact:
index.json and every file the set uses, the set's digest, the time and
the message in its annotations. The label's move is recorded in its
history (see "promptkit history"). Credentials come from the Docker
config file (docker login, oras login) and its credential helpers.

Flags:
  --message TEXT  a message for the people who read the history
  --plain-http    talk HTTP, not HTTPS (a registry on localhost)

Example:
  promptkit push ./prompts localhost:5000/prompts:v2 --message "shorter titles" --plain-http
`

func runPush(c *cli, args []string) error {
	fs := c.newFlags("push", pushUsage)
	message := fs.String("message", "", "message")
	plain := registryFlags(fs)
	pos, err := c.parse(fs, pushUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("push takes DIR and REF\n\n%s", pushUsage)
	}
	dir, ref := pos[0], pos[1]
	set, err := fleet.Load(dir)
	if err != nil {
		c.report(err)
		return errors.New("the set has problems; nothing was pushed")
	}
	info, err := newClient(*plain).Push(c.ctx, set, ref, *message)
	if err != nil {
		return refError(err, pushUsage)
	}
	return printInfo(c.stdout, ref, info)
}

// refError makes a malformed reference bad usage (exit 2), and says what
// to do when a registry answers in plain HTTP.
func refError(err error, usage string) error {
	if errors.Is(err, fleet.ErrReference) {
		return usagef("%v\n\n%s", err, usage)
	}
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return fmt.Errorf("%w (a registry without TLS: add --plain-http)", err)
	}
	return err
}
