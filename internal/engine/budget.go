package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Rendering within a token budget. A template marks what may be cut, with
// a priority: {% shrink priority=N %} blocks, {% chat … priority=N %}
// messages and {% for … shrink priority=N drop=… keep=… %} loops, whose
// items are cut from one end. The compiler numbers the marks in the order
// they stand in the template (includes where they stand) and fixes the
// cut order: lower priority first, and of equal priorities the later
// mark first; a loop's items one at a time, from the end drop= names.
//
// RenderBudget renders once, recording where each marked region's output
// starts and ends (a region's text is a span of the output, or a copy when
// it was written into a capture), and counts the result. If it fits, that
// is the result. Otherwise it walks the cut order, subtracting each cut's
// regions' counts (those inside a region already cut skipped) until the
// estimate fits — a region of a text render is counted where it stands,
// the pieces of the first count that end in it, when the Counter can say
// (Counter.Marked), else alone — renders again with those cuts (a
// dropped block or message does not run; a cut loop iterates the
// shortened list, so loop.length and loop.last are those of what is
// printed) and counts exactly. A count that differs from the estimate
// (tokens merge across a cut) moves the cut point, one cut at a time,
// then by halves: the result is the shortest prefix of the cut order whose
// render fits. The cut plan lives in the render's state; a Template is
// never changed.

// markKind is what a mark may cut.
type markKind uint8

const (
	markBlock   markKind = iota // a {% shrink %} block, dropped whole
	markMessage                 // a chat block, dropped whole
	markItems                   // a loop's items, cut from one end
)

var markKindNames = [...]string{markBlock: "block", markMessage: "message", markItems: "items"}

// markInfo is one mark of a compiled template.
type markInfo struct {
	kind      markKind
	priority  int64
	at        site
	fromStart bool // items are cut from the start (drop="start")
	keep      int
}

// mark registers a mark of the template being compiled and returns its
// number, or -1 for none.
func (c *compiler) mark(m *jinja.Mark, kind markKind, at jinja.Node) int {
	if m == nil {
		return -1
	}
	c.marks = append(c.marks, markInfo{kind: kind, priority: m.Priority, at: c.site(at),
		fromStart: m.Drop == "start", keep: int(min(m.Keep, 1<<30))})
	return len(c.marks) - 1
}

// cutOrder is the order marks are cut in: lower priority first, and of
// equal priorities the one that stands later in the template first.
func cutOrder(marks []markInfo) []int32 {
	order := make([]int32, len(marks))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		if c := cmp.Compare(marks[a].priority, marks[b].priority); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	return order
}

// Mark describes one mark of a template, for a host's report of cuts.
type Mark struct {
	Kind      string // "block", "message" or "items"
	Priority  int64
	File      string
	Line, Col int
	Drop      string // of items: "end" or "start"
	Keep      int    // of items: how many a cut loop keeps
}

// Marks returns the template's marks, numbered as Cut.Mark numbers them
// (the order they stand in the template).
func (t *Template) Marks() []Mark {
	out := make([]Mark, len(t.marks))
	for i, m := range t.marks {
		line, col := m.at.src.Position(m.at.pos)
		out[i] = Mark{Kind: markKindNames[m.kind], Priority: m.priority, File: m.at.src.Name, Line: line, Col: col}
		if m.kind == markItems {
			out[i].Drop, out[i].Keep = "end", m.keep
			if m.fromStart {
				out[i].Drop = "start"
			}
		}
	}
	return out
}

// shrinkDef is {% shrink %}: its body, unless the render's plan drops it.
type shrinkDef struct {
	mark int
	body body
}

func (d *shrinkDef) exec(st *state) flow {
	b := st.budget
	switch {
	case b == nil:
		return d.body.exec(st)
	case b.record:
		r := b.begin(st, d.mark, -1, 0)
		f := d.body.exec(st)
		b.end(st, r)
		return f
	case b.drop[d.mark]:
		return flowNext
	}
	return d.body.exec(st)
}

// budgeted runs a marked chat block in a budgeted render: recorded as a
// region, or dropped.
func (d *chatDef) budgeted(st *state) flow {
	b := st.budget
	if !b.record {
		if b.drop[d.mark] {
			return flowNext
		}
		return d.message(st)
	}
	r := b.begin(st, d.mark, -1, 0)
	f := d.message(st)
	b.end(st, r)
	return f
}

// budgetState is a budgeted render's part of the state: the regions it
// records (the first render), or the cuts it applies (the others).
type budgetState struct {
	record  bool
	regions []region
	open    []int32 // the regions being recorded, innermost last
	drop    []bool  // by mark: a block or message dropped
	cut     []int   // by mark: the items cut from each run of a loop
}

// region is one run of a marked construct, or one item of a marked loop,
// as the first render printed it.
type region struct {
	mark   int32
	parent int32 // the region it stands in, or -1
	item   int32 // a loop item's place counted from the end items are cut from; -1 for a block or message
	n      int32 // a loop item's: how many items its run had
	a, b   int   // its span of the output (a < 0: text holds it)
	text   string
}

// begin starts recording a region.
func (b *budgetState) begin(st *state, mark, item, n int) int32 {
	r := region{mark: int32(mark), parent: -1, item: int32(item), n: int32(n), a: st.out.Len()}
	if len(b.open) > 0 {
		r.parent = b.open[len(b.open)-1]
	}
	if k := len(st.caps); k > 0 {
		r.a, r.b = -1, len(st.caps[k-1])
	}
	b.regions = append(b.regions, r)
	i := int32(len(b.regions) - 1)
	b.open = append(b.open, i)
	return i
}

// end ends recording region i.
func (b *budgetState) end(st *state, i int32) {
	b.open = b.open[:len(b.open)-1]
	r := &b.regions[i]
	if r.a < 0 {
		if k := len(st.caps); k > 0 && r.b <= len(st.caps[k-1]) {
			r.text = string(st.caps[k-1][r.b:])
		}
		return
	}
	r.b = st.out.Len()
}

// items cuts a marked loop's items as the plan says, or, recording,
// reports that each item is a region.
func (b *budgetState) items(d *forDef, items iterator) (iterator, bool) {
	if b.record {
		return items, true
	}
	m := &d.markInfo
	k := min(b.cut[d.mark], items.n-m.keep)
	if k <= 0 {
		return items, false
	}
	off := 0
	if m.fromStart {
		off = k
	}
	kept := make([]Value, items.n-k)
	for i := range kept {
		kept[i] = items.at(off + i)
	}
	return iterator{vals: kept, n: len(kept)}, false
}

// item runs iteration i of n of a marked loop as a region.
func (b *budgetState) item(st *state, d *forDef, i, n int) flow {
	place := n - 1 - i
	if d.markInfo.fromStart {
		place = i
	}
	r := b.begin(st, d.mark, place, n)
	f := d.body.exec(st)
	b.end(st, r)
	return f
}

// Budgeted is the result of a render within a budget.
type Budgeted struct {
	Text     string            // the output (a text render)
	Messages []message.Message // the messages (a render of messages)
	Tokens   int               // the count of the result
	Fits     bool              // Tokens is within the budget; false when even every cut is not enough
	Cuts     []Cut             // what was cut, in the cut order
	Renders  int               // how many times the template ran
}

// Cut is one mark's cut.
type Cut struct {
	Mark  int // the mark's number in Marks()
	Items int // of a loop's items: how many were cut from each run
	// Tokens is what the cut saved, as the first render printed it: the
	// count of each region cut, where it stood (Counter.Marked) or alone
	// (a region inside one cut before it is not counted again). Counted
	// whole, the result may differ by a token or so a cut, where tokens
	// merged across it.
	Tokens int
}

// unit is one step of the cut order: a mark, or one item of a loop.
type unit struct {
	mark int32
	item int32 // -1 for a block or message
}

// Counter counts tokens for RenderBudget.
type Counter struct {
	Count func(text string) int
	// Marked, when not nil, counts text as Count does and in the same pass
	// the tokens before each of marks (ascending byte offsets: the pieces
	// of the whole text that end at or before each), appended to dst; ok
	// false when it cannot, and Count counts. With it, a text render's
	// regions are counted where they stand, from the first count, rather
	// than each again alone (tokens.Tokenizer.CountMarked).
	Marked func(text string, marks, dst []int) (n int, at []int, ok bool)
}

// RenderBudget renders within budget tokens as c counts them: a text
// render, or with chat a render of messages, whose count is the sum of
// its text parts' counts. See the top of this file for how.
func (t *Template) RenderBudget(ctx context.Context, vals []any, lim *Limits, chat bool, c Counter, budget int) (*Budgeted, error) {
	count := c.Count
	rec := &budgetState{record: true}
	out, msgs, err := t.render(ctx, vals, lim, chat, rec)
	if err != nil {
		return nil, err
	}
	measure := func(out string, msgs []message.Message) int {
		if !chat {
			return count(out)
		}
		n := 0
		for _, m := range msgs {
			for _, p := range m.Parts {
				if p.Type == message.PartText {
					n += count(p.Text)
				}
			}
		}
		return n
	}
	res := &Budgeted{Text: out, Messages: msgs, Renders: 1}
	var at map[int]int // by offset of out: the tokens before it, when Marked counted
	if !chat && c.Marked != nil && len(rec.regions) > 0 {
		marks := make([]int, 0, 2*len(rec.regions))
		for _, r := range rec.regions {
			if r.a >= 0 {
				marks = append(marks, r.a, r.b)
			}
		}
		slices.Sort(marks)
		marks = slices.Compact(marks)
		if n, before, ok := c.Marked(out, marks, nil); ok {
			res.Tokens, at = n, make(map[int]int, len(marks))
			for i, m := range marks {
				at[m] = before[i]
			}
		}
	}
	if at == nil {
		res.Tokens = measure(out, msgs)
	}
	if res.Tokens <= budget {
		res.Fits = true
		return res, nil
	}
	p := newPlanner(t, rec, out, count)
	p.at = at
	if len(p.units) == 0 {
		return res, nil
	}
	tried := map[int]*Budgeted{}
	try := func(k int) (*Budgeted, error) {
		if r := tried[k]; r != nil {
			return r, nil
		}
		cut := &budgetState{drop: make([]bool, len(t.marks)), cut: make([]int, len(t.marks))}
		for _, u := range p.units[:k] {
			if u.item < 0 {
				cut.drop[u.mark] = true
			} else {
				cut.cut[u.mark] = int(u.item) + 1
			}
		}
		out, msgs, err := t.render(ctx, vals, lim, chat, cut)
		if err != nil {
			return nil, err
		}
		res.Renders++
		r := &Budgeted{Text: out, Messages: msgs, Tokens: measure(out, msgs)}
		r.Fits = r.Tokens <= budget
		tried[k] = r
		return r, nil
	}
	// The estimate: cuts in order until the counts left fit.
	est, k0 := res.Tokens, 0
	for k0 < len(p.units) && est > budget {
		est -= p.saving(k0)
		k0++
	}
	lo, hi := 0, -1 // the prefix lo is known not to fit, hi to fit
	r, err := try(k0)
	if err != nil {
		return nil, err
	}
	if r.Fits {
		hi = k0
	} else {
		lo = k0
	}
	// Too few cuts: one more, then twice as many more, up to all of them.
	for step := 1; hi < 0; step *= 2 {
		next := min(lo+step, len(p.units))
		r, err := try(next)
		if err != nil {
			return nil, err
		}
		if r.Fits {
			hi = next
		} else if lo = next; next == len(p.units) {
			return p.result(res, r, next), nil // even every cut is not enough
		}
	}
	// Perhaps too many: the last cut undone, then by halves. The prefix
	// without the last cut is always rendered and counted, never judged
	// from an estimate: tokens merge across a cut in ways no bound on a
	// region's count foresees ("A" + "nthropi" + "c"), and the result must
	// be a prefix that fits whose one-shorter prefix does not.
	for first := true; hi-lo > 1; first = false {
		mid := (lo + hi) / 2
		if first {
			mid = hi - 1
		}
		r, err := try(mid)
		if err != nil {
			return nil, err
		}
		if r.Fits {
			hi = mid
		} else {
			lo = mid
		}
	}
	return p.result(res, tried[hi], hi), nil
}

// planner holds what the first render recorded and the cut order over
// it.
type planner struct {
	t       *Template
	rec     *budgetState
	out     string
	count   func(string) int
	at      map[int]int // by offset of out: the tokens before it, as the whole output counted; nil: count each region alone
	units   []unit
	byUnit  map[unit][]int32 // each unit's regions
	tokens  []int            // each region's count, -1 until counted
	cut     []bool           // regions cut by the units walked
	inside  []int            // each region: what the cuts inside it saved
	saved   []int            // each unit walked: what it saves
	covered []bool           // each unit walked: every region of it was inside a region cut before
}

func newPlanner(t *Template, rec *budgetState, out string, count func(string) int) *planner {
	p := &planner{t: t, rec: rec, out: out, count: count, byUnit: map[unit][]int32{},
		tokens: make([]int, len(rec.regions)), cut: make([]bool, len(rec.regions)), inside: make([]int, len(rec.regions))}
	most := make([]int, len(t.marks)) // of a loop: the most items any run may lose
	for i, r := range rec.regions {
		p.tokens[i] = -1
		u := unit{mark: r.mark, item: r.item}
		if r.item >= 0 {
			m := t.marks[r.mark]
			if int(r.item) >= int(r.n)-m.keep {
				continue // an item the loop always keeps
			}
			most[r.mark] = max(most[r.mark], int(r.item)+1)
		}
		p.byUnit[u] = append(p.byUnit[u], int32(i))
	}
	for _, m := range t.order {
		if t.marks[m].kind == markItems {
			for j := 0; j < most[m]; j++ {
				p.units = append(p.units, unit{mark: m, item: int32(j)})
			}
		} else if p.byUnit[unit{mark: m, item: -1}] != nil {
			p.units = append(p.units, unit{mark: m, item: -1})
		}
	}
	return p
}

// saving walks unit k (units are walked in order) and returns what it
// saves: its regions not inside a region cut before, counted, less what
// the cuts inside them saved before.
func (p *planner) saving(k int) int {
	for len(p.saved) <= k {
		i := len(p.saved)
		n, covered := 0, true
		for _, r := range p.byUnit[p.units[i]] {
			if p.inCut(r) {
				continue
			}
			covered = false
			s := p.regionTokens(r) - p.inside[r]
			n += s
			for a := p.rec.regions[r].parent; a >= 0; a = p.rec.regions[a].parent {
				p.inside[a] += s
			}
		}
		for _, r := range p.byUnit[p.units[i]] {
			p.cut[r] = true
		}
		p.saved = append(p.saved, n)
		p.covered = append(p.covered, covered)
	}
	return p.saved[k]
}

// inCut reports whether region r stands inside a region cut.
func (p *planner) inCut(r int32) bool {
	for r = p.rec.regions[r].parent; r >= 0; r = p.rec.regions[r].parent {
		if p.cut[r] {
			return true
		}
	}
	return false
}

func (p *planner) regionTokens(i int32) int {
	if p.tokens[i] < 0 {
		r := &p.rec.regions[i]
		switch {
		case r.a >= 0 && p.at != nil:
			p.tokens[i] = p.at[r.b] - p.at[r.a] // where it stands: the pieces that end in it
		case r.a >= 0:
			p.tokens[i] = p.count(p.out[r.a:r.b])
		default:
			p.tokens[i] = p.count(r.text)
		}
	}
	return p.tokens[i]
}

// result is the render r of the prefix k of the cut order, with its cuts.
func (p *planner) result(first, r *Budgeted, k int) *Budgeted {
	r.Renders = first.Renders
	p.saving(k - 1)
	var cuts []Cut
	for i, u := range p.units[:k] {
		if p.covered[i] {
			continue // inside a cut before it: it changed nothing
		}
		if n := len(cuts); u.item > 0 && n > 0 && cuts[n-1].Mark == int(u.mark) {
			cuts[n-1].Items++
			cuts[n-1].Tokens += p.saved[i]
			continue
		}
		c := Cut{Mark: int(u.mark), Tokens: p.saved[i]}
		if u.item >= 0 {
			c.Items = 1
		}
		cuts = append(cuts, c)
	}
	r.Cuts = cuts
	return r
}
