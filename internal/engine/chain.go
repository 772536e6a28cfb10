package engine

import "strings"

// Chains of string concatenation: a + b + c and a ~ b ~ c, which chat
// templates write around every message ('<|' + message['role'] + '|>\n'
// + message['content'] + '<|end|>\n'). Evaluated one operator at a time,
// each step would build a string only for the next step to copy it; a
// chain builds its result once. Operands are evaluated, and each step's
// memory is charged, in the order and with the errors of the steps one
// by one: only the intermediate strings are not made.

// addChainX is a left-nested chain of +: ((a + b) + c) + …, ats[i-1] the
// site of the + before items[i].
type addChainX struct {
	items []expr
	ats   []site
}

// chainAdd compiles l + r: into a chain when l is a + already.
func chainAdd(at site, l, r expr) expr {
	switch c := l.(type) {
	case *binX:
		if c.op == "+" {
			return &addChainX{items: []expr{c.l, c.r, r}, ats: []site{c.at, at}}
		}
	case *addChainX:
		return &addChainX{items: append(c.items[:len(c.items):len(c.items)], r), ats: append(c.ats[:len(c.ats):len(c.ats)], at)}
	}
	return &binX{at: at, op: "+", l: l, r: r}
}

func (x *addChainX) eval(st *state) Value { return x.run(st, nil) }

// print prints the chain: {{ '<|' + message['role'] + '|>\n' }} writes its
// strings one after another without joining them (each step charged as
// when it is joined).
func (x *addChainX) print(st *state, at *site) { x.run(st, at) }

// run evaluates the chain and, with a site, prints it.
func (x *addChainX) run(st *state, print *site) Value {
	acc := x.items[0].eval(st)
	var buf [8]string
	parts, n := buf[:0], 0 // a run of plain strings not joined yet: acc is their join
	for i := 1; i < len(x.items); i++ {
		b := x.items[i].eval(st)
		if plainString(b) && (len(parts) > 0 || plainString(acc)) {
			if len(parts) == 0 {
				parts, n = append(parts, acc.s), len(acc.s)
			}
			parts, n = append(parts, b.s), n+len(b.s)
			// What acc + b charges: the length of its result.
			st.at = &x.ats[i-1]
			st.check(&x.ats[i-1], st.charge(n))
			continue
		}
		if len(parts) > 0 {
			acc, parts = strValue(strings.Join(parts, "")), parts[:0]
		}
		acc = binary(st, &x.ats[i-1], "+", acc, b)
	}
	switch {
	case len(parts) > 0 && print != nil:
		for _, p := range parts {
			if st.WriteString(p); st.over {
				break
			}
		}
		return Value{}
	case len(parts) > 0:
		acc = strValue(strings.Join(parts, ""))
	}
	if print != nil {
		st.print(print, acc)
	}
	return acc
}

func plainString(v Value) bool { return v.k == String && v.n == 0 }
