package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// prompt is template t as an MCP prompt: its name and description, and an
// argument for each variable, in index.json's order.
func (s *Server) prompt(t manager.Template) *mcp.Prompt {
	p := &mcp.Prompt{Name: t.Name, Description: t.Description, Arguments: []*mcp.PromptArgument{}}
	for _, v := range t.Variables {
		form, _ := s.m.TextForm(t.Name, v.Name)
		p.Arguments = append(p.Arguments, &mcp.PromptArgument{Name: v.Name, Required: v.Required, Description: describe(v, form)})
	}
	return p
}

// describe is a variable's argument description: its own description,
// then, one a line, how to write its value — the choices its schema
// lists, JSON when the schema takes no string —, its default and its
// schema as index.json writes it. MCP arguments are strings and have no
// schema of their own: the description is where a client (and the model
// or person filling the form) reads the type.
func describe(v manager.Variable, form manager.TextForm) string {
	var lines []string
	if v.Description != "" {
		lines = append(lines, v.Description)
	}
	if form.Choices != nil {
		texts := make([]string, len(form.Choices))
		for i, c := range form.Choices {
			texts[i] = textOf(c, form)
		}
		lines = append(lines, "One of: "+strings.Join(texts, ", ")+".")
	}
	if form.JSON {
		lines = append(lines, fmt.Sprintf("Written as JSON: %s.", form.Want))
	}
	if v.HasDefault {
		lines = append(lines, "Default: "+textOf(v.Default, form)+".")
	}
	if v.Schema != nil {
		var b bytes.Buffer
		if json.Compact(&b, v.Schema) == nil {
			lines = append(lines, "JSON Schema: "+b.String())
		}
	}
	return strings.Join(lines, "\n")
}

// textOf is how a client writes value as the text of an argument of form:
// a string as it is where the form takes text, anything else as JSON.
func textOf(value any, form manager.TextForm) string {
	if s, ok := value.(string); ok && !form.JSON {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		return fmt.Sprint(value)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
