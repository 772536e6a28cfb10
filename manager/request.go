package manager

import (
	"bytes"
	"context"
	"errors"

	"github.com/seed-e7d2830f/promptkit/internal/jsontree"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Request renders the named template and returns the provider-neutral
// request its call contract declares: the messages RenderMessages makes
// (one per chat block; a template without chat blocks is one user
// message holding its text), the contract's model settings, tools and
// output schema, and — when it marks a cache breakpoint — the message
// that ends the cacheable prefix carrying a message.CacheControl. The
// variables follow Render's strict rules. The providers module turns the
// request into the params of OpenAI's and Anthropic's official SDKs.
func (m *Manager) Request(ctx context.Context, name string, vars map[string]any) (message.Request, error) {
	s := m.cur.Load()
	c := s.templates[name]
	if c == nil {
		return message.Request{}, unknownTemplate(s, name)
	}
	msgs, err := m.RenderMessagesContext(ctx, name, vars)
	if err != nil {
		return message.Request{}, err
	}
	ct := c.info.Contract.clone()
	req := message.Request{Model: ct.Model, Messages: msgs, Tools: ct.Tools, Output: ct.Output}
	if k := ct.Cache; k != nil {
		// The prefix was proven to render on every render: a render that
		// succeeded has the message.
		if k.Message >= len(msgs) {
			return message.Request{}, c.errorf(ErrContract, nil, "cache: the render made %d messages, and the breakpoint follows message %d", len(msgs), k.Message)
		}
		req.Messages[k.Message].CacheControl = &message.CacheControl{TTL: k.TTL}
	}
	return req, nil
}

// ValidateOutput validates a model's answer — its JSON text — against the
// output schema of the named template's contract. It returns nil when the
// answer matches, an *Error wrapping ErrInvalidOutput that names every
// offending path ("answer.days[2].temp: want number, got string") when it
// does not, and ErrContract for a template without an output schema. The
// answer is held to the set's limits: at most WithMaxOutputBytes of JSON
// without a key twice in an object, validated under ctx. Code that
// promptkit gen writes for a template with an output schema decodes
// answers through it.
func (m *Manager) ValidateOutput(ctx context.Context, name string, answer []byte) error {
	s := m.cur.Load()
	c := s.templates[name]
	if c == nil {
		return unknownTemplate(s, name)
	}
	out := c.info.Contract.output
	if out == nil {
		return c.errorf(ErrContract, nil, "declares no output schema (\"output\" in its entry of index.json)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return &Error{Kind: ErrCanceled, Template: name, Msg: "validating the answer", Err: err}
	}
	if max := m.cfg.limits.MaxOutput; max > 0 && len(answer) > max {
		return c.errorf(ErrInvalidOutput, nil, "invalid output: the answer is %d bytes, over the limit of %d (WithMaxOutputBytes)", len(answer), max)
	}
	answer = bytes.TrimPrefix(answer, []byte("\ufeff"))
	if _, err := jsontree.Parse(answer); err != nil {
		return c.errorf(ErrInvalidOutput, nil, "invalid output: the answer is not JSON: %v", err)
	}
	v, err := DecodeJSON(answer)
	if err != nil {
		return c.errorf(ErrInvalidOutput, nil, "invalid output: the answer is not JSON: %v", err)
	}
	bad, err := out.Validate("answer", v, &schema.Budget{Ctx: ctx, Work: m.cfg.limits.MaxWork})
	switch {
	case errors.Is(err, schema.ErrWork):
		return c.errorf(ErrOutputLimit, nil, "validating the answer against the output schema would exceed the work budget (WithMaxWork)")
	case err != nil:
		e := c.errorf(ErrCanceled, nil, "cancelled while validating the answer")
		e.Err = err
		return e
	case bad != nil:
		return c.errorf(ErrInvalidOutput, nil, "invalid output: %s", violationList(bad))
	}
	return nil
}
