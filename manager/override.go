package manager

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
)

// Overrides: a host replaces a template's source at run time, as LlamaIndex
// hosts do with update_prompts. A replacement passes every check a
// template file passes before it is used, and takes effect by swapping in
// a new snapshot: the serving one is never modified.
//
// Overrides are part of the serving set (snapshot.overrides), so a render
// sees templates and overrides of one consistent set. They survive
// reloads: a reload loads and checks the files as always, then re-applies
// every override to the new set before it serves (loadFrom); if an
// override no longer passes against the new files, the reload fails as a
// whole and the last good set, override included, keeps serving. Override
// and RemoveOverride hold the reload semaphore, so they and reloads swap
// sets one at a time and none is lost.

// override is one replaced template.
type override struct {
	source string
	file   *compiled // the template as its file defines it, restored by RemoveOverride
}

// overrideSuffix marks positions in an override's source in error
// messages: "greet.md (override):3:7: …".
const overrideSuffix = " (override)"

// Override replaces the source of template name with source, as if its
// file said so. The source passes every check a template file passes —
// syntax, supported constructs, includes confined to the template root,
// every variable declared by the template's index.json entry, the chat
// structure — against the entry as it stands: an override changes the
// wording, never the variables a caller passes. It must also keep the
// template's form: a text template stays text and a chat template stays
// chat (ErrChatTemplate otherwise), so the callers' Render or
// RenderMessages keeps working. A source that fails is refused with a
// *LoadError whose positions read "path (override):line:col", and the
// serving set is unchanged.
//
// On success the new source serves every later render, Prompts made by
// Partial included. An override lasts until RemoveOverride, across
// reloads: every reload re-applies it to the set it loaded (the file
// itself is still loaded and checked). When an override no longer passes
// against the reloaded files — its template gone from index.json, a
// variable it reads no longer declared, the file switched between text and
// chat — that reload fails and the last good set keeps serving, so fix or
// remove the override.
func (m *Manager) Override(name, source string) error {
	return m.OverrideAll(map[string]string{name: source})
}

// OverrideAll is Override for several templates at once: either every
// source passes and all are swapped in together, or none is. Every
// problem of every source is reported.
//
// Like Reload, it waits for a reload in progress; do not call it from a
// Subscribe function.
func (m *Manager) OverrideAll(sources map[string]string) error {
	m.reloads.sem <- struct{}{}
	defer func() { <-m.reloads.sem }()
	if m.closed.Load() {
		return ErrClosed
	}
	if len(sources) == 0 {
		return nil
	}
	fsys, done, err := m.currentFS()
	if err != nil {
		return err
	}
	defer done()
	next, err := withOverrides(m.cur.Load(), sources, fsys, m.cfg, false)
	if err != nil {
		return err
	}
	m.cur.Store(next)
	m.cfg.logger.Info("promptkit: templates overridden", "templates", slices.Sorted(maps.Keys(sources)), "generation", next.gen)
	return nil
}

// RemoveOverride ends the overrides of the named templates: each serves
// its file's version again (as of the last load). A template without an
// override is left as it is; an unknown name is ErrUnknownTemplate.
func (m *Manager) RemoveOverride(names ...string) error {
	m.reloads.sem <- struct{}{}
	defer func() { <-m.reloads.sem }()
	if m.closed.Load() {
		return ErrClosed
	}
	cur := m.cur.Load()
	next := *cur
	next.templates = maps.Clone(cur.templates)
	next.overrides = maps.Clone(cur.overrides)
	changed := false
	for _, name := range names {
		if _, ok := cur.templates[name]; !ok {
			return unknownTemplate(cur, name)
		}
		if o, ok := cur.overrides[name]; ok {
			next.templates[name] = o.file
			delete(next.overrides, name)
			changed = true
		}
	}
	if changed {
		m.cur.Store(&next)
		m.cfg.logger.Info("promptkit: overrides removed", "templates", names, "generation", next.gen)
	}
	return nil
}

// Overrides returns the source of every overridden template, by name.
func (m *Manager) Overrides() map[string]string {
	s := m.cur.Load()
	out := make(map[string]string, len(s.overrides))
	for name, o := range s.overrides {
		out[name] = o.source
	}
	return out
}

// loadFrom loads the set from fsys for a reload (recording what it reads
// in log, when not nil), and re-applies to it the
// overrides of the set serving; an override that no longer passes fails
// the reload. The caller holds m.reloads.sem.
func (m *Manager) loadFrom(fsys fs.FS, log readLog) (*snapshot, error) {
	s, err := load(fsys, m.cfg, m.cur.Load(), log)
	if err != nil {
		return nil, err
	}
	prev := m.cur.Load()
	if len(prev.overrides) == 0 {
		return s, nil
	}
	sources := make(map[string]string, len(prev.overrides))
	for name, o := range prev.overrides {
		sources[name] = o.source
	}
	return withOverrides(s, sources, fsys, m.cfg, true)
}

// currentFS returns the template files as a reload reads them: a manager
// made by Open re-opens its directory (see loadAgain).
func (m *Manager) currentFS() (fs.FS, func(), error) {
	if m.dir == "" {
		return m.fsys, func() {}, nil
	}
	root, err := openRoot(m.dir)
	if err != nil {
		return nil, nil, err
	}
	return newRootFS(root), func() { root.Close() }, nil
}

// withOverrides returns a copy of cur with the templates of sources
// replaced, or a *LoadError with every problem. cur is not modified.
func withOverrides(cur *snapshot, sources map[string]string, fsys fs.FS, cfg *config, reloading bool) (*snapshot, error) {
	next := *cur
	next.templates = maps.Clone(cur.templates)
	next.overrides = maps.Clone(cur.overrides)
	if next.overrides == nil {
		next.overrides = map[string]override{}
	}
	l := newLoader(fsys, cfg)
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		c, ok := cur.templates[name]
		if !ok {
			msg := fmt.Sprintf("cannot override an unknown template (known: %s)", strings.Join(cur.names, ", "))
			if reloading {
				msg = "the template is overridden (Override) but index.json no longer has it; remove the override (RemoveOverride)"
			}
			l.problem(&Error{Kind: ErrUnknownTemplate, Template: name, Msg: msg})
			continue
		}
		file := c
		if o, ok := cur.overrides[name]; ok {
			file = o.file
		}
		if nc := l.compileOverride(file, sources[name]); nc != nil {
			next.templates[name] = nc
			next.overrides[name] = override{source: sources[name], file: file}
		}
	}
	if len(l.problems) > 0 {
		return nil, &LoadError{Problems: l.problems}
	}
	return &next, nil
}

// compileOverride compiles source as the template file defines, with the
// file's index entry.
func (l *loader) compileOverride(file *compiled, source string) *compiled {
	e := file.info
	e.Hash = ""
	e.Variables = slices.Clone(e.Variables)
	c := l.compileSource(e, file.info.Path+overrideSuffix, source)
	if c == nil {
		return nil
	}
	if c.chat != file.chat {
		form := map[bool]string{false: "a text template (rendered with Render)", true: "a chat template (rendered with RenderMessages)"}
		l.problem(&Error{Kind: ErrChatTemplate, Template: e.Name, Path: e.Path,
			Msg: fmt.Sprintf("the override would make %s out of %s; an override must keep the template's form", form[c.chat], form[file.chat])})
		return nil
	}
	c.info.Path = file.info.Path
	return c
}
