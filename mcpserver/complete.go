package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// maxCompletions is the most values one completion/complete answer holds,
// as the MCP specification bounds it.
const maxCompletions = 100

// complete answers completion/complete for a prompt's argument: the values
// its variable's schema lists (manager.TextForm's Choices: an enum, a
// const), written as the argument takes them, those that begin with what
// the client has typed (case aside) first in their order, then those that
// merely contain it. A variable whose schema lists no values gets none.
func (s *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	if ref.Type != "ref/prompt" {
		return nil, newError(codeInvalidParams, Problem{Kind: "bad_request",
			Message: fmt.Sprintf("promptkit completes the arguments of prompts (ref/prompt), not %s", ref.Type)})
	}
	t, ok := s.m.Lookup(ref.Name)
	if !ok {
		return nil, s.unknownPrompt(ref.Name)
	}
	form, ok := s.m.TextForm(t.Name, arg.Name)
	if !ok {
		name := cut(arg.Name)
		msg, best := unknownArgument(t, name)
		p := Problem{Kind: manager.ErrorKind(manager.ErrExtraVariables), Template: t.Name, Path: t.Path, Variables: []string{name},
			Unknown: []string{name}, Message: fmt.Sprintf("prompt %q: %s", t.Name, msg)}
		if best != "" {
			p.DidYouMean = map[string]string{name: best}
		}
		return nil, newError(codeInvalidParams, p)
	}
	typed := strings.ToLower(arg.Value)
	var prefixed, containing []string
	for _, c := range form.Choices {
		text := textOf(c, form)
		switch low := strings.ToLower(text); {
		case strings.HasPrefix(low, typed):
			prefixed = append(prefixed, text)
		case strings.Contains(low, typed):
			containing = append(containing, text)
		}
	}
	values := append(prefixed, containing...)
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}
	if len(values) > maxCompletions {
		res.Completion.Values, res.Completion.HasMore = values[:maxCompletions], true
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return res, nil
}
