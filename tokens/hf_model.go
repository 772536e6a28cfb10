package tokens

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// bpeModel is tokenizer.json's BPE model. A byte-level model (its
// pre-tokenizer ends with ByteLevel) keeps its vocabulary as the raw bytes
// its tokens stand for, so the text is never mapped to GPT-2's byte
// alphabet and back; any other keeps the vocabulary's text.
type bpeModel struct {
	vocab        map[string]int32 // a token's text (raw bytes when byteLevel) → id; added tokens' contents over it, as the reference sets them
	byteLevel    bool
	byteIDs      [256]int32 // byteLevel: the id of each byte alone (-1: none)
	merges       mergeTable
	ignoreMerges bool
	byteFallback bool
	fallback     [256]int32 // byteFallback: the id of <0xHH> (-1: none)
	unk          int32      // -1: no unknown token
	wordSplit    bool       // no merge joins a symbol to a ▁ after it (appendIDs)
	// whole memoizes, per token id of a byte-level model, whether the piece
	// that is the token's text merges into it alone (isWhole): the fast
	// path of every frequent word. It is the only state that changes after
	// load; each entry goes once from unknown to yes or no, the same answer
	// whichever goroutine computes it.
	whole []atomic.Uint32
}

// maxTokenID bounds a tokenizer.json's ids (the largest vocabularies have
// about 260,000 tokens), so that a file cannot make promptkit allocate
// tables for billions.
const maxTokenID = 1 << 24

// byteAlphabet maps GPT-2's byte-to-character alphabet back to bytes.
var byteAlphabet = func() map[rune]byte {
	m := make(map[rune]byte, 256)
	n := 0
	for b := 0; b < 256; b++ {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b && b <= 0xFF {
			m[rune(b)] = byte(b)
		} else {
			m[rune(256+n)] = byte(b)
			n++
		}
	}
	return m
}()

// unByteLevel returns the bytes a byte-level token stands for, or false
// when it has a character outside the alphabet (no text makes it).
func unByteLevel(tok string) (string, bool) {
	var b strings.Builder
	b.Grow(len(tok))
	for _, r := range tok {
		c, ok := byteAlphabet[r]
		if !ok {
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

func (b *hfBuilder) bpe(m *modelJSON, byteLevel bool, added []addedTokenJSON) *bpeModel {
	if b.err != nil {
		return nil
	}
	switch {
	case m.Type != "BPE" && m.Type != "":
		b.unsupported("model", m.Type, "implemented: BPE")
		return nil
	case m.Type == "" && len(m.Merges) == 0:
		b.unsupported("model", "without a type or merges", "implemented: BPE")
		return nil
	case m.Dropout != nil && *m.Dropout != 0:
		b.unsupported("model.dropout", fmt.Sprint(*m.Dropout), "dropout makes encoding random")
		return nil
	case m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "":
		b.unsupported("model.continuing_subword_prefix", fmt.Sprintf("%q", *m.ContinuingSubwordPrefix), "")
		return nil
	case m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "":
		b.unsupported("model.end_of_word_suffix", fmt.Sprintf("%q", *m.EndOfWordSuffix), "")
		return nil
	case byteLevel && m.ByteFallback:
		b.unsupported("model.byte_fallback", "with a ByteLevel pre-tokenizer", "")
		return nil
	case len(m.Vocab) == 0:
		b.invalid("model.vocab is empty")
		return nil
	}
	bm := &bpeModel{
		vocab:        make(map[string]int32, len(m.Vocab)+len(added)),
		byteLevel:    byteLevel,
		ignoreMerges: m.IgnoreMerges,
		byteFallback: m.ByteFallback,
		unk:          -1,
		merges:       make(mergeTable, len(m.Merges)),
	}
	key := func(tok string) (string, bool) {
		if byteLevel {
			return unByteLevel(tok)
		}
		return tok, true
	}
	maxID := int32(0)
	for tok, id := range m.Vocab {
		if k, ok := key(tok); ok {
			bm.vocab[k] = id
		}
		maxID = max(maxID, id)
	}
	for _, t := range added {
		if k, ok := key(t.Content); ok {
			bm.vocab[k] = t.ID
		}
		maxID = max(maxID, t.ID)
	}
	if maxID >= maxTokenID {
		b.invalid("a token id of %d: ids are below %d", maxID, maxTokenID)
		return nil
	}
	for i := range 256 {
		bm.byteIDs[i], bm.fallback[i] = -1, -1
		if id, ok := bm.vocab[string([]byte{byte(i)})]; ok && byteLevel {
			bm.byteIDs[i] = id
		}
		if id, ok := bm.vocab[fmt.Sprintf("<0x%02X>", i)]; ok {
			bm.fallback[i] = id
		}
	}
	if m.UnkToken != nil {
		if id, ok := m.Vocab[*m.UnkToken]; ok {
			bm.unk = id
		}
	}
	crossing := false // a merge joins a symbol to a ▁ after it
	for i, mp := range m.Merges {
		l, r := mp.l, mp.r
		if !mp.ok {
			b.invalid("model.merges[%d]: %q is not a pair of tokens", i, mp.l)
			return nil
		}
		kl, okl := key(l)
		kr, okr := key(r)
		if !okl || !okr {
			continue // a merge no text reaches
		}
		idl, okl := bm.vocab[kl]
		idr, okr := bm.vocab[kr]
		if !okl || !okr {
			b.invalid("model.merges[%d]: %q or %q is not in the vocabulary", i, l, r)
			return nil
		}
		id, ok := bm.vocab[kl+kr]
		if !ok {
			id = -1
		}
		bm.merges[pairKey(idl, idr)] = merged{rank: int32(i), id: id} // a later duplicate wins, as in the reference
		if !strings.HasSuffix(kl, "\u2581") && strings.HasPrefix(kr, "\u2581") {
			crossing = true
		}
	}
	bm.wordSplit = !byteLevel && !crossing
	if byteLevel {
		bm.whole = make([]atomic.Uint32, maxID+1)
	}
	return bm
}

// appendIDs appends the ids of one piece to dst.
func (m *bpeModel) appendIDs(dst []int32, piece string) []int32 {
	if m.ignoreMerges {
		if id, ok := m.vocab[piece]; ok {
			return append(dst, id)
		}
	}
	if !m.wordSplit {
		return m.appendWord(dst, piece)
	}
	// No merge joins a symbol to a ▁ after it: each stretch from one word's
	// ▁ to the next merges alone, to the same tokens, in a fraction of the
	// time a whole unsplit text takes.
	start := 0
	for i := 1; i < len(piece); {
		_, n := utf8.DecodeRuneInString(piece[i:])
		if strings.HasPrefix(piece[i:], "\u2581") && !strings.HasSuffix(piece[:i], "\u2581") {
			dst = m.appendWord(dst, piece[start:i])
			start = i
		}
		i += n
	}
	return m.appendWord(dst, piece[start:])
}

// appendWord merges one piece (or one word of it) and appends its ids.
func (m *bpeModel) appendWord(dst []int32, piece string) []int32 {
	if m.byteLevel {
		if id, ok := m.vocab[piece]; ok && m.isWhole(id, piece) {
			return append(dst, id)
		}
	}
	var buf [shortPiece + 2]sym
	syms := buf[:0]
	if m.byteLevel {
		for i := 0; i < len(piece); i++ {
			syms = append(syms, sym{id: m.byteIDs[piece[i]], start: int32(i)})
		}
	} else {
		for i := 0; i < len(piece); {
			_, n := utf8.DecodeRuneInString(piece[i:])
			id, ok := m.vocab[piece[i:i+n]]
			if !ok {
				id = -1
			}
			syms = append(syms, sym{id: id, start: int32(i)})
			i += n
		}
	}
	syms = append(syms, sym{start: int32(len(piece))})
	syms = m.merges.merge(syms)
	for i := 0; i+1 < len(syms); i++ {
		text := piece[syms[i].start:syms[i+1].start]
		switch id := syms[i].id; {
		case id >= 0:
			dst = append(dst, id)
		case m.byteFallback && m.hasFallback(text):
			for j := 0; j < len(text); j++ {
				dst = append(dst, m.fallback[text[j]])
			}
		case m.unk >= 0:
			dst = append(dst, m.unk)
		}
	}
	return dst
}

// isWhole reports whether a piece that is token id's text merges into that
// one token (a vocabulary may hold tokens its merges never make). Each
// token is merged once, the first time a piece is it, and the answer kept.
func (m *bpeModel) isWhole(id int32, piece string) bool {
	if int(id) >= len(m.whole) || id < 0 {
		return false
	}
	switch m.whole[id].Load() {
	case wholeYes:
		return true
	case wholeNo:
		return false
	}
	var buf [shortPiece + 2]sym
	syms := buf[:0]
	for i := 0; i < len(piece); i++ {
		syms = append(syms, sym{id: m.byteIDs[piece[i]], start: int32(i)})
	}
	syms = m.merges.merge(append(syms, sym{start: int32(len(piece))}))
	yes := len(syms) == 2 && syms[0].id == id
	if yes {
		m.whole[id].Store(wholeYes)
	} else {
		m.whole[id].Store(wholeNo)
	}
	return yes
}

const (
	wholeUnknown = iota
	wholeYes
	wholeNo
)

func (m *bpeModel) hasFallback(text string) bool {
	for i := 0; i < len(text); i++ {
		if m.fallback[text[i]] < 0 {
			return false
		}
	}
	return true
}
