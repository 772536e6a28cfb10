package tokens

import "math"

// Byte-pair encoding merges the symbols of one piece, pair by pair, lowest
// rank first and leftmost first among equal ranks, until no adjacent pair
// has a rank. Two vocabularies rank pairs differently:
//
//   - tiktoken's (the OpenAI encodings) ranks a pair by the rank of the
//     bytes the two parts make together: rankedBytes.
//   - tokenizer.json's BPE ranks a pair of tokens by its line in the list
//     of merges: mergeTable.
//
// A piece of up to shortPiece symbols merges by scanning its pairs (as
// tiktoken does), a longer one through a heap, so a long run of one
// character costs O(n log n), not O(n²).

const (
	noRank     = math.MaxInt32
	shortPiece = 96
)

// rankedBytes is tiktoken's vocabulary: a token's bytes to its rank, which
// is its id. Tokens of up to 7 bytes (most of them, and every lookup of a
// short merge) are also in an open-addressing table keyed by the bytes
// packed into an integer: a merge loop looks ranks up many times per byte,
// and a lookup there is a multiplication and, mostly, one cache line,
// where a Go map hashes and compares a string.
type rankedBytes struct {
	m     map[string]int32
	short []packedSlot
	shift uint
}

type packedSlot struct {
	key  uint64 // packBytes of the token; 0: empty
	rank int32
}

// packBytes packs up to 7 bytes and their length into a nonzero integer.
func packBytes(s string) uint64 {
	k := uint64(len(s)) << 56
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

func newRankedBytes(m map[string]int32) *rankedBytes {
	n := 0
	for tok := range m {
		if len(tok) <= 7 {
			n++
		}
	}
	bits := uint(1)
	for 1<<bits < 2*n {
		bits++
	}
	v := &rankedBytes{m: m, short: make([]packedSlot, 1<<bits), shift: 64 - bits}
	for tok, r := range m {
		if len(tok) > 7 {
			continue
		}
		k := packBytes(tok)
		i := (k * 0x9E3779B97F4A7C15) >> v.shift
		for v.short[i].key != 0 {
			i = (i + 1) & uint64(len(v.short)-1)
		}
		v.short[i] = packedSlot{k, r}
	}
	return v
}

// rank returns the rank of the token whose bytes are s.
func (v *rankedBytes) rank(s string) (int32, bool) {
	if len(s) > 7 {
		r, ok := v.m[s]
		return r, ok
	}
	k := packBytes(s)
	mask := uint64(len(v.short) - 1)
	for i := (k * 0x9E3779B97F4A7C15) >> v.shift; ; i = (i + 1) & mask {
		switch v.short[i].key {
		case k:
			return v.short[i].rank, true
		case 0:
			return 0, false
		}
	}
}

type span struct{ start, rank int32 }

// encode appends the ids of piece to dst.
func (v *rankedBytes) encode(piece string, dst []int32) []int32 {
	if id, ok := v.rank(piece); ok {
		return append(dst, id)
	}
	if len(piece) > shortPiece {
		return v.encodeLong(piece, dst)
	}
	var buf [shortPiece + 1]span
	parts := buf[:len(piece)+1]
	for i := range parts {
		parts[i] = span{int32(i), noRank}
	}
	rank := func(i, skip int) int32 {
		if i+skip+2 < len(parts) {
			if r, ok := v.rank(piece[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return noRank
	}
	for i := 0; i+2 < len(parts); i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		min, at := int32(noRank), 0
		for i, p := range parts[:len(parts)-1] {
			if p.rank < min {
				min, at = p.rank, i
			}
		}
		if min == noRank {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	for i := 0; i+1 < len(parts); i++ {
		r, _ := v.rank(piece[parts[i].start:parts[i+1].start])
		dst = append(dst, r)
	}
	return dst
}

// node is a symbol of a long piece, in a doubly linked list: its start in
// the piece, its neighbours (-1 at the ends), its id (mergeTable) and the
// rank of merging it with the next.
type node struct{ start, prev, next, id, rank int32 }

func (v *rankedBytes) encodeLong(piece string, dst []int32) []int32 {
	n := int32(len(piece))
	nodes := make([]node, n+1)
	for i := range nodes {
		nodes[i] = node{start: int32(i), prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) int32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		if r, ok := v.rank(piece[i:nodes[nodes[j].next].start]); ok {
			return r
		}
		return noRank
	}
	h := make(mergeHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := rankOf(i); r != noRank {
			nodes[i].rank = r
			h = append(h, candidate{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.at
		if nodes[i].rank != top.rank || nodes[i].next < 0 {
			continue // stale
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[j].prev = -2 // removed
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankOf(b)
			if nodes[b].rank != noRank {
				h.push(candidate{nodes[b].rank, b})
			}
		}
	}
	for i := int32(0); nodes[i].next >= 0; i = nodes[i].next {
		r, _ := v.rank(piece[i:nodes[nodes[i].next].start])
		dst = append(dst, r)
	}
	return dst
}

// mergeTable is tokenizer.json's list of merges: a pair of token ids to its
// rank (its line) and the id of the token it makes.
type mergeTable map[uint64]merged

type merged struct{ rank, id int32 }

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// sym is a symbol of a piece under a mergeTable: its id (negative when the
// symbol is not in the vocabulary) and its start in the piece.
type sym struct{ id, start, rank, id2 int32 }

// merge merges syms (a piece's symbols, then a sentinel whose start is the
// piece's length) and returns the final symbols, with the sentinel.
func (m mergeTable) merge(syms []sym) []sym {
	if len(syms) > shortPiece+1 {
		return m.mergeLong(syms)
	}
	rank := func(i int) {
		syms[i].rank, syms[i].id2 = noRank, -1
		if i+2 < len(syms) && syms[i].id >= 0 && syms[i+1].id >= 0 {
			if mg, ok := m[pairKey(syms[i].id, syms[i+1].id)]; ok {
				syms[i].rank, syms[i].id2 = mg.rank, mg.id
			}
		}
	}
	for i := 0; i+1 < len(syms); i++ {
		rank(i)
	}
	for len(syms) > 2 {
		min, at := int32(noRank), 0
		for i, p := range syms[:len(syms)-1] {
			if p.rank < min {
				min, at = p.rank, i
			}
		}
		if min == noRank {
			break
		}
		syms[at].id = syms[at].id2
		syms = append(syms[:at+1], syms[at+2:]...)
		rank(at)
		if at > 0 {
			rank(at - 1)
		}
	}
	return syms
}

func (m mergeTable) mergeLong(syms []sym) []sym {
	n := int32(len(syms) - 1)
	nodes := make([]node, n+1)
	for i := range nodes {
		nodes[i] = node{start: syms[i].start, prev: int32(i) - 1, next: int32(i) + 1, id: syms[i].id, rank: noRank}
	}
	nodes[n].next = -1
	ids := make([]int32, n+1) // the id a node's merge with its next makes
	rankOf := func(i int32) int32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 || nodes[i].id < 0 || nodes[j].id < 0 {
			return noRank
		}
		if mg, ok := m[pairKey(nodes[i].id, nodes[j].id)]; ok {
			ids[i] = mg.id
			return mg.rank
		}
		return noRank
	}
	h := make(mergeHeap, 0, n)
	for i := int32(0); i+1 < n; i++ {
		if r := rankOf(i); r != noRank {
			nodes[i].rank = r
			h = append(h, candidate{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.at
		if nodes[i].rank != top.rank || nodes[i].next < 0 {
			continue
		}
		j := nodes[i].next
		nodes[i].id = ids[i]
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankOf(b)
			if nodes[b].rank != noRank {
				h.push(candidate{nodes[b].rank, b})
			}
		}
	}
	out := syms[:0]
	for i := int32(0); i >= 0; i = nodes[i].next {
		out = append(out, sym{id: nodes[i].id, start: nodes[i].start})
	}
	return out
}

// candidate is a pair in the heap: its rank and the node it starts at.
type candidate struct{ rank, at int32 }

// mergeHeap is a binary min-heap by rank, then position, so that among
// equal ranks the leftmost pair merges first (positions only grow left to
// right in the list, so a node's index orders it).
type mergeHeap []candidate

func (h mergeHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].at < h[b].at
}

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(c candidate) {
	*h = append(*h, c)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		(*h)[i], (*h)[p] = (*h)[p], (*h)[i]
		i = p
	}
}

func (h *mergeHeap) pop() candidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h mergeHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && h.less(r, c) {
			c = r
		}
		if !h.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
