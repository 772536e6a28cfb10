package service

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Sentinel errors of the service.
var (
	// ErrUnknownBuilder is returned by Build for a name no builder has.
	ErrUnknownBuilder = errors.New("service: unknown builder")
	// ErrBuilderPanicked is returned by Build and BuildMessages when the
	// builder panicked; the error names the builder and the panic value.
	ErrBuilderPanicked = errors.New("service: builder panicked")
	// ErrDuplicateBuilder is returned by New when two builders share a name.
	ErrDuplicateBuilder = errors.New("service: duplicate builder")
	// ErrNoBuilders is returned by New when no option registers a builder:
	// a service builds nothing by itself, not even the default builders
	// (WithDefaultBuilders).
	ErrNoBuilders = errors.New("service: no builders")
)

// Service dispatches builds to builders by name. Make one with New.
type Service struct {
	m      *manager.Manager // for Prompts and UpdatePrompts (prompts.go)
	byName map[string]entry
	infos  []Info // sorted by name
	known  string // the names, for errors
}

// entry is one registered builder and the data keys it reads.
type entry struct {
	b    builders.Builder
	keys []string
}

// Info describes one registered builder.
type Info struct {
	Name     string   // the name hosts build by
	Template string   // the template it renders
	Keys     []string // the data keys it reads, sorted
}

// New makes the service of the builders the options register: the
// default builders (WithDefaultBuilders), a host's own (WithBuilders), or
// both. Every template each builder renders must be in m
// (manager.ErrUnknownTemplate otherwise, naming each missing one), names
// must be unique (ErrDuplicateBuilder), and at least one builder is needed
// (ErrNoBuilders).
func New(m *manager.Manager, opts ...Option) (*Service, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: service.New needs a manager", builders.ErrNoRenderer)
	}
	cfg := defaults()
	for _, opt := range opts {
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	var bs []builders.Builder
	if cfg.defaults {
		ds, err := DefaultBuilders(m, builders.Config{BotName: cfg.botName, NotePrefix: cfg.notePrefix})
		if err != nil {
			return nil, fmt.Errorf("service: %w", err)
		}
		bs = ds
	}
	bs = append(bs, cfg.builders...)
	if len(bs) == 0 {
		return nil, fmt.Errorf("%w: register the default builders with WithDefaultBuilders, or your own with WithBuilders", ErrNoBuilders)
	}

	s := &Service{m: m, byName: make(map[string]entry, len(bs))}
	var errs []error
	for _, b := range bs {
		name, tmpl := b.Name(), b.Template()
		switch _, taken := s.byName[name]; {
		case name == "":
			errs = append(errs, fmt.Errorf("%w: a builder of type %T has an empty name", ErrInvalidOption, b))
			continue
		case taken:
			errs = append(errs, fmt.Errorf("%w: %q is registered twice (%T and %T)", ErrDuplicateBuilder, name, s.byName[name].b, b))
			continue
		}
		for _, t := range builders.Templates(b) {
			if _, ok := m.Lookup(t); !ok {
				errs = append(errs, fmt.Errorf("%w: builder %q renders template %q, which the template set does not have",
					manager.ErrUnknownTemplate, name, t))
			}
		}
		keys := b.Keys()
		s.byName[name] = entry{b: b, keys: keys}
		s.infos = append(s.infos, Info{Name: name, Template: tmpl, Keys: keys})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(s.infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	names := make([]string, len(s.infos))
	for i, in := range s.infos {
		names[i] = in.Name
	}
	s.known = strings.Join(names, ", ")
	return s, nil
}

// Build makes the prompt of the builder called name from the task and the
// data (the named arguments of the call). The data is copied, so the
// caller may reuse it; a key the builder does not read is an error
// (builders.ErrUnknownKey). Errors name the builder; see the package doc.
func (s *Service) Build(name string, task builders.Task, data map[string]any) (string, error) {
	e, ok := s.byName[name]
	if !ok {
		return "", fmt.Errorf("%w %q (known: %s)", ErrUnknownBuilder, name, s.known)
	}
	ctx := builders.NewContext(task, data)
	if _, unknown := ctx.Unknown(e.keys); unknown {
		return "", builders.CheckKeys(e.b, ctx)
	}
	out, err := contain(name, func() (string, error) { return e.b.Build(ctx) })
	if err != nil {
		return "", named(name, err)
	}
	return out, nil
}

// named makes a builder's error name the builder, once: an error of the
// builders of package builders and a contained panic already do.
func named(name string, err error) error {
	var be *builders.Error
	if errors.As(err, &be) && be.Builder == name {
		return err
	}
	var pe *panicError
	if errors.As(err, &pe) && pe.name == name {
		return err
	}
	return fmt.Errorf("service: builder %q: %w", name, err)
}

// Builders describes the registered builders, sorted by name.
func (s *Service) Builders() []Info {
	out := make([]Info, len(s.infos))
	for i, in := range s.infos {
		in.Keys = slices.Clone(in.Keys)
		out[i] = in
	}
	return out
}

// contain runs one builder call and turns a panic into an error naming
// the builder, so a faulty builder cannot take the host down.
func contain[T any](name string, build func() (T, error)) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			out, err = zero, &panicError{name: name, value: r}
		}
	}()
	return build()
}

// panicError is the error of a builder that panicked: ErrBuilderPanicked,
// naming the builder and the panic value.
type panicError struct {
	name  string
	value any
}

func (e *panicError) Error() string {
	return fmt.Sprintf("%v: builder %q: %v", ErrBuilderPanicked, e.name, e.value)
}

// Unwrap exposes the sentinel and, when the builder panicked with an
// error (a runtime.Error…), that error.
func (e *panicError) Unwrap() []error {
	if err, ok := e.value.(error); ok {
		return []error{ErrBuilderPanicked, err}
	}
	return []error{ErrBuilderPanicked}
}
