package mcpserver

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// The JSON-RPC codes of prompts/get's and completion/complete's errors:
// the request's problems (an unknown prompt, missing, unknown or invalid
// arguments) are invalid params, as the MCP specification asks; a render
// that fails, runs out of a budget or finds the server overloaded is an
// internal error. Either way the error's data is a Problem.
const (
	codeInvalidParams = jsonrpc.CodeInvalidParams
	codeInternal      = jsonrpc.CodeInternalError
)

// errOverloaded is a render that found no slot free within the queue wait
// (WithMaxRenders).
var errOverloaded = errors.New("mcpserver: overloaded: too many renders running; try again")

// Problem is the data of every error the server answers, in the fields of
// a *manager.Error (those of promptkit serve's JSON errors) and, for the
// arguments of prompts/get, each kind of problem by name:
//
//	{"kind": "missing_variables", "template": "title", "path": "templates/title.md",
//	 "variables": ["intent", "intnet"], "missing": ["intent"], "unknown": ["intnet"],
//	 "did_you_mean": {"intnet": "intent"},
//	 "message": "prompt \"title\": missing argument: intent; unknown argument \"intnet\": did you mean \"intent\"?"}
//
// Kind is manager.ErrorKind's name of the first problem (missing before
// unknown before invalid arguments), or "overloaded".
type Problem struct {
	Kind       string            `json:"kind"`
	Template   string            `json:"template,omitempty"`
	Path       string            `json:"path,omitempty"`
	Line       int               `json:"line,omitempty"`
	Column     int               `json:"column,omitempty"`
	Variables  []string          `json:"variables,omitempty"`
	Missing    []string          `json:"missing,omitempty"`
	Unknown    []string          `json:"unknown,omitempty"`
	Invalid    []string          `json:"invalid,omitempty"`
	DidYouMean map[string]string `json:"did_you_mean,omitempty"`
	Message    string            `json:"message"`
}

// newError is the JSON-RPC error of p: its message the whole line, its
// data p.
func newError(code int64, p Problem) error {
	data, _ := json.Marshal(p) // strings, ints and maps of strings: cannot fail
	return &jsonrpc.Error{Code: code, Message: p.Message, Data: data}
}

// rpcError is the JSON-RPC error of a failure to render prompt name.
func rpcError(name string, err error) error {
	p := Problem{Kind: manager.ErrorKind(err), Template: name, Message: err.Error()}
	code := int64(codeInternal)
	var me *manager.Error
	switch {
	case errors.Is(err, errOverloaded):
		p.Kind = "overloaded"
	case errors.As(err, &me):
		p.Template, p.Path, p.Line, p.Column, p.Variables = me.Template, me.Path, me.Line, me.Col, me.Variables
		switch {
		case errors.Is(err, manager.ErrUnknownTemplate), errors.Is(err, manager.ErrMissingVariables),
			errors.Is(err, manager.ErrExtraVariables), errors.Is(err, manager.ErrInvalidVariables):
			code = codeInvalidParams
		}
	}
	return newError(code, p)
}
