package tokens

import (
	"slices"
	"strings"
)

// The encodings of OpenAI's models, by the prefix of the model's name (the
// same table as tiktoken's model.py). ForModel is the hook by which a call
// contract's "model" picks its counter; an open model's counter is its
// tokenizer.json (Open), which no name can stand for.
var modelPrefixes = []struct{ prefix, encoding string }{
	{"gpt-5", "o200k_base"},
	{"gpt-4.5", "o200k_base"},
	{"gpt-4.1", "o200k_base"},
	{"gpt-4o", "o200k_base"},
	{"chatgpt-4o", "o200k_base"},
	{"o1", "o200k_base"},
	{"o3", "o200k_base"},
	{"o4", "o200k_base"},
	{"gpt-4", "cl100k_base"},
	{"gpt-3.5-turbo", "cl100k_base"},
	{"gpt-35-turbo", "cl100k_base"},
	{"text-embedding-3", "cl100k_base"},
	{"text-embedding-ada-002", "cl100k_base"},
	{"text-davinci-003", "p50k_base"},
	{"text-davinci-002", "p50k_base"},
	{"code-davinci-002", "p50k_base"},
	{"text-davinci-001", "r50k_base"},
	{"davinci", "r50k_base"},
	{"curie", "r50k_base"},
	{"babbage", "r50k_base"},
	{"ada", "r50k_base"},
}

// EncodingForModel returns the encoding of an OpenAI model by its name
// (gpt-4o-mini, gpt-4.1, o3-mini, gpt-3.5-turbo-0125, a fine-tune
// ft:gpt-4o-mini:org::id): the longest prefix in the table that ends where
// the name ends or before a "-" (so o1 matches o1-mini, not o10).
func EncodingForModel(model string) (string, bool) {
	name := strings.TrimPrefix(model, "ft:")
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	best, enc := -1, ""
	for _, p := range modelPrefixes {
		if !strings.HasPrefix(name, p.prefix) || len(p.prefix) <= best {
			continue
		}
		if rest := name[len(p.prefix):]; rest == "" || rest[0] == '-' {
			best, enc = len(p.prefix), p.encoding
		}
	}
	return enc, best >= 0
}

// ForModel returns the Tokenizer of an OpenAI model by its name
// (EncodingForModel). A name no prefix matches is an *UnknownError
// wrapping ErrUnknownModel.
func ForModel(model string) (*Tokenizer, error) {
	enc, ok := EncodingForModel(model)
	if !ok {
		known := make([]string, 0, len(modelPrefixes))
		for _, p := range modelPrefixes {
			known = append(known, p.prefix)
		}
		slices.Sort(known)
		return nil, &UnknownError{Name: model, Kind: "model", Known: known}
	}
	return Encoding(enc)
}
