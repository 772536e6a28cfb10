package tokens

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// A preStep is one pre-tokenizer of a tokenizer.json: it cuts s (a
// stretch of section number section) into pieces, appended to dst.
type preStep interface {
	appendPieces(dst []string, s string, section int) []string
}

// splitPatterns are the Split regexes promptkit implements, by their exact
// text in tokenizer.json, each with its scanner.
//
//promptkit:allow-inline DeepSeek V3's split pattern names CJK ranges; it is no prompt
var splitPatterns = map[string]struct {
	family string
	m      matcher
}{
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:                                                                                                                                                                {"Llama 3 (cl100k)", matchCL100K(3)},
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:                                                                                                                                                                     {"Qwen 2/2.5/3", matchCL100K(1)},
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`: {"o200k", matchO200K},
	`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`:                                                                                                                                                                                                         {"GPT-2", matchGPT2(cSpace)},
	`\p{N}{1,3}`: {"DeepSeek V3 (digits)", matchDigits3},
	"[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+": {"DeepSeek V3 (Han and kana)", matchKanaHan},
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+": {"DeepSeek V3", matchDeepSeek},
}

func knownFamilies() string {
	var fs []string
	for _, p := range splitPatterns {
		fs = append(fs, p.family)
	}
	sort.Strings(fs)
	return strings.Join(fs, "; ")
}

type splitStep struct{ m matcher }

func (p splitStep) appendPieces(dst []string, s string, _ int) []string {
	return appendSplit(dst, s, p.m)
}

type literalSplit struct{ sep string }

func (p literalSplit) appendPieces(dst []string, s string, _ int) []string {
	for {
		i := strings.Index(s, p.sep)
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i], p.sep)
		s = s[i+len(p.sep):]
	}
}

// byteLevelStep is the ByteLevel pre-tokenizer: an optional leading space,
// an optional split by GPT-2's pattern (with JavaScript's \s, as the
// reference's ByteLevel runs it). The bytes stay bytes: the model reads
// its vocabulary back from the byte-to-character alphabet instead.
type byteLevelStep struct{ prefixSpace, split bool }

var gpt2JS = matchGPT2(cJSSpace)

func (p byteLevelStep) appendPieces(dst []string, s string, _ int) []string {
	if p.prefixSpace && !strings.HasPrefix(s, " ") {
		s = " " + s
	}
	if !p.split {
		return append(dst, s)
	}
	return appendSplit(dst, s, gpt2JS)
}

// metaspaceStep replaces spaces with the replacement (▁) and prepends one
// to the first section ("first") or every stretch ("always").
type metaspaceStep struct {
	rep    string
	scheme string // always, first, never
}

func (p metaspaceStep) appendPieces(dst []string, s string, section int) []string {
	s = strings.ReplaceAll(s, " ", p.rep)
	if !strings.HasPrefix(s, p.rep) && (p.scheme == "always" || p.scheme == "first" && section == 0) {
		s = p.rep + s
	}
	return append(dst, s)
}

// digitsStep splits off ASCII digits (JavaScript's \d), each alone or in
// runs.
type digitsStep struct{ individual bool }

func (p digitsStep) appendPieces(dst []string, s string, _ int) []string {
	isDigit := func(b byte) bool { return '0' <= b && b <= '9' }
	for i := 0; i < len(s); {
		j := i + 1
		switch {
		case !isDigit(s[i]):
			for j < len(s) && !isDigit(s[j]) {
				j++
			}
		case !p.individual:
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
		dst = append(dst, s[i:j])
		i = j
	}
	return dst
}

// preTokenizer reads the pre_tokenizer, and reports whether it ends with
// ByteLevel (the model's vocabulary is then byte-level).
func (b *hfBuilder) preTokenizer(raw json.RawMessage) ([]preStep, bool) {
	if isNull(raw) {
		return nil, false
	}
	var steps []preStep
	byteLevel := false
	var walk func(raw json.RawMessage, where string)
	walk = func(raw json.RawMessage, where string) {
		var p struct {
			Type           string            `json:"type"`
			PreTokenizers  []json.RawMessage `json:"pretokenizers"`
			Pattern        patternJSON       `json:"pattern"`
			Behavior       string            `json:"behavior"`
			Invert         bool              `json:"invert"`
			AddPrefixSpace *bool             `json:"add_prefix_space"`
			UseRegex       *bool             `json:"use_regex"`
			Replacement    string            `json:"replacement"`
			PrependScheme  string            `json:"prepend_scheme"`
			Individual     bool              `json:"individual_digits"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			b.invalid("%s: %v", where, err)
			return
		}
		if byteLevel {
			b.unsupported(where, p.Type+" after ByteLevel", "ByteLevel must be the last pre-tokenizer")
			return
		}
		switch p.Type {
		case "Sequence":
			for i, sub := range p.PreTokenizers {
				walk(sub, fmt.Sprintf("%s.pretokenizers[%d]", where, i))
			}
		case "Split":
			if p.Behavior != "Isolated" || p.Invert {
				b.unsupported(where, fmt.Sprintf("Split with behavior %q, invert %v", p.Behavior, p.Invert), "implemented: Isolated, not inverted")
				return
			}
			switch {
			case p.Pattern.Regex != nil:
				sp, ok := splitPatterns[*p.Pattern.Regex]
				if !ok {
					b.unsupported(where, fmt.Sprintf("Split pattern %q", *p.Pattern.Regex), "implemented: the patterns of "+knownFamilies())
					return
				}
				steps = append(steps, splitStep{sp.m})
			case p.Pattern.String != nil && *p.Pattern.String != "":
				steps = append(steps, literalSplit{*p.Pattern.String})
			default:
				b.invalid("%s: Split without a pattern", where)
			}
		case "ByteLevel":
			split := p.UseRegex == nil || *p.UseRegex
			steps = append(steps, byteLevelStep{prefixSpace: p.AddPrefixSpace != nil && *p.AddPrefixSpace, split: split})
			byteLevel = true
		case "Metaspace":
			rep := p.Replacement
			if rep == "" {
				rep = "\u2581"
			}
			scheme := p.PrependScheme
			if scheme == "" {
				if p.AddPrefixSpace != nil && !*p.AddPrefixSpace {
					// Rust reads this as "never", the JavaScript reference as
					// "always": the references disagree.
					b.unsupported(where, "Metaspace with add_prefix_space false and no prepend_scheme", "the reference implementations disagree on it")
					return
				}
				scheme = "always"
			}
			if scheme != "always" && scheme != "first" && scheme != "never" {
				b.unsupported(where, fmt.Sprintf("Metaspace prepend_scheme %q", scheme), "")
				return
			}
			steps = append(steps, metaspaceStep{rep: rep, scheme: scheme})
		case "Digits":
			steps = append(steps, digitsStep{individual: p.Individual})
		default:
			b.unsupported(where, p.Type, "implemented: Sequence, Split, ByteLevel, Metaspace, Digits")
		}
	}
	walk(raw, "pre_tokenizer")
	return steps, byteLevel
}

func unicodeForm(name string) func(string) string {
	f := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}[name]
	return f.String
}
