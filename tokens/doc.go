// Package tokens counts the tokens of a prompt exactly, offline, as the
// model's own tokenizer does: OpenAI's encodings (o200k_base, cl100k_base,
// p50k_base, p50k_edit, r50k_base) and open models' tokenizer.json files
// (Hugging Face tokenizers: Qwen 2/2.5/3, Llama 3, DeepSeek V3, Llama 2,
// Mistral and others built the same way).
//
// A prompt's cost, its latency and whether it fits a context window are
// measured in tokens, not bytes. Exact means the same ids as the reference
// implementation, for every text: testdata/vectors holds the ids OpenAI's
// tiktoken and Hugging Face's tokenizers.js give for a corpus of Chinese,
// Japanese, emoji with ZWJ sequences, code, whitespace runs, numbers,
// invalid UTF-8 and hundreds of generated texts, and the tests hold
// promptkit to them.
//
// # Example
//
//	tok, err := tokens.Encoding("o200k_base") // or tokens.Open("models/qwen3/tokenizer.json")
//	if err != nil {
//		return err
//	}
//	n := tok.Count(prompt)
//
// # Choosing a tokenizer
//
// By an encoding's name (Encoding), by the path of a tokenizer.json, which
// may be gzip-compressed (Open, ReadFile, ParseJSON), or by an OpenAI
// model's name (ForModel: gpt-4o, gpt-4.1, gpt-5, o1, o3 → o200k_base;
// gpt-4, gpt-3.5-turbo → cl100k_base), the table a call contract's model
// will pick its counter from. A Tokenizer is immutable and safe for
// concurrent use; an encoding's vocabulary is read once per process, the
// first time it is asked for, and shared.
//
// # What is counted
//
//   - Count(text) is len(Encode(text)): the ids of text alone. For an
//     OpenAI encoding that is tiktoken's encode_ordinary: the text of a
//     special token (<|endoftext|>) is ordinary text, as the API counts what
//     a message says. For a tokenizer.json it is encode(text,
//     add_special_tokens=False): an added token written in the text
//     (<|im_start|>, <s>) is its one id, as the tokenizer reads it, and the
//     post-processor's tokens (a BOS in front) are not added.
//   - A chat's count is the count of what the model reads: its chat
//     template (manager.ChatTemplate, from the model's
//     tokenizer_config.json) applied to the messages, then counted with
//     the model's tokenizer.json. The template writes the model's special
//     tokens, and they count as the tokenizer reads them, one id each; this
//     is what transformers' apply_chat_template(…, tokenize=True) returns.
//     See Example_chat.
//   - OpenAI's chat format adds tokens of its own around each message that
//     OpenAI does not publish; a count with an OpenAI encoding is the count
//     of the text (the messages' contents), not of that wrapping.
//   - Text that is not valid UTF-8 is counted as ValidUTF8 makes it (each
//     maximal invalid sequence is U+FFFD), as the references read it.
//
// # How a text flows
//
//	text ─ ValidUTF8
//	  OpenAI encoding (encoding.go): split by the encoding's pattern
//	    (pretokenize.go: o200k, cl100k, GPT-2) → merge each piece by the
//	    ranks of its bytes (bpe.go: rankedBytes) → ids
//	  tokenizer.json (hf.go): cut at added tokens (trie) → normalize
//	    (NFC, Prepend, Replace) → cut at normalized added tokens →
//	    pre-tokenize (hf_pretokenizer.go: Split with a pattern of
//	    pretokenize.go, ByteLevel, Metaspace, Digits) → BPE by merge ranks,
//	    byte fallback, unknown token (hf_model.go, bpe.go: mergeTable) → ids
//
// The split patterns use a lookahead (\s+(?!\S)) that Go's regexp lacks;
// each is a hand-written scanner, held to its regular expression under a
// backtracking engine (github.com/dlclark/regexp2) on generated texts and
// by a fuzz target. A tokenizer.json part promptkit does not implement (a
// WordPiece or Unigram model, a Precompiled or Lowercase normalizer, a
// Split pattern it has no scanner for, …) is refused with an
// *UnsupportedError naming it: a count is exact or it is an error.
//
// # Known limits
//
// Unicode classes are Go's (Unicode 15.0); the references' tables may be
// newer (Node 20's are 17.0), so letters assigned after 15.0 may be classed
// differently. Where Hugging Face's Rust library and its JavaScript port
// differ, promptkit follows the port, which its vectors come from: (?i)
// contractions fold ASCII only ('ſ is not 's), and ByteLevel's own split
// reads \s as JavaScript does (U+FEFF is a space, U+0085 is not). Where
// they disagree on a setting (Metaspace's legacy add_prefix_space false,
// an added token's single_word), the file is refused.
package tokens
