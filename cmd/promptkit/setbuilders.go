package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

// served is what the builders and build commands serve from a set: the
// default builders (service.DefaultBuilders) whose every template the set
// holds. The CLI has no builders of a host's program; those are served by
// the host's own service.
type served struct {
	svc     *service.Service    // nil when the set serves no default builder
	missing map[string][]string // default builder → templates the set lacks
}

func setBuilders(m *manager.Manager, botName, notePrefix string) (*served, error) {
	if botName == "" {
		botName = service.DefaultBotName
	}
	keep, missing, err := service.ServableDefaults(m, builders.Config{BotName: botName, NotePrefix: notePrefix})
	if err != nil {
		return nil, usagef("--note-prefix %q: %v", notePrefix, err) // the only option that can be wrong
	}
	s := &served{missing: missing}
	if len(keep) > 0 {
		if s.svc, err = service.New(m, service.WithBuilders(keep...)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// servable explains why the set cannot serve the default builder name.
func (s *served) servable(name string) error {
	if lacks, ok := s.missing[name]; ok {
		return fmt.Errorf("%w: builder %q renders %s, which the template set does not have",
			manager.ErrUnknownTemplate, name, quoteAll(lacks))
	}
	if s.svc == nil {
		return fmt.Errorf("%w %q: the template set has the templates of no default builder; "+
			"a program serves its own builders with service.WithBuilders", service.ErrUnknownBuilder, name)
	}
	return nil
}

// unserved is one line naming the default builders the set cannot serve,
// or "" when it serves them all.
func (s *served) unserved() string {
	if len(s.missing) == 0 {
		return ""
	}
	return fmt.Sprintf("the template set lacks the templates of %s; a program serves builders of its own with service.WithBuilders",
		strings.Join(slices.Sorted(maps.Keys(s.missing)), ", "))
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	if len(q) == 1 {
		return "template " + q[0]
	}
	return "templates " + strings.Join(q, ", ")
}
