package rag

import (
	"errors"

	"github.com/seed-e7d2830f/promptkit/builders"
)

// ErrNoEvidence is returned when an input has neither a non-blank
// knowledge-base chunk nor a tool result: there is nothing to answer
// from, and an empty prompt would only invite the model to invent. Hosts
// test for it with errors.Is and reply without calling the model, as
// Ragent does ("no relevant document found").
var ErrNoEvidence = errors.New("rag: no evidence")

// fail makes the error of the rag_answer builder. Every error this package
// returns is a *builders.Error naming the builder and, when the problem
// is with one value, its key ("tools[1].error"). Its Kind is ErrNoEvidence
// or one of the sentinels of package builders (ErrMissingValue,
// ErrInvalidValue, ErrUnknownKey, ErrNoRenderer, ErrRender).
func fail(key string, kind error, msg string, cause error) *builders.Error {
	return &builders.Error{Kind: kind, Builder: Name, Key: key, Msg: msg, Err: cause}
}
