package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/internal/termsafe"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const historyUsage = `Usage: promptkit history REF [--json] [--plain-http]

Lists where the label of REF (registry/repo:label) has pointed, newest
first, from the registry's own data: the history tags promptkit writes at
every push and tag (LABEL-at-TIME) and each manifest's annotations. One
line per move: when, the manifest (to roll back to, with promptkit tag),
the set digest hosts report, when the set was pushed, the labels pointing
at it now, who moved it (and "forced" when the move overrode the gate of
promptkit tag), and the pusher's message. "*" marks where the label
points now; a move made by another tool shows "-" as its time. What the
registry says is printed with its control characters escaped. History
reads at most 100 pages and 10,000 tags of the registry's tag list, for at
most a minute; when it stops early it says so on standard error.

Flags:
  --json        print the history as one JSON object
  --plain-http  talk HTTP, not HTTPS (a registry on localhost)

Example:
  promptkit history localhost:5000/prompts:production --plain-http
`

func runHistory(c *cli, args []string) error {
	fs := c.newFlags("history", historyUsage)
	asJSON := fs.Bool("json", false, "JSON output")
	plain := registryFlags(fs)
	pos, err := c.parse(fs, historyUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("history takes one REF\n\n%s", historyUsage)
	}
	h, err := newClient(*plain).History(c.ctx, pos[0])
	if err != nil {
		return refError(err, historyUsage)
	}
	if h.Truncated != "" {
		defer fmt.Fprintf(c.stderr, "promptkit history: stopped early: %s; the history may be incomplete\n", termsafe.Line(h.Truncated))
	}
	if *asJSON {
		return printHistoryJSON(c, h)
	}
	line := termsafe.Line // every field may be the registry's words
	if h.Current == "" {
		fmt.Fprintf(c.stdout, "%s: no such label now\n", line(h.Label))
	} else {
		fmt.Fprintf(c.stdout, "%s -> %s\n", line(h.Label), line(h.Current))
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\tLABELLED\tMANIFEST\tSET\tCREATED\tLABELS\tBY\tMESSAGE")
	for _, e := range h.Entries {
		mark := ""
		if e.Current {
			mark = "*"
		}
		message := e.Message
		if e.Err != nil {
			message = e.Err.Error()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, stamp(e.Time, "2006-01-02T15:04:05.000Z"), line(e.Manifest),
			line(short(e.SetDigest)), stamp(e.Created, "2006-01-02T15:04:05Z"), line(dash(strings.Join(e.Labels, ","))), line(movedBy(e.Promotion)), line(dash(message)))
	}
	return tw.Flush()
}

type historyJSON struct {
	Label     string            `json:"label"`
	Current   string            `json:"current,omitempty"`
	Entries   []entryJSON       `json:"entries"`
	Labels    map[string]string `json:"labels"`
	Truncated string            `json:"truncated,omitempty"`
}

type entryJSON struct {
	Time      *time.Time `json:"time,omitempty"`
	Manifest  string     `json:"manifest"`
	SetDigest string     `json:"set_digest,omitempty"`
	Created   *time.Time `json:"created,omitempty"`
	Message   string     `json:"message,omitempty"`
	Labels    []string   `json:"labels"`
	Current   bool       `json:"current"`
	Error     string     `json:"error,omitempty"`
	Actor     string     `json:"actor,omitempty"`
	Forced    bool       `json:"forced,omitempty"`
	Refusal   string     `json:"refusal,omitempty"` // what a forced move overrode
}

func printHistoryJSON(c *cli, h *fleet.History) error {
	out := historyJSON{Label: h.Label, Current: h.Current, Labels: h.Labels, Entries: []entryJSON{}, Truncated: h.Truncated}
	for _, e := range h.Entries {
		j := entryJSON{Manifest: e.Manifest, SetDigest: e.SetDigest, Message: e.Message, Labels: e.Labels, Current: e.Current}
		if !e.Time.IsZero() {
			j.Time = &e.Time
		}
		if !e.Created.IsZero() {
			j.Created = &e.Created
		}
		if j.Labels == nil {
			j.Labels = []string{}
		}
		if e.Err != nil {
			j.Error = e.Err.Error()
		}
		if p := e.Promotion; p != nil {
			j.Actor, j.Forced, j.Refusal = p.Actor, p.Forced, p.Refusal
		}
		out.Entries = append(out.Entries, j)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := c.stdout.Write(termsafe.JSON(b.Bytes())) // the same values, nothing a terminal acts on
	return err
}

// stamp formats t in UTC, "-" when unknown.
func stamp(t time.Time, layout string) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(layout)
}

// short shortens a digest for reading: "sha256:" and 12 hex digits.
func short(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return dash(d)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// movedBy is who moved a label, "forced" when the move overrode the gate.
func movedBy(p *fleet.Promotion) string {
	switch {
	case p == nil:
		return "-"
	case p.Forced:
		return dash(p.Actor) + " (forced)"
	}
	return dash(p.Actor)
}
