package service

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Namespaced prompts, as LlamaIndex's get_prompts and update_prompts: every
// template a builder renders is a prompt under the key "builder:template"
// (for example "title:title" or "rag_answer:rag_user"), and a host can
// replace one at run time with new template source.

var (
	// ErrUnknownPrompt is returned by UpdatePrompts and RestorePrompts for
	// a key that names no prompt of the service.
	ErrUnknownPrompt = errors.New("service: unknown prompt")
	// ErrConflictingPrompts is returned by UpdatePrompts for two keys that
	// name one template with different sources.
	ErrConflictingPrompts = errors.New("service: conflicting prompts")
)

// templatesOf returns the templates builder b may render.
func templatesOf(e entry) []string { return builders.Templates(e.b) }

// Prompts describes every prompt of the service under its key
// "builder:template": the template as the manager serves it now, an
// override (see UpdatePrompts) included. The map is the caller's.
func (s *Service) Prompts() map[string]manager.Template {
	out := map[string]manager.Template{}
	for _, in := range s.infos {
		for _, tmpl := range templatesOf(s.byName[in.Name]) {
			if t, ok := s.m.Lookup(tmpl); ok {
				out[in.Name+":"+tmpl] = t
			}
		}
	}
	return out
}

// UpdatePrompts replaces prompts at run time: each key "builder:template"
// (split at its first colon) gets the Jinja source it maps to. Every
// source passes the checks a template file passes, against the template's
// index.json entry, before anything changes, and all are swapped in at
// once or none is (see manager.Manager.OverrideAll). An unknown key is
// ErrUnknownPrompt naming it and the known keys.
//
// A replacement belongs to the template, not to the key: every builder
// rendering the template, and every direct render of it, sees it. Two
// keys naming one template with different sources are an error. A
// replacement lasts until RestorePrompts, across reloads of the template
// set: a watched set re-applies it to every set it reloads, and a reload
// that it no longer fits fails, keeping the last good set serving.
func (s *Service) UpdatePrompts(prompts map[string]string) error {
	templates, err := s.resolve(slices.Sorted(maps.Keys(prompts)))
	if err != nil {
		return err
	}
	sources := map[string]string{}
	from := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(prompts)) {
		tmpl := templates[key]
		if prev, ok := from[tmpl]; ok && sources[tmpl] != prompts[key] {
			return fmt.Errorf("%w: %q and %q replace template %q with different sources", ErrConflictingPrompts, prev, key, tmpl)
		}
		sources[tmpl], from[tmpl] = prompts[key], key
	}
	if err := s.m.OverrideAll(sources); err != nil {
		return fmt.Errorf("service: update prompts: %w", err)
	}
	return nil
}

// RestorePrompts ends the replacements of the given keys: their templates
// serve their files' versions again.
func (s *Service) RestorePrompts(keys ...string) error {
	templates, err := s.resolve(keys)
	if err != nil {
		return err
	}
	if err := s.m.RemoveOverride(slices.Collect(maps.Values(templates))...); err != nil {
		return fmt.Errorf("service: restore prompts: %w", err)
	}
	return nil
}

// resolve maps each key to its template, or reports the first unknown key.
func (s *Service) resolve(keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	for _, key := range keys {
		builder, tmpl, _ := strings.Cut(key, ":")
		e, ok := s.byName[builder]
		if !ok || !slices.Contains(templatesOf(e), tmpl) {
			return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownPrompt, key, strings.Join(slices.Sorted(maps.Keys(s.Prompts())), ", "))
		}
		out[key] = tmpl
	}
	return out, nil
}
