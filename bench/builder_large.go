package bench

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
)

// cutJinja is cut for a Jinja source with whitespace control: the piece
// before a marker that starts with "{%-" or "{{-" loses its trailing
// whitespace, as Jinja strips it.
func cutJinja(s string, markers ...string) ([]string, error) {
	p, err := cut(s, markers...)
	if err != nil {
		return nil, err
	}
	for i, m := range markers {
		if strings.HasPrefix(m, "{%-") || strings.HasPrefix(m, "{{-") {
			p[i] = strings.TrimRight(p[i], " \t\r\n")
		}
	}
	return p, nil
}

// quoted returns the n-th string literal in double quotes of a Jinja tag:
// the default of `default("…")`, the separator of `join(", ")`. The
// hand-written render takes them from the template, as it takes the text.
func quoted(tag string, n int) (string, error) {
	parts := strings.Split(tag, `"`)
	if len(parts) < 2*n+3 {
		return "", fmt.Errorf("no string literal %d in %q", n, tag)
	}
	return parts[2*n+1], nil
}

// tagAt returns the whole tag of src that starts with prefix, so that the
// hand-written render takes a filter's arguments (the default's text, the
// join's separator) from the template instead of repeating them.
func tagAt(src, prefix string) (string, error) {
	i := strings.Index(src, prefix)
	if i < 0 {
		return "", fmt.Errorf("no tag %q… in the template", prefix)
	}
	end := strings.Index(src[i:], "}}")
	if end < 0 {
		return "", fmt.Errorf("tag %q… does not end", prefix)
	}
	return src[i : i+end+2], nil
}

// The tags of large.jinja that the hand-written render cuts it at, in
// order; tagJoin, tagDefault and tagReplace stand for the whole tags
// (tagAt). Between them is the template's text, which it writes as it is.
const (
	tagJoin    = "{{ item.tags | join("
	tagDefault = "{{ item.note | default("
	tagReplace = "{{ step.name | replace("
)

var largeMarkers = []string{
	"{{ agent_name }}", "{{ today }}", "{{ items | length }}", // p1..p3
	"{%- for item in items %}",          // p4
	"{{ loop.index }}", "{{ item.id }}", // p5, p6
	"{% if loop.first %}", "{% elif loop.last %}", "{% endif %}", // p7..p9
	"{{ item.title | trim }}", "{{ item.meta.owner | title }}", "{{ item.meta.team | upper }}", // p10..p12
	`{%- if item.status == "done" %}`,                            // p13
	`{%- elif item.status == "running" and item.score > 0.8 %}`,  // p14
	`{%- elif item.status == "blocked" or item.priority >= 4 %}`, // p15
	"{{ item.priority }}", "{%- else %}",                         // p16, p17
	`{% if item.status == "running" %}`, "{% else %}", "{% endif %}", "{%- endif %}", // p18..p21
	tagJoin, "{{ item.tags | length }}", tagDefault, // p22..p24
	"{%- for step in item.steps %}", tagReplace, "{% if step.done %}", "{% endif %}", "{%- endfor %}", // p25..p29
	"{{ item.summary }}", "{%- if not item.meta.active %}", "{%- endif %}", // p30..p32
	"{%- if loop.index is divisibleby(50) %}", "{{ loop.index }}", "{{ items | length }}", "{%- endif %}", // p33..p36
	"{%- endfor %}", "{{ question }}", // p37, p38; p39 is the rest
}

// largeBuilder is the large template written by hand: the text between
// its tags cut once, then each render walks the items and writes the
// pieces and the values, the filters done in place, into a builder grown
// to the size of the previous render: one allocation per render.
func largeBuilder(w Workload) (Renderer, error) {
	tags := map[string]string{}
	for _, prefix := range []string{tagJoin, tagDefault, tagReplace} {
		tag, err := tagAt(w.Jinja, prefix)
		if err != nil {
			return Renderer{}, err
		}
		tags[prefix] = tag
	}
	markers := make([]string, len(largeMarkers))
	for i, m := range largeMarkers {
		if tag, ok := tags[m]; ok {
			m = tag
		}
		markers[i] = m
	}
	p, err := cutJinja(w.Jinja, markers...)
	if err != nil {
		return Renderer{}, err
	}
	var literals [4]string // join's separator, default's text, replace's old and new
	for i, arg := range []struct {
		prefix string
		n      int
	}{{tagJoin, 0}, {tagDefault, 0}, {tagReplace, 0}, {tagReplace, 1}} {
		if literals[i], err = quoted(tags[arg.prefix], arg.n); err != nil {
			return Renderer{}, err
		}
	}
	sep, noNote, from, to := literals[0], literals[1], literals[2], literals[3]
	var size atomic.Int64
	return textRenderer(func() (string, error) {
		items, _ := w.Vars["items"].([]any)
		var b strings.Builder
		b.Grow(int(size.Load()))
		var num [20]byte
		itoa := func(i int) { b.Write(strconv.AppendInt(num[:0], int64(i), 10)) }
		b.WriteString(p[0])
		b.WriteString(str(w.Vars, "agent_name"))
		b.WriteString(p[1])
		b.WriteString(str(w.Vars, "today"))
		b.WriteString(p[2])
		itoa(len(items))
		b.WriteString(p[3])
		for i, it := range items {
			item, _ := it.(map[string]any)
			meta, _ := item["meta"].(map[string]any)
			status := str(item, "status")
			score, _ := item["score"].(float64)
			priority, _ := item["priority"].(int64)
			b.WriteString(p[4])
			itoa(i + 1)
			b.WriteString(p[5])
			b.WriteString(str(item, "id"))
			b.WriteString(p[6])
			if i == 0 {
				b.WriteString(p[7])
			} else if i == len(items)-1 {
				b.WriteString(p[8])
			}
			b.WriteString(p[9])
			b.WriteString(strings.TrimSpace(str(item, "title")))
			b.WriteString(p[10])
			writeTitle(&b, str(meta, "owner"))
			b.WriteString(p[11])
			writeUpper(&b, str(meta, "team"))
			b.WriteString(p[12])
			switch {
			case status == "done":
				b.WriteString(p[13])
			case status == "running" && score > 0.8:
				b.WriteString(p[14])
			case status == "blocked" || priority >= 4:
				b.WriteString(p[15])
				itoa(int(priority))
				b.WriteString(p[16])
			default:
				b.WriteString(p[17])
				if status == "running" {
					b.WriteString(p[18])
				} else {
					b.WriteString(p[19])
				}
				b.WriteString(p[20])
			}
			b.WriteString(p[21])
			tags, _ := item["tags"].([]any)
			for j, t := range tags {
				if j > 0 {
					b.WriteString(sep)
				}
				s, _ := t.(string)
				b.WriteString(s)
			}
			b.WriteString(p[22])
			itoa(len(tags))
			b.WriteString(p[23])
			if note, ok := item["note"].(string); ok {
				b.WriteString(note)
			} else {
				b.WriteString(noNote)
			}
			b.WriteString(p[24])
			steps, _ := item["steps"].([]any)
			for _, s := range steps {
				step, _ := s.(map[string]any)
				b.WriteString(p[25])
				writeReplaced(&b, str(step, "name"), from, to)
				b.WriteString(p[26])
				if done, _ := step["done"].(bool); done {
					b.WriteString(p[27])
				}
				b.WriteString(p[28])
			}
			b.WriteString(p[29])
			b.WriteString(str(item, "summary"))
			b.WriteString(p[30])
			if active, _ := meta["active"].(bool); !active {
				b.WriteString(p[31])
			}
			b.WriteString(p[32])
			if (i+1)%50 == 0 {
				b.WriteString(p[33])
				itoa(i + 1)
				b.WriteString(p[34])
				itoa(len(items))
				b.WriteString(p[35])
			}
			b.WriteString(p[36])
		}
		b.WriteString(p[37])
		b.WriteString(str(w.Vars, "question"))
		b.WriteString(p[38])
		size.Store(int64(b.Len()))
		return b.String(), nil
	})
}

// str is m[k] when it is a string.
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// writeTitle writes jinjaTitle(s) without making the string.
func writeTitle(b *strings.Builder, s string) {
	start := true
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || strings.ContainsRune("-({[<", r):
			start = true
		case start:
			r, start = unicode.ToUpper(r), false
		default:
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
}

// writeUpper writes strings.ToUpper(s) without making the string.
func writeUpper(b *strings.Builder, s string) {
	for _, r := range s {
		b.WriteRune(unicode.ToUpper(r))
	}
}

// writeReplaced writes strings.ReplaceAll(s, old, repl) without making
// the string.
func writeReplaced(b *strings.Builder, s, old, repl string) {
	for {
		before, after, ok := strings.Cut(s, old)
		b.WriteString(before)
		if !ok {
			return
		}
		b.WriteString(repl)
		s = after
	}
}
