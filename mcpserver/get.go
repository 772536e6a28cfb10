package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seed-e7d2830f/promptkit/internal/suggest"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// get answers prompts/get: the arguments checked against the template's
// variables (every problem at once), turned into values, rendered with
// the manager's strict checks and returned as prompt messages.
func (s *Server) get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Name
	t, ok := s.m.Lookup(name)
	if !ok {
		return nil, s.unknownPrompt(name)
	}
	vars, err := s.vars(t, req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, rpcError(name, err)
	}
	msgs, err := s.m.RenderMessagesContext(ctx, name, vars)
	release()
	if err != nil {
		return nil, rpcError(name, err)
	}
	out, err := Messages(msgs)
	if err != nil {
		return nil, rpcError(name, err)
	}
	return &mcp.GetPromptResult{Description: t.Description, Messages: out}, nil
}

// unknownPrompt is the error for a prompt the set does not have, with the
// prompt it may misspell.
func (s *Server) unknownPrompt(name string) error {
	name = cut(name)
	names := make([]string, 0)
	for _, t := range s.m.Templates() {
		names = append(names, t.Name)
	}
	msg := fmt.Sprintf("unknown prompt %q", name)
	if best := suggest.Closest(name, names); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return newError(codeInvalidParams, Problem{Kind: manager.ErrorKind(manager.ErrUnknownTemplate), Template: name, Message: msg})
}

// vars checks a prompt's arguments against template t's variables and
// turns them into the values the template gets (manager.TextForm: text as
// it is, or JSON where the schema takes no string). Every problem is
// reported at once, in one error naming each argument: the required ones
// missing, the ones t does not declare (with the variable each may
// misspell) and the ones whose text is not the JSON their schema wants.
func (s *Server) vars(t manager.Template, args map[string]string) (map[string]any, error) {
	vars := make(map[string]any, len(args))
	declared := make([]string, len(t.Variables))
	var p Problem
	var problems []string
	for i, v := range t.Variables {
		declared[i] = v.Name
		text, ok := args[v.Name]
		if !ok {
			if v.Required {
				p.Missing = append(p.Missing, v.Name)
			}
			continue
		}
		form, _ := s.m.TextForm(t.Name, v.Name)
		val, err := form.Value(text)
		if err != nil {
			p.Invalid = append(p.Invalid, v.Name)
			problems = append(problems, fmt.Sprintf("argument %q: %v", v.Name, err))
			continue
		}
		vars[v.Name] = val
	}
	for name := range args {
		if !slices.Contains(declared, name) {
			p.Unknown = append(p.Unknown, cut(name))
		}
	}
	more := 0
	if len(p.Unknown) > maxUnknown {
		slices.Sort(p.Unknown)
		more, p.Unknown = len(p.Unknown)-maxUnknown, p.Unknown[:maxUnknown]
	}
	if p.Missing == nil && p.Unknown == nil && p.Invalid == nil {
		return vars, nil
	}
	slices.Sort(p.Unknown)
	var parts []string
	if p.Missing != nil {
		slices.Sort(p.Missing)
		parts = append(parts, fmt.Sprintf("missing %s: %s", plural("argument", len(p.Missing)), strings.Join(p.Missing, ", ")))
		p.Kind = manager.ErrorKind(manager.ErrMissingVariables)
	}
	for _, u := range p.Unknown {
		msg, best := unknownArgument(t, u)
		if best != "" {
			if p.DidYouMean == nil {
				p.DidYouMean = map[string]string{}
			}
			p.DidYouMean[u] = best
		}
		parts = append(parts, msg)
		if p.Kind == "" {
			p.Kind = manager.ErrorKind(manager.ErrExtraVariables)
		}
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("%d more unknown arguments", more))
	}
	parts = append(parts, problems...)
	if p.Kind == "" {
		p.Kind = manager.ErrorKind(manager.ErrInvalidVariables)
	}
	p.Template, p.Path = t.Name, t.Path
	p.Variables = slices.Concat(p.Missing, p.Unknown, p.Invalid)
	p.Message = fmt.Sprintf("prompt %q: %s", t.Name, strings.Join(parts, "; "))
	return nil, newError(codeInvalidParams, p)
}

// unknownArgument says that name is not an argument of template t, with
// the variable it may misspell (best, "" when none is close) or else the
// variables t has.
func unknownArgument(t manager.Template, name string) (msg, best string) {
	declared := make([]string, len(t.Variables))
	for i, v := range t.Variables {
		declared[i] = v.Name
	}
	if best = suggest.Closest(name, declared); best != "" {
		return fmt.Sprintf("unknown argument %q: did you mean %q?", name, best), best
	}
	return fmt.Sprintf("unknown argument %q (not a variable of the template; it has: %s)", name, strings.Join(declared, ", ")), ""
}

// The bounds of what an error quotes of a client's names: a name is cut
// to maxName bytes, and at most maxUnknown unknown arguments are named.
const (
	maxName    = 256
	maxUnknown = 32
)

// cut shortens a client's name for an error, marking what it cut.
func cut(name string) string {
	if len(name) <= maxName {
		return name
	}
	i := maxName
	for i > 0 && !utf8.RuneStart(name[i]) {
		i--
	}
	return fmt.Sprintf("%s… [%d more bytes cut]", name[:i], len(name)-i)
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
