package engine

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// pformat is Python's pprint.pformat(v), what Jinja2's pprint filter
// returns: v's repr when it fits in 80 columns, else dicts, lists and
// tuples one item a line, indented one column a level, and long strings
// cut at white space into adjacent literals in parentheses. Dicts print
// with their keys sorted (pprint's sort_dicts), at every level, even on
// one line. limit bounds the output's bytes (errPrintSize beyond it).
//
// The port follows CPython 3.11's Lib/pprint.py: PrettyPrinter._format,
// _pprint_dict, _pprint_list, _pprint_tuple, _pprint_str, _format_items,
// _format_dict_items and _safe_repr, with indent=1, width=80, no depth
// limit and compact=False.
func pformat(v Value, limit int) (string, error) {
	p := &prettyPrinter{limit: limit}
	if err := p.format(v, 0, 0, 0, 0); err != nil {
		return "", err
	}
	return p.b.String(), nil
}

const pprintWidth = 80

type prettyPrinter struct {
	b     strings.Builder
	limit int
}

func (p *prettyPrinter) write(s string) error {
	if p.b.Len()+len(s) > p.limit {
		return errPrintSize
	}
	p.b.WriteString(s)
	return nil
}

// format is PrettyPrinter._format: v's repr if it fits the width left,
// else the form of its type.
func (p *prettyPrinter) format(v Value, indent, allowance, level, depth int) error {
	if depth > maxPrintDepth {
		return errPrintDepth
	}
	rep, err := safeRepr(v, 0)
	if err != nil {
		return err
	}
	if utf8.RuneCountInString(rep) > pprintWidth-indent-allowance {
		switch {
		case v.k == Dict:
			return p.dict(v, indent, allowance, level+1, depth)
		case v.k == List:
			return p.items(v, "[", "]", indent, allowance, level+1, depth)
		case v.k == Tuple:
			end := ")"
			if seqLen(v) == 1 {
				end = ",)"
			}
			return p.items(v, "(", end, indent, allowance, level+1, depth)
		case v.k == String && !v.isMarkup(): // Markup has a __repr__ of its own
			return p.str(v.s, indent, allowance, level+1)
		}
	}
	return p.write(rep)
}

// dict is _pprint_dict and _format_dict_items.
func (p *prettyPrinter) dict(v Value, indent, allowance, level, depth int) error {
	if err := p.write("{"); err != nil {
		return err
	}
	keys := sortedKeys(v)
	indent++
	for i, k := range keys {
		last := i == len(keys)-1
		rep, err := safeRepr(k, 0)
		if err != nil {
			return err
		}
		if err := p.write(rep + ": "); err != nil {
			return err
		}
		x, _ := dictGet(v, k)
		allow := 1
		if last {
			allow = allowance + 1
		}
		if err := p.format(x, indent+utf8.RuneCountInString(rep)+2, allow, level, depth+1); err != nil {
			return err
		}
		if !last {
			if err := p.write(",\n" + strings.Repeat(" ", indent)); err != nil {
				return err
			}
		}
	}
	return p.write("}")
}

// items is _pprint_list, _pprint_tuple and _format_items.
func (p *prettyPrinter) items(v Value, open, end string, indent, allowance, level, depth int) error {
	if err := p.write(open); err != nil {
		return err
	}
	allowance += len(end)
	indent++
	n := seqLen(v)
	for i := 0; i < n; i++ {
		if i > 0 {
			if err := p.write(",\n" + strings.Repeat(" ", indent)); err != nil {
				return err
			}
		}
		allow := 1
		if i == n-1 {
			allow = allowance
		}
		if err := p.format(seqAt(v, i), indent, allow, level, depth+1); err != nil {
			return err
		}
	}
	return p.write(end)
}

// str is _pprint_str: each line of s (its line ends kept) a literal, a
// line too long cut after runs of white space; at the top level, the
// literals in parentheses.
func (p *prettyPrinter) str(s string, indent, allowance, level int) error {
	if level == 1 {
		indent++
		allowance++
	}
	width := func(s string) int { return utf8.RuneCountInString(pyQuote(s)) }
	var chunks []string
	maxWidth1, maxWidth := pprintWidth-indent, pprintWidth-indent
	lines := pySplitLinesKeepEnds(s)
	for i, line := range lines {
		if i == len(lines)-1 {
			maxWidth1 -= allowance
		}
		if width(line) <= maxWidth1 {
			chunks = append(chunks, pyQuote(line))
			continue
		}
		parts := wordsAndSpace(line)
		maxWidth2, current := maxWidth, ""
		for j, part := range parts {
			candidate := current + part
			if j == len(parts)-1 && i == len(lines)-1 {
				maxWidth2 -= allowance
			}
			if width(candidate) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, pyQuote(current))
				}
				current = part
			} else {
				current = candidate
			}
		}
		if current != "" {
			chunks = append(chunks, pyQuote(current))
		}
	}
	if len(chunks) == 1 {
		return p.write(pyQuote(lines[len(lines)-1]))
	}
	var b strings.Builder
	if level == 1 {
		b.WriteString("(")
	}
	for i, c := range chunks {
		if i > 0 {
			b.WriteString("\n" + strings.Repeat(" ", indent))
		}
		b.WriteString(c)
	}
	if level == 1 {
		b.WriteString(")")
	}
	return p.write(b.String())
}

// pySplitLinesKeepEnds is Python's str.splitlines(True).
func pySplitLinesKeepEnds(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
		default:
			i += size
			continue
		}
		i += size
		lines = append(lines, s[start:i])
		start = i
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// wordsAndSpace is re.findall(r'\S*\s*', s) without its last, empty match:
// each run of non-space with the white space after it.
func wordsAndSpace(s string) []string {
	var parts []string
	start, inSpace := 0, false
	for i, r := range s {
		sp := pyIsSpace(r)
		if !sp && inSpace {
			parts = append(parts, s[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}

// safeRepr is PrettyPrinter._safe_repr: repr, with every dict's keys
// sorted.
func safeRepr(v Value, depth int) (string, error) {
	if depth > maxPrintDepth {
		return "", errPrintDepth
	}
	switch v.k {
	case Dict:
		keys := sortedKeys(v)
		parts := make([]string, len(keys))
		for i, k := range keys {
			kr, err := safeRepr(k, depth+1)
			if err != nil {
				return "", err
			}
			x, _ := dictGet(v, k)
			xr, err := safeRepr(x, depth+1)
			if err != nil {
				return "", err
			}
			parts[i] = kr + ": " + xr
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case List, Tuple:
		n := seqLen(v)
		parts := make([]string, n)
		for i := range n {
			r, err := safeRepr(seqAt(v, i), depth+1)
			if err != nil {
				return "", err
			}
			parts[i] = r
		}
		switch {
		case v.k == List:
			return "[" + strings.Join(parts, ", ") + "]", nil
		case n == 1:
			return "(" + parts[0] + ",)", nil
		}
		return "(" + strings.Join(parts, ", ") + ")", nil
	}
	return reprString(v)
}

// sortedKeys are a dict's keys in the order of pprint's _safe_key: by <
// where Python can compare them, else by the name of their type (then
// as they were: Python falls back on the keys' addresses).
func sortedKeys(v Value) []Value {
	keys := slices.Clone(dictKeys(v))
	slices.SortStableFunc(keys, func(a, b Value) int {
		if c, err := compare(a, b); err == nil {
			return c
		}
		return strings.Compare(pyClassName(a), pyClassName(b))
	})
	return keys
}

// pyClassName is str(type(v)) for the values that can be dict keys.
func pyClassName(v Value) string {
	switch v.k {
	case None:
		return "<class 'NoneType'>"
	case Bool:
		return "<class 'bool'>"
	case Int:
		return "<class 'int'>"
	case Float:
		return "<class 'float'>"
	case String:
		if v.isMarkup() {
			return "<class 'markupsafe.Markup'>"
		}
		return "<class 'str'>"
	case Tuple:
		return "<class 'tuple'>"
	}
	return "<class '" + typeName(v) + "'>"
}
