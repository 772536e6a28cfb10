package tokens

import (
	"errors"
	"fmt"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

var (
	// ErrUnknownEncoding: a name that is neither an encoding Encoding
	// knows nor, for Open, a file.
	ErrUnknownEncoding = errors.New("tokens: unknown encoding")
	// ErrUnknownModel: a model name no entry of the model table matches.
	ErrUnknownModel = errors.New("tokens: no encoding known for model")
	// ErrUnsupported: a tokenizer.json that uses a model, normalizer,
	// pre-tokenizer or setting promptkit does not implement. It is refused
	// rather than counted approximately.
	ErrUnsupported = errors.New("tokens: unsupported tokenizer")
	// ErrInvalid: a tokenizer.json that is not one (bad JSON, missing
	// fields, a merge of tokens that are not in the vocabulary).
	ErrInvalid = errors.New("tokens: invalid tokenizer")
)

// UnknownError is an unknown encoding or model name, with the closest
// known one.
type UnknownError struct {
	Name       string
	Kind       string // "encoding" or "model"
	Suggestion string // the known name closest to Name, or ""
	Known      []string
}

func (e *UnknownError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tokens: unknown %s %q", e.Kind, e.Name)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Suggestion)
	}
	if e.Kind == "encoding" {
		fmt.Fprintf(&b, " (known: %s, or the path of a tokenizer.json)", strings.Join(e.Known, ", "))
	}
	return b.String()
}

func (e *UnknownError) Unwrap() error {
	if e.Kind == "model" {
		return ErrUnknownModel
	}
	return ErrUnknownEncoding
}

func unknown(name string, known []string) error {
	return &UnknownError{Name: name, Kind: "encoding", Suggestion: nearName(name, known), Known: known}
}

// nearName is promptkit's did-you-mean, or else the one known name that
// name begins (o200k → o200k_base).
func nearName(name string, known []string) string {
	if s := suggest.Closest(name, known); s != "" {
		return s
	}
	found := ""
	for _, k := range known {
		if name != "" && strings.HasPrefix(k, name) {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// UnsupportedError names the part of a tokenizer.json promptkit does not
// implement: Part is "model", "normalizer", "pre_tokenizer", "added_tokens"
// or a setting's path, Kind its type or value.
type UnsupportedError struct {
	File   string // the name the tokenizer was read under
	Part   string
	Kind   string
	Detail string // what is implemented instead, or why it is refused
}

func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("tokens: %s: %s %s is not implemented", e.File, e.Part, e.Kind)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }
