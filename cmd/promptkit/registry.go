package main

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/internal/termsafe"
)

// registryFlags adds the flags every registry command takes.
func registryFlags(fs *flag.FlagSet) (plainHTTP *bool) {
	return fs.Bool("plain-http", false, "talk HTTP, not HTTPS (a registry on localhost)")
}

// newClient is the registry client of the commands: credentials from the
// Docker config file ($DOCKER_CONFIG or ~/.docker) and its helpers.
func newClient(plainHTTP bool) *fleet.Client {
	return &fleet.Client{PlainHTTP: plainHTTP}
}

// printInfo prints what a command did to a set, one "key value" line each.
func printInfo(w io.Writer, ref string, info fleet.Info) error {
	pin, err := fleet.Pinned(ref, info.Manifest)
	if err != nil {
		return err
	}
	// What the registry says (the annotations, above all the message) is
	// printed with nothing in it that a terminal acts on.
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "ref\t%s\n", termsafe.Line(ref))
	fmt.Fprintf(tw, "pinned\t%s\n", termsafe.Line(pin))
	fmt.Fprintf(tw, "set\t%s\n", termsafe.Line(info.SetDigest))
	fmt.Fprintf(tw, "files\t%d (%d bytes)\n", info.Files, info.Size)
	if !info.Created.IsZero() {
		fmt.Fprintf(tw, "created\t%s\n", info.Created.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if info.Message != "" {
		fmt.Fprintf(tw, "message\t%s\n", termsafe.Line(info.Message))
	}
	return tw.Flush()
}
