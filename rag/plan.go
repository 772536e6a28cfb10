package rag

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Scene is the kind of evidence an answer rests on. Each scene has its
// own system template, with the rules that kind of evidence needs.
type Scene int

// The scenes.
const (
	// SceneKB: knowledge-base chunks only (template rag_system_kb).
	SceneKB Scene = iota + 1
	// SceneTool: tool results only (template rag_system_tool).
	SceneTool
	// SceneMixed: both (template rag_system_mixed).
	SceneMixed
)

// String returns "kb", "tool" or "mixed".
func (s Scene) String() string {
	switch s {
	case SceneKB:
		return "kb"
	case SceneTool:
		return "tool"
	case SceneMixed:
		return "mixed"
	}
	return fmt.Sprintf("Scene(%d)", int(s))
}

// Template returns the name of the scene's default system template.
func (s Scene) Template() string {
	switch s {
	case SceneKB:
		return TemplateKB
	case SceneTool:
		return TemplateTool
	case SceneMixed:
		return TemplateMixed
	}
	return ""
}

// Plan is how the system message of an answer is made.
type Plan struct {
	// Scene is decided by the evidence: chunks, tool results or both.
	Scene Scene
	// Retained are the IDs of the intents that keep evidence (a non-blank
	// chunk or a tool result), in the order of Input.Intents.
	Retained []string
	// Template is the system template rendered: TemplateIntent when
	// Override is set, else the scene's.
	Template string
	// Override is the replacement system template of the only retained
	// intent, trimmed; empty when there is none or when several intents
	// keep evidence (their templates are never merged).
	Override string
	// Rules are the snippets of the retained intents, in their order:
	// trimmed, blank ones dropped, duplicates removed (the first wins).
	Rules []string
}

// PlanFor checks in and decides how its system message is made, without
// rendering anything. It returns ErrNoEvidence when there is nothing to
// answer from, and the errors of Builder.Messages for an invalid input.
func PlanFor(in Input) (Plan, error) {
	p, err := prepare(in)
	if err != nil {
		return Plan{}, err
	}
	return p.plan, nil
}

// prepared is a checked input, cleaned for rendering.
type prepared struct {
	question string
	subs     []string
	docs     []Retrieved      // blank chunks and empty groups dropped, text trimmed
	tools    []map[string]any // the template values of the tool results, escaped
	names    map[string]string
	plan     Plan
}

// prepare checks in, drops blanks, and makes its plan.
func prepare(in Input) (*prepared, error) {
	p := &prepared{question: strings.TrimSpace(in.Question), names: map[string]string{}}
	if p.question == "" {
		return nil, fail("question", builders.ErrMissingValue, "absent or blank", nil)
	}
	for _, q := range in.SubQuestions {
		if q = strings.TrimSpace(q); q != "" {
			p.subs = append(p.subs, q)
		}
	}
	for i, m := range in.History {
		switch m.Role {
		case message.RoleSystem, message.RoleDeveloper, message.RoleUser, message.RoleAssistant, message.RoleTool:
		default:
			return nil, fail(fmt.Sprintf("history[%d].role", i), builders.ErrInvalidValue,
				fmt.Sprintf("%q is not a role (want system, developer, user, assistant or tool)", m.Role), nil)
		}
	}
	for i, it := range in.Intents {
		key := fmt.Sprintf("intents[%d].id", i)
		if it.ID == "" {
			return nil, fail(key, builders.ErrMissingValue, "absent or empty", nil)
		}
		if _, dup := p.names[it.ID]; dup {
			return nil, fail(key, builders.ErrInvalidValue, fmt.Sprintf("intent %q is listed twice", it.ID), nil)
		}
		p.names[it.ID] = it.Name
	}
	known := func(key, id string) error {
		if _, ok := p.names[id]; id != "" && !ok {
			return fail(key, builders.ErrInvalidValue, fmt.Sprintf("intent %q is not in intents", id), nil)
		}
		return nil
	}

	keeps := map[string]bool{} // intents that keep evidence
	for i, g := range in.Documents {
		if err := known(fmt.Sprintf("documents[%d].intent", i), g.Intent); err != nil {
			return nil, err
		}
		var chunks []Chunk
		for _, c := range g.Chunks {
			if c.Text = strings.TrimSpace(c.Text); c.Text != "" {
				c.Source = strings.TrimSpace(c.Source)
				chunks = append(chunks, c)
			}
		}
		if len(chunks) > 0 {
			p.docs = append(p.docs, Retrieved{Intent: g.Intent, Chunks: chunks})
			keeps[g.Intent] = true
		}
	}
	for i, t := range in.Tools {
		key := fmt.Sprintf("tools[%d]", i)
		if strings.TrimSpace(t.Tool) == "" {
			return nil, fail(key+".tool", builders.ErrMissingValue, "absent or blank", nil)
		}
		if err := known(key+".intent", t.Intent); err != nil {
			return nil, err
		}
		if strings.TrimSpace(t.Error) != "" && t.Data != nil {
			return nil, fail(key, builders.ErrInvalidValue, "has both data and an error", nil)
		}
		v, err := toolVar(key, t)
		if err != nil {
			return nil, err
		}
		p.tools = append(p.tools, v)
		keeps[t.Intent] = true
	}

	var pl Plan
	switch kb, tool := len(p.docs) > 0, len(in.Tools) > 0; {
	case kb && tool:
		pl.Scene = SceneMixed
	case kb:
		pl.Scene = SceneKB
	case tool:
		pl.Scene = SceneTool
	default:
		return nil, fail("", ErrNoEvidence, "no knowledge-base chunk and no tool result to answer from", nil)
	}
	var retained []Intent
	for _, it := range in.Intents {
		if keeps[it.ID] {
			retained = append(retained, it)
			pl.Retained = append(pl.Retained, it.ID)
		}
	}
	pl.Template = pl.Scene.Template()
	if len(retained) == 1 {
		if tpl := strings.TrimSpace(retained[0].Template); tpl != "" {
			pl.Override, pl.Template = tpl, TemplateIntent
		}
	}
	for _, it := range retained {
		if s := strings.TrimSpace(it.Snippet); s != "" && !slices.Contains(pl.Rules, s) {
			pl.Rules = append(pl.Rules, s)
		}
	}
	p.plan = pl
	return p, nil
}
