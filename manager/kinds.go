package manager

import (
	"errors"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// kinds is the one table of the kinds of errors the manager returns, most
// specific first. Each row gives a kind's sentinel; its stable name
// (ErrorKind: metrics labels, logs, the observer's error.type, the "kind"
// of the HTTP API's JSON errors); the kinds of problems of the front end
// and the engine it stands for; and the HTTP status a server answers it
// with (KindStatus). Every kind is a prompt error to the CLI (exit 1).
var kinds = []struct {
	err    error
	name   string
	front  []jinja.Kind
	status int
}{
	{ErrUnknownTemplate, "unknown_template", nil, 404},
	{ErrMissingVariables, "missing_variables", nil, 422},
	{ErrExtraVariables, "extra_variables", nil, 422},
	{ErrUndeclaredVariable, "undeclared_variable", []jinja.Kind{jinja.Undeclared}, 422},
	{ErrIndex, "index", nil, 422},
	{ErrSandbox, "sandbox", []jinja.Kind{jinja.Sandbox}, 422},
	{ErrUnsupported, "unsupported", []jinja.Kind{jinja.Unsupported}, 422},
	{ErrSchema, "schema", []jinja.Kind{jinja.Mistyped}, 422},
	{ErrInvalidVariables, "invalid_variables", nil, 422},
	{ErrContract, "contract", []jinja.Kind{jinja.Prefix}, 422},
	{ErrInvalidOutput, "invalid_output", nil, 422},
	{ErrOutputLimit, "output_limit", []jinja.Kind{jinja.Budget}, 422},
	{ErrOverBudget, "over_budget", nil, 422},
	{ErrChatTemplate, "chat_template", nil, 409},
	{ErrVariableFunc, "variable_func", nil, 422},
	{ErrRaised, "raised", []jinja.Kind{jinja.Raised}, 422},
	{ErrUndefined, "undefined", []jinja.Kind{jinja.Undefined, jinja.Unguarded}, 422},
	{ErrCanceled, "canceled", []jinja.Kind{jinja.Canceled}, 422},
	{ErrClosed, "closed", nil, 503},
	{ErrTemplate, "template", []jinja.Kind{jinja.Syntax, jinja.Limit, jinja.Include, jinja.Render}, 422},
}

// ErrorKind names the kind of an error the manager returned: the snake-case
// name of the most specific sentinel it wraps ("missing_variables",
// "unknown_template", "output_limit", "template", …), "" for nil and
// "other" for an error that wraps none.
func ErrorKind(err error) string {
	if err == nil {
		return ""
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

// KindStatus is the HTTP status an API answers an error of the kind
// ErrorKind names with: a template's problem is the request's (404 for an
// unknown template, 409 for a chat template rendered as text, 422 for the
// rest, a render that ran out of its time included) or, for a closed
// manager, 503. ok is false for a name that is no kind of the manager's.
func KindStatus(kind string) (status int, ok bool) {
	for _, k := range kinds {
		if k.name == kind {
			return k.status, true
		}
	}
	return 0, false
}

// kindOf is the sentinel of a problem of the front end or the engine.
func kindOf(k jinja.Kind) error {
	for _, row := range kinds {
		for _, f := range row.front {
			if f == k {
				return row.err
			}
		}
	}
	return ErrTemplate
}

// ErrorKinds returns every name ErrorKind gives an error of the manager,
// most specific first, and "other" last: the list a tool checks a kind
// named in a file against (a fixture's expected error, say).
func ErrorKinds() []string {
	out := make([]string, 0, len(kinds)+1)
	for _, k := range kinds {
		out = append(out, k.name)
	}
	return append(out, "other")
}
