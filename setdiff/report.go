package setdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// marks are the first column of a listed item: added, removed, changed,
// unchanged.
var marks = map[string]string{Added: "+", Removed: "-", Changed: "~", Unchanged: "="}

// WriteText writes the report for people: the two sets, the templates and
// files that changed with their unified diffs, the contract's changes
// (breaking first), and every fixture's rendered output before and after
// (a diff where it changed).
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "a: %s (%s)\nb: %s (%s)\n", r.A.Name, r.A.Digest, r.B.Name, r.B.Digest)

	fmt.Fprintf(&b, "\ntemplates: %s\n", counts(len(r.Templates), func(i int) string { return r.Templates[i].Status }))
	for _, t := range r.Templates {
		line := fmt.Sprintf("%s %s  %s", marks[t.Status], t.Name, t.Path)
		if t.OldPath != "" {
			line += " (was " + t.OldPath + ")"
		}
		b.WriteString(line + "\n")
		if t.Status == Changed {
			if t.Diff == "" {
				b.WriteString("    only a file it includes changed (see files)\n")
			}
			b.WriteString(indentDiff(t.Diff))
		}
	}

	fmt.Fprintf(&b, "\nfiles: %s\n", counts(len(r.Files), func(i int) string { return r.Files[i].Status }))
	for _, f := range r.Files {
		fmt.Fprintf(&b, "%s %s\n", marks[f.Status], f.Path)
		if f.Status == Changed {
			b.WriteString(indentDiff(f.Diff))
		}
	}

	breaking := r.Breaking()
	fmt.Fprintf(&b, "\ncontract: %d breaking, %d compatible\n", breaking, len(r.Changes)-breaking)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, class := range []Class{Breaking, Compatible} {
		for _, c := range r.Changes {
			if c.Class != class {
				continue
			}
			where := c.Template
			if c.Path != "" {
				where += ": " + c.Path
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Class, where, c.Message, c.Rule)
		}
	}
	tw.Flush()

	changed := 0
	for _, rd := range r.Rendered {
		if rd.Diff != "" {
			changed++
		}
	}
	fmt.Fprintf(&b, "\nrendered: %d fixtures, %d changed\n", len(r.Rendered), changed)
	for _, rd := range r.Rendered {
		mark := marks[Unchanged]
		if rd.Diff != "" {
			mark = marks[Changed]
		}
		line := fmt.Sprintf("%s %s (%s %s)", mark, rd.Fixture, strings.ReplaceAll(rd.Kind, "_", " "), rd.Target)
		switch rd.Status {
		case Added:
			line += ": a new fixture"
		case Removed:
			line += ": a fixture of a only"
		}
		if rd.InputChanged {
			line += ": its input changed too"
		}
		if rd.Tokens != nil {
			line += fmt.Sprintf("; tokens %d → %d (%+d)", rd.Tokens.Before, rd.Tokens.After, rd.Tokens.Delta)
		}
		b.WriteString(line + "\n")
		b.WriteString(indentDiff(rd.Diff))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as one JSON object (the fields of Report),
// indented, HTML left as it is.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// counts is "1 added, 2 changed" (or "none") of n items by status.
func counts(n int, status func(int) string) string {
	by := map[string]int{}
	for i := range n {
		by[status(i)]++
	}
	var parts []string
	for _, s := range []string{Added, Removed, Changed} {
		if by[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", by[s], s))
		}
	}
	if len(parts) == 0 {
		return "none changed"
	}
	return strings.Join(parts, ", ")
}

func indentDiff(d string) string {
	if d == "" {
		return ""
	}
	d = strings.TrimSuffix(d, "\n")
	return "    " + strings.ReplaceAll(d, "\n", "\n    ") + "\n"
}
