package rag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/internal/strictjson"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Name is the name the service builds RAG answers by.
const Name = "rag_answer"

// The templates of the default set the builder renders.
const (
	TemplateKB     = "rag_system_kb"     // system message, SceneKB
	TemplateTool   = "rag_system_tool"   // system message, SceneTool
	TemplateMixed  = "rag_system_mixed"  // system message, SceneMixed
	TemplateIntent = "rag_system_intent" // system message, an intent's own template
	TemplateUser   = "rag_user"          // user message: evidence and question
)

// Data keys: the JSON names of the fields of Input.
const (
	keyQuestion     = "question"
	keySubQuestions = "sub_questions"
	keyHistory      = "history"
	keyDocuments    = "documents"
	keyTools        = "tools"
	keyIntents      = "intents"
)

// Builder assembles the messages of a RAG answer. It holds only its
// renderer and is safe for concurrent use.
//
// It satisfies builders.Builder, so the service registers it by name:
// Build returns the messages as a JSON array, BuildMessages as values.
type Builder struct {
	r builders.Renderer
}

// New returns the RAG answer builder rendering through r, in practice a
// *manager.Manager holding the default set's rag_* templates.
func New(r builders.Renderer) *Builder { return &Builder{r: r} }

// Name returns "rag_answer".
func (b *Builder) Name() string { return Name }

// Template returns TemplateUser, the template every answer renders; the
// system template depends on the input (see Templates).
func (b *Builder) Template() string { return TemplateUser }

// Templates returns every template the builder may render.
func (b *Builder) Templates() []string {
	return []string{TemplateKB, TemplateTool, TemplateMixed, TemplateIntent, TemplateUser}
}

// Keys returns the data keys the builder reads, sorted: the JSON names of
// the fields of Input.
func (b *Builder) Keys() []string {
	return []string{keyDocuments, keyHistory, keyIntents, keyQuestion, keySubQuestions, keyTools}
}

// Build returns the messages of BuildMessages as an indented JSON array in
// the shape chat APIs take ({"role": …, "content": …}; see message.Message).
func (b *Builder) Build(ctx builders.Context) (string, error) {
	msgs, err := b.BuildMessages(ctx)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(msgs); err != nil {
		return "", fail("", builders.ErrInvalidValue, "cannot encode the messages", err)
	}
	return buf.String(), nil
}

// BuildMessages reads the Input from the data of ctx, one key per field
// ("question", "sub_questions", "history", "documents", "tools",
// "intents"), as Go values of this package or their JSON form, and
// returns its messages. Field names must match exactly; an unknown field
// or a value of the wrong type is ErrInvalidValue naming its path
// ("documents[0].chunks[1].sorce"). When the data has no question, the
// task's intent is the question.
func (b *Builder) BuildMessages(ctx builders.Context) ([]message.Message, error) {
	if err := builders.CheckKeys(b, ctx); err != nil {
		return nil, err
	}
	var in Input
	fields := map[string]any{
		keyQuestion:     &in.Question,
		keySubQuestions: &in.SubQuestions,
		keyHistory:      &in.History,
		keyDocuments:    &in.Documents,
		keyTools:        &in.Tools,
		keyIntents:      &in.Intents,
	}
	for _, key := range ctx.Keys() {
		v, _ := ctx.Value(key)
		if err := strictjson.Decode(v, fields[key]); err != nil {
			var pe *strictjson.PathError
			errors.As(err, &pe) // Decode's errors are *PathError
			return nil, fail(key+pe.Path, builders.ErrInvalidValue, pe.Msg, nil)
		}
	}
	if in.Question == "" {
		in.Question = ctx.Task().Intent
	}
	return b.Messages(in)
}

// Messages assembles the answer's messages: the system message of the
// plan (see PlanFor), the history as given, and one user message holding
// the tool data, the documents and the question.
func (b *Builder) Messages(in Input) ([]message.Message, error) {
	if b.r == nil {
		return nil, fail("", builders.ErrNoRenderer, "made without a renderer; construct it with rag.New(manager)", nil)
	}
	p, err := prepare(in)
	if err != nil {
		return nil, err
	}
	rules := p.plan.Rules
	if rules == nil {
		rules = []string{}
	}
	sysVars := map[string]any{"rules": rules}
	if p.plan.Override != "" {
		sysVars["template"] = p.plan.Override // the host's own text: no tag table
	} else {
		sysVars["tags"] = tags
	}
	system, err := b.render(p.plan.Template, sysVars)
	if err != nil {
		return nil, err
	}
	tools := p.tools
	if tools == nil {
		tools = []map[string]any{}
	}
	user, err := b.render(TemplateUser, map[string]any{
		"tags":          tags,
		"tools":         tools,
		"documents":     documentVars(p.docs, p.names),
		"question":      builders.EscapeXML(p.question),
		"sub_questions": escapeAll(p.subs),
	})
	if err != nil {
		return nil, err
	}
	msgs := make([]message.Message, 0, len(in.History)+2)
	msgs = append(msgs, text(message.RoleSystem, system))
	msgs = append(msgs, in.History...)
	return append(msgs, text(message.RoleUser, user)), nil
}

// text makes a message of one text part.
func text(role, content string) message.Message {
	return message.Message{Role: role, Parts: []message.Part{{Type: message.PartText, Text: content}}}
}

// render renders one template, naming it in the error.
func (b *Builder) render(name string, vars map[string]any) (string, error) {
	out, err := b.r.Render(name, vars)
	if err != nil {
		return "", fail("", builders.ErrRender, fmt.Sprintf("template %q", name), err)
	}
	return out, nil
}
