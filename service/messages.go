package service

import (
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/message"
)

// ErrNotMessageBuilder is returned by BuildMessages for a builder that
// makes one text prompt rather than a list of messages.
var ErrNotMessageBuilder = errors.New("service: not a message builder")

// MessageBuilder is a builder whose prompt is a list of chat messages, such
// as rag.Builder ("rag_answer"). Its Build returns the list as JSON, so
// Build and the CLI's "promptkit build" serve it like any other builder;
// BuildMessages returns it as values.
//
// A host registers one with WithBuilders:
//
//	svc, err := service.New(m, service.WithBuilders(rag.New(m)))
//	msgs, err := svc.BuildMessages("rag_answer", task, data)
type MessageBuilder interface {
	builders.Builder
	BuildMessages(ctx builders.Context) ([]message.Message, error)
}

// BuildMessages makes the messages of the message builder called name from
// the task and the data, as Build makes a prompt: the data is copied, a key
// the builder does not read is builders.ErrUnknownKey, and errors name the
// builder. A builder that is not a MessageBuilder is ErrNotMessageBuilder.
func (s *Service) BuildMessages(name string, task builders.Task, data map[string]any) ([]message.Message, error) {
	e, ok := s.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownBuilder, name, s.known)
	}
	mb, ok := e.b.(MessageBuilder)
	if !ok {
		return nil, fmt.Errorf("%w: builder %q makes a text prompt; use Build", ErrNotMessageBuilder, name)
	}
	ctx := builders.NewContext(task, data)
	if err := builders.CheckKeys(mb, ctx); err != nil {
		return nil, err
	}
	msgs, err := contain(name, func() ([]message.Message, error) { return mb.BuildMessages(ctx) })
	if err != nil {
		return nil, named(name, err)
	}
	return msgs, nil
}
