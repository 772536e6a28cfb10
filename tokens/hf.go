package tokens

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// A tokenizer.json (Hugging Face tokenizers) encodes in four steps, which
// hf.go follows as the reference (@huggingface/tokenizers, the JavaScript
// port the test vectors come from) does:
//
//  1. added tokens: the text is cut at every added token whose
//     "normalized" is false (longest match at the earliest position); each
//     cut is one id. lstrip/rstrip take the whitespace beside it.
//  2. normalizer: each stretch between them is normalized (NFC, Prepend,
//     Replace, Sequence…), then cut again at the added tokens whose
//     "normalized" is true, matched in their normalized form.
//  3. pre-tokenizer: each stretch is split into pieces (Split with one of
//     the patterns of pretokenize.go, ByteLevel, Metaspace, Digits,
//     Sequence).
//  4. model: BPE merges each piece by the ranks of its merges; a symbol
//     outside the vocabulary becomes its bytes (<0x41>) with byte_fallback,
//     else the unknown token.
//
// The post-processor (a BOS token added in front) is not applied: Count
// counts the text's own tokens, as encode(text, add_special_tokens=False)
// does, which is also how transformers tokenizes a rendered chat template.

// maxTokenizerFile bounds what ReadFile and Open read (a tokenizer.json of
// a 256k vocabulary is about 35 MB).
const maxTokenizerFile = 128 << 20

// Open returns the Tokenizer spec names: an encoding's name (o200k_base)
// or the path of a tokenizer.json (also gzip-compressed, .json.gz).
func Open(spec string) (*Tokenizer, error) {
	if _, ok := loaders[spec]; ok {
		return Encoding(spec)
	}
	if !strings.ContainsAny(spec, `/\`) && !strings.HasSuffix(spec, ".json") && !strings.HasSuffix(spec, ".gz") {
		return nil, unknown(spec, Encodings())
	}
	data, err := readLimited(os.Open(spec))
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	return ParseJSON(spec, data)
}

// ReadFile reads the tokenizer.json (or .json.gz) at name in fsys.
func ReadFile(fsys fs.FS, name string) (*Tokenizer, error) {
	data, err := readLimited(fsys.Open(name))
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	return ParseJSON(name, data)
}

func readLimited(f fs.File, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenizerFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxTokenizerFile {
		return nil, fmt.Errorf("tokenizer file larger than %d MB", maxTokenizerFile>>20)
	}
	return data, nil
}

// ParseJSON reads a tokenizer.json (or its gzip), named name in errors.
// A model, normalizer or pre-tokenizer promptkit does not implement is an
// *UnsupportedError naming it: promptkit never counts approximately.
func ParseJSON(name string, data []byte) (*Tokenizer, error) {
	if len(data) > 18 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
		}
		var buf bytes.Buffer
		if size := binary.LittleEndian.Uint32(data[len(data)-4:]); size <= maxTokenizerFile {
			buf.Grow(int(size) + bytes.MinRead) // gzip's trailer: the size, modulo 2³²
		}
		_, err = buf.ReadFrom(io.LimitReader(zr, maxTokenizerFile+1))
		data = buf.Bytes()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
		}
		if len(data) > maxTokenizerFile {
			return nil, fmt.Errorf("%w: %s: larger than %d MB uncompressed", ErrInvalid, name, maxTokenizerFile>>20)
		}
	}
	var f tokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	b := &hfBuilder{file: name}
	enc := b.build(&f)
	if b.err != nil {
		return nil, b.err
	}
	return &Tokenizer{name: name, enc: enc}, nil
}

type tokenizerFile struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	Model         modelJSON        `json:"model"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
}

type addedTokenJSON struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
}

type modelJSON struct {
	Type                    string     `json:"type"`
	Dropout                 *float64   `json:"dropout"`
	UnkToken                *string    `json:"unk_token"`
	ContinuingSubwordPrefix *string    `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string    `json:"end_of_word_suffix"`
	ByteFallback            bool       `json:"byte_fallback"`
	IgnoreMerges            bool       `json:"ignore_merges"`
	Vocab                   vocabJSON  `json:"vocab"`
	Merges                  mergesJSON `json:"merges"`
}

// hf is an encoder built from a tokenizer.json.
type hf struct {
	raw, norm  *trie            // added tokens matched before, and after, normalizing
	added      map[string]int32 // every added token's content (and normalized content) → id
	addedStrip map[string][2]bool
	normalize  func(string) string // nil: none
	steps      []preStep
	single     matcher // the one step that cuts, when the others change nothing (Split, then ByteLevel without a split)
	model      *bpeModel
}

type hfBuilder struct {
	file string
	err  error
}

func (b *hfBuilder) unsupported(part, kind, detail string) {
	if b.err == nil {
		b.err = &UnsupportedError{File: b.file, Part: part, Kind: kind, Detail: detail}
	}
}

func (b *hfBuilder) invalid(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("%w: %s: %s", ErrInvalid, b.file, fmt.Sprintf(format, args...))
	}
}

func (b *hfBuilder) build(f *tokenizerFile) *hf {
	h := &hf{added: map[string]int32{}, addedStrip: map[string][2]bool{}}
	h.normalize = b.normalizer(f.Normalizer, "normalizer")
	byteLevel := false
	h.steps, byteLevel = b.preTokenizer(f.PreTokenizer)
	h.single = singleMatcher(h.steps)
	h.model = b.bpe(&f.Model, byteLevel, f.AddedTokens)
	if b.err != nil {
		return nil
	}
	var raw, norm []string
	for _, t := range f.AddedTokens {
		if t.SingleWord {
			// The JavaScript reference ignores single_word, Rust's honours
			// it: the two disagree, so promptkit cannot be exact.
			b.unsupported("added_tokens", fmt.Sprintf("%q with single_word true", t.Content), "the reference implementations disagree on it")
			return nil
		}
		h.added[t.Content] = t.ID
		h.addedStrip[t.Content] = [2]bool{t.LStrip, t.RStrip}
		normalized := !t.Special
		if t.Normalized != nil {
			normalized = *t.Normalized
		}
		if normalized && h.normalize != nil {
			nc := h.normalize(t.Content)
			h.added[nc] = t.ID
			h.addedStrip[nc] = [2]bool{t.LStrip, t.RStrip}
			norm = append(norm, nc)
		} else {
			raw = append(raw, t.Content)
		}
	}
	h.raw, h.norm = newTrie(raw), newTrie(norm)
	return h
}

// normalizer returns the function of a normalizer's JSON, nil for none.
func (b *hfBuilder) normalizer(raw json.RawMessage, where string) func(string) string {
	if isNull(raw) {
		return nil
	}
	var n struct {
		Type        string            `json:"type"`
		Normalizers []json.RawMessage `json:"normalizers"`
		Prepend     string            `json:"prepend"`
		Pattern     patternJSON       `json:"pattern"`
		Content     string            `json:"content"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		b.invalid("%s: %v", where, err)
		return nil
	}
	switch n.Type {
	case "NFC", "NFD", "NFKC", "NFKD":
		return unicodeForm(n.Type)
	case "Prepend":
		p := n.Prepend
		return func(s string) string { return p + s }
	case "Replace":
		if n.Pattern.String == nil {
			b.unsupported(where, "Replace with a Regex pattern", "only a String pattern is")
			return nil
		}
		if strings.Contains(n.Content, "$") {
			b.unsupported(where, fmt.Sprintf("Replace with content %q", n.Content), "JavaScript's replaceAll reads $ as a substitution")
			return nil
		}
		old, repl := *n.Pattern.String, n.Content
		if old == "" {
			b.unsupported(where, "Replace of the empty string", "")
			return nil
		}
		return func(s string) string { return strings.ReplaceAll(s, old, repl) }
	case "Sequence":
		var fs []func(string) string
		for i, sub := range n.Normalizers {
			f := b.normalizer(sub, fmt.Sprintf("%s.normalizers[%d]", where, i))
			if b.err != nil {
				return nil
			}
			if f != nil {
				fs = append(fs, f)
			}
		}
		return func(s string) string {
			for _, f := range fs {
				s = f(s)
			}
			return s
		}
	}
	b.unsupported(where, n.Type, "implemented: NFC, NFD, NFKC, NFKD, Prepend, Replace (String), Sequence")
	return nil
}

type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// singleMatcher returns the matcher of steps when they are one Split,
// alone or before a ByteLevel that neither adds a space nor splits.
func singleMatcher(steps []preStep) matcher {
	switch {
	case len(steps) == 1:
		if sp, ok := steps[0].(splitStep); ok {
			return sp.m
		}
	case len(steps) == 2:
		sp, ok := steps[0].(splitStep)
		if bl, ok2 := steps[1].(byteLevelStep); ok && ok2 && !bl.prefixSpace && !bl.split {
			return sp.m
		}
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// encode runs the four steps over text, appending the ids to dst; with
// count, it keeps none and returns their number.
func (h *hf) encode(text string, dst []int32, count bool) ([]int32, int) {
	n := 0
	var a, b []string // the pieces of the pre-tokenizer's steps
	sections := h.raw.split(text)
	h.strip(sections)
	for si, sec := range sections {
		if sec == "" {
			continue
		}
		if id, ok := h.added[sec]; ok {
			dst = append(dst, id)
			continue
		}
		if h.normalize != nil {
			sec = h.normalize(sec)
		}
		if sec == "" {
			continue
		}
		subs := h.norm.split(sec)
		h.strip(subs)
		for _, sub := range subs {
			if sub == "" {
				continue
			}
			if id, ok := h.added[sub]; ok {
				dst = append(dst, id)
				continue
			}
			if h.single != nil {
				dst, n = h.encodeSingle(sub, dst, n, count)
				continue
			}
			a = append(a[:0], sub)
			for _, step := range h.steps {
				b = b[:0]
				for _, p := range a {
					if p != "" {
						b = step.appendPieces(b, p, si)
					}
				}
				a, b = b, a
			}
			for _, p := range a {
				if p != "" {
					dst = h.model.appendIDs(dst, p)
				}
			}
			if count {
				n += len(dst)
				dst = dst[:0]
			}
		}
	}
	return dst, n + len(dst)
}

// encodeSingle pre-tokenizes with one matcher (h.single) and encodes each
// piece as it is found, without a list of the pieces.
func (h *hf) encodeSingle(s string, dst []int32, n int, count bool) ([]int32, int) {
	piece := func(p string) {
		dst = h.model.appendIDs(dst, p)
		if count {
			n += len(dst)
			dst = dst[:0]
		}
	}
	gap := 0
	for i := 0; i < len(s); {
		if e := h.single(s, i); e > i {
			if gap < i {
				piece(s[gap:i])
			}
			piece(s[i:e])
			i, gap = e, e
			continue
		}
		_, k := class(s, i)
		i += k
	}
	if gap < len(s) {
		piece(s[gap:])
	}
	return dst, n
}

// strip applies lstrip and rstrip of the added tokens among parts to their
// neighbours, as the reference does (JavaScript's trimEnd and trimStart).
func (h *hf) strip(parts []string) {
	if len(h.addedStrip) == 0 {
		return
	}
	for i, p := range parts {
		st, ok := h.addedStrip[p]
		if !ok {
			continue
		}
		if st[0] && i > 0 {
			parts[i-1] = trimJSSpace(parts[i-1], false)
		}
		if st[1] && i+1 < len(parts) {
			parts[i+1] = trimJSSpace(parts[i+1], true)
		}
	}
}

func trimJSSpace(s string, start bool) string {
	if start {
		for len(s) > 0 {
			c, n := class(s, 0)
			if c&cJSSpace == 0 {
				break
			}
			s = s[n:]
		}
		return s
	}
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		c := classOfRune(r)
		if r < utf8.RuneSelf {
			c = asciiClass[r]
		}
		if c&cJSSpace == 0 {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

func (h *hf) appendIDs(dst []int32, text string) []int32 {
	dst, _ = h.encode(text, dst, false)
	return dst
}

func (h *hf) count(text string) int {
	var buf [256]int32
	_, n := h.encode(text, buf[:0], true)
	return n
}

// trie finds added tokens in a text: at each position, the longest content
// that starts there (the reference's DictionarySplitter).
type trie struct {
	first [256]bool
	nodes []trieNode
}

type trieNode struct {
	next map[byte]int32
	end  string // the content that ends here, if any
}

func newTrie(words []string) *trie {
	t := &trie{nodes: []trieNode{{}}}
	for _, w := range words {
		if w == "" {
			continue
		}
		t.first[w[0]] = true
		n := int32(0)
		for i := 0; i < len(w); i++ {
			if t.nodes[n].next == nil {
				t.nodes[n].next = map[byte]int32{}
			}
			c, ok := t.nodes[n].next[w[i]]
			if !ok {
				c = int32(len(t.nodes))
				t.nodes = append(t.nodes, trieNode{})
				t.nodes[n].next[w[i]] = c
			}
			n = c
		}
		t.nodes[n].end = w
	}
	return t
}

// split cuts s at each match: the stretches between matches and the
// matches, in order (a match is its own element).
func (t *trie) split(s string) []string {
	if len(t.nodes) == 1 {
		return []string{s}
	}
	var out []string
	start := 0
	for i := 0; i < len(s); {
		if !t.first[s[i]] {
			i++
			continue
		}
		match := ""
		n := int32(0)
		for j := i; j < len(s); j++ {
			c, ok := t.nodes[n].next[s[j]]
			if !ok {
				break
			}
			n = c
			if t.nodes[n].end != "" {
				match = t.nodes[n].end
			}
		}
		if match == "" {
			i++
			continue
		}
		if i > start {
			out = append(out, s[start:i])
		}
		out = append(out, match)
		i += len(match)
		start = i
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
