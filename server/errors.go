package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

// Problem is the JSON form of one error: the fields of a *manager.Error
// (kind as manager.ErrorKind names it), the builder and data key of a
// *builders.Error, and the whole error as one line for people. Every field
// is always present except builder and key, and except expression, value
// and suggestion, which an undefined value used in a strict template
// (kind "undefined") has: the expression as written ("d.nmae"), what the
// value it looked into is ("a dict with keys name, tags") and the name it
// may misspell ("name"). Clients read the others without checking.
type Problem struct {
	Kind       string   `json:"kind"`
	Template   string   `json:"template"`
	Path       string   `json:"path"`
	Line       int      `json:"line"`
	Column     int      `json:"column"`
	Variables  []string `json:"variables"`
	Message    string   `json:"message"`
	Expression string   `json:"expression,omitempty"`
	Value      string   `json:"value,omitempty"`
	Suggestion string   `json:"suggestion,omitempty"`
	Builder    string   `json:"builder,omitempty"`
	Key        string   `json:"key,omitempty"`
	Error      string   `json:"error"`
}

// errorBody is what an error response holds: the problem, and, when a set
// failed to load, every problem of the set.
type errorBody struct {
	Problem
	Problems []Problem `json:"problems,omitempty"`
}

// Kinds of errors that are not the manager's (manager.ErrorKind names those).
const (
	kindBadRequest        = "bad_request"
	kindTooLarge          = "request_too_large"
	kindNotFound          = "not_found"
	kindMethod            = "method_not_allowed"
	kindUnauthorized      = "unauthorized"
	kindHost              = "host_not_allowed"
	kindUnavailable       = "unavailable"
	kindUnknownBuilder    = "unknown_builder"
	kindNoService         = "no_service"
	kindBuilderPanicked   = "builder_panicked"
	kindUnknownKey        = "unknown_key"
	kindMissingValue      = "missing_value"
	kindInvalidValue      = "invalid_value"
	kindInvalidKind       = "invalid_kind"
	kindNoEvidence        = "no_evidence"
	kindNotMessageBuilder = "not_message_builder"
	kindForbidden         = "forbidden"
	kindConflict          = "conflict"
	kindUnsupported       = "unsupported_by_provider"
)

// An error response quotes what it is about — a value a client sent, a
// template's raise_exception message — but never all of a large one: each
// text of a Problem is at most MaxQuoteBytes and its variables list at
// most MaxQuoteItems names; what is cut is replaced by a marker that says
// how much was left out.
const (
	MaxQuoteBytes = 2 << 10
	MaxQuoteItems = 100
)

// capText cuts s to MaxQuoteBytes, at a character boundary, and says so.
func capText(s string) string {
	if len(s) <= MaxQuoteBytes {
		return s
	}
	cut := MaxQuoteBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d more bytes cut]", len(s)-cut)
}

// capped is p with every text capped (capText) and at most MaxQuoteItems
// variables, the last one then a marker of how many more there were.
// Every Problem the server sends goes through it: writeProblem and
// problemsOf call it.
func (p Problem) capped() Problem {
	for _, f := range []*string{&p.Kind, &p.Template, &p.Path, &p.Message, &p.Builder, &p.Key, &p.Error} {
		*f = capText(*f)
	}
	vars := p.Variables
	if len(vars) > MaxQuoteItems {
		vars = append(vars[:MaxQuoteItems:MaxQuoteItems], fmt.Sprintf("… [%d more cut]", len(p.Variables)-MaxQuoteItems))
	}
	p.Variables = make([]string, len(vars))
	for i, v := range vars {
		p.Variables[i] = capText(v)
	}
	return p
}

// statusOf is the HTTP status of each kind of the server's own; the
// manager's kinds have theirs in the manager's table (manager.KindStatus).
// A template problem is never a 500: it is the request's (404, 409, 422)
// or, while no set serves, 503. Only a bug — a builder that panicked, an
// error of no known kind — is 500.
var statusOf = map[string]int{
	kindUnknownBuilder:    http.StatusNotFound,
	kindNotFound:          http.StatusNotFound,
	kindUnknownKey:        http.StatusUnprocessableEntity,
	kindMissingValue:      http.StatusUnprocessableEntity,
	kindInvalidValue:      http.StatusUnprocessableEntity,
	kindInvalidKind:       http.StatusUnprocessableEntity,
	kindNoEvidence:        http.StatusUnprocessableEntity,
	kindNotMessageBuilder: http.StatusConflict,
	kindConflict:          http.StatusConflict,
	kindForbidden:         http.StatusForbidden,
	kindBadRequest:        http.StatusBadRequest,
	kindUnknownProvider:   http.StatusBadRequest,
	kindUnsupported:       http.StatusUnprocessableEntity,
	kindTooLarge:          http.StatusRequestEntityTooLarge,
	kindUnauthorized:      http.StatusUnauthorized,
	kindHost:              http.StatusForbidden,
	kindMethod:            http.StatusMethodNotAllowed,
	kindUnavailable:       http.StatusServiceUnavailable,
	kindOverloaded:        http.StatusServiceUnavailable,
	kindNoService:         http.StatusServiceUnavailable,
	kindBuilderPanicked:   http.StatusInternalServerError,
}

func status(kind string) int {
	if s, ok := statusOf[kind]; ok {
		return s
	}
	if s, ok := manager.KindStatus(kind); ok {
		return s
	}
	return http.StatusInternalServerError
}

// problemOf describes err. Kind is the manager's for a manager error
// (through any wrapping), else the builders' or service's, else "other"
// (service.ErrorKind).
func problemOf(err error) Problem {
	p := Problem{Kind: service.ErrorKind(err), Variables: []string{}, Message: err.Error(), Error: err.Error()}
	var me *manager.Error
	if errors.As(err, &me) {
		p.Template, p.Path, p.Line, p.Column, p.Message = me.Template, me.Path, me.Line, me.Col, me.Msg
		p.Expression, p.Value, p.Suggestion = me.Expr, me.Value, me.Suggestion
		if me.Variables != nil {
			p.Variables = me.Variables
		}
	}
	var be *builders.Error
	if errors.As(err, &be) {
		p.Builder, p.Key = be.Builder, be.Key
		if me == nil {
			p.Message = be.Msg
		}
	}
	return p
}

// problemsOf lists every problem of a load error, one per *manager.Error.
func problemsOf(err error) []Problem {
	if err == nil {
		return nil
	}
	list := manager.Problems(err)
	if len(list) == 0 {
		return []Problem{problemOf(err).capped()}
	}
	out := make([]Problem, len(list))
	for i, e := range list {
		out[i] = problemOf(e).capped()
	}
	return out
}

// writeProblem writes an error response for p with its kind's status,
// every text capped.
func writeProblem(w http.ResponseWriter, p Problem, all []Problem) {
	var capped []Problem
	if all != nil {
		capped = make([]Problem, len(all))
		for i, q := range all {
			capped[i] = q.capped()
		}
	}
	writeJSON(w, status(p.Kind), errorBody{Problem: p.capped(), Problems: capped})
}

// writeError writes the error response for err.
func writeError(w http.ResponseWriter, err error) { writeProblem(w, problemOf(err), nil) }

// requestProblem is a problem of the request itself, not of a template.
func requestProblem(kind, msg string) Problem {
	return Problem{Kind: kind, Variables: []string{}, Message: msg, Error: "server: " + msg}
}

// writeJSON writes v as the response, HTML left unescaped (prompts hold
// "<tags>" that a reader should see as they are).
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"kind":"other","message":"cannot encode the response"}`+"\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
