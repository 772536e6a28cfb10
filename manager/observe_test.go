package manager_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

type recorder struct {
	mu      sync.Mutex
	renders []manager.RenderEvent
	reloads []manager.ReloadEvent
}

func (r *recorder) ObserveRender(ev manager.RenderEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renders = append(r.renders, ev)
}

func (r *recorder) ObserveReload(ev manager.ReloadEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reloads = append(r.reloads, ev)
}

func TestObserverSeesRendersAndReloads(t *testing.T) {
	rec := &recorder{}
	fsys := set(`{"version":1,"templates":{
		"greet":{"path":"greet.md","variables":["name"]},
		"chat":{"path":"chat.md","variables":["q"]}}}`, map[string]string{
		"greet.md": "Hello {{ name }}.",
		"chat.md":  `{% chat role="system" %}Be brief.{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`,
	})
	m, err := manager.New(fsys, manager.WithObserver(rec))
	require.NoError(t, err)
	greet, _ := m.Lookup("greet")

	_, err = m.Render("greet", map[string]any{"name": "Ann"})
	require.NoError(t, err)
	_, err = m.Render("greet", nil)
	require.ErrorIs(t, err, manager.ErrMissingVariables)
	_, err = m.Render("nope", nil)
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
	_, err = m.RenderMessages("chat", map[string]any{"q": "Why?"})
	require.NoError(t, err)
	p, err := m.Partial("greet", map[string]any{"name": "Bo"})
	require.NoError(t, err)
	_, err = p.Render(nil)
	require.NoError(t, err)
	require.NoError(t, m.Reload(context.Background()))

	require.Len(t, rec.renders, 5)
	r := rec.renders
	assert.Equal(t, manager.RenderEvent{Template: "greet", Hash: greet.Hash, Digest: m.Digest(), Generation: 1,
		Bytes: len("Hello Ann."), Duration: r[0].Duration}, r[0])
	assert.Positive(t, r[0].Duration)
	assert.Equal(t, "missing_variables", r[1].Kind)
	assert.ErrorIs(t, r[1].Err, manager.ErrMissingVariables)
	assert.Equal(t, greet.Hash, r[1].Hash)
	assert.Equal(t, "unknown_template", r[2].Kind)
	assert.Empty(t, r[2].Hash)
	assert.Equal(t, "nope", r[2].Template)
	assert.True(t, r[3].Messages)
	assert.Equal(t, len("Be brief.")+len("Why?"), r[3].Bytes)
	assert.Equal(t, "greet", r[4].Template)
	assert.Equal(t, len("Hello Bo."), r[4].Bytes)

	require.Len(t, rec.reloads, 1)
	assert.Equal(t, uint64(2), rec.reloads[0].Generation)
	assert.Equal(t, m.Digest(), rec.reloads[0].Digest)
	assert.Equal(t, manager.TriggerReload, rec.reloads[0].Trigger)
}

func TestWithObserverNil(t *testing.T) {
	_, err := manager.New(set(`{"version":1,"templates":{}}`, nil), manager.WithObserver(nil))
	require.Error(t, err)
}

func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("x"), "other"},
		{manager.ErrTemplate, "template"},
		{fmt.Errorf("wrapped: %w", manager.ErrMissingVariables), "missing_variables"},
		{&manager.Error{Kind: manager.ErrExtraVariables}, "extra_variables"},
		{&manager.LoadError{Problems: []*manager.Error{{Kind: manager.ErrIndex}}}, "index"},
		{manager.ErrOutputLimit, "output_limit"},
		{manager.ErrUnknownTemplate, "unknown_template"},
		{manager.ErrChatTemplate, "chat_template"},
	} {
		assert.Equal(t, tc.want, manager.ErrorKind(tc.err), "%v", tc.err)
	}
}
