package service

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
)

func TestPromptsNamespacedKeys(t *testing.T) {
	m := defaultSet(t)
	s, err := New(m, WithDefaultBuilders())
	require.NoError(t, err)
	prompts := s.Prompts()
	assert.Equal(t, []string{
		"agent_system:agent_system", "context_note:context_note", "injection:injection",
		"planner_board:planner_board", "polish:polish",
		"rag_answer:rag_system_intent", "rag_answer:rag_system_kb", "rag_answer:rag_system_mixed",
		"rag_answer:rag_system_tool", "rag_answer:rag_user",
		"subagent_system:subagent_system", "title:title",
	}, slices.Sorted(maps.Keys(prompts)))
	title := prompts["title:title"]
	assert.Equal(t, "title", title.Name)
	assert.Equal(t, "templates/title.md", title.Path)
	require.Len(t, title.Variables, 1)
	assert.Equal(t, "intent", title.Variables[0].Name)
}

func TestUpdatePromptsReplacesTemplate(t *testing.T) {
	s := newService(t)
	before := s.Prompts()["title:title"]
	require.NoError(t, s.UpdatePrompts(map[string]string{
		"title:title": "Name this task in five words or fewer: <intent>{{ intent }}</intent>",
	}))
	out, err := s.Build("title", builders.Task{Intent: "book a <table> & pay"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Name this task in five words or fewer: <intent>book a &lt;table&gt; &amp; pay</intent>", out,
		"the builder still escapes; the override only changes the wording")
	after := s.Prompts()["title:title"]
	assert.NotEqual(t, before.Hash, after.Hash)
	assert.Equal(t, before.Path, after.Path)

	require.NoError(t, s.RestorePrompts("title:title"))
	out, err = s.Build("title", builders.Task{Intent: "x"}, nil)
	require.NoError(t, err)
	assert.NotContains(t, out, "five words")
	assert.Equal(t, before, s.Prompts()["title:title"])
}

func TestUpdatePromptsUnknownKeys(t *testing.T) {
	s := newService(t)
	for _, key := range []string{"title", "nope:title", "title:nope", "title:title:extra", ":title", "title:", ""} {
		t.Run(key, func(t *testing.T) {
			err := s.UpdatePrompts(map[string]string{key: "x {{ intent }}"})
			require.ErrorIs(t, err, ErrUnknownPrompt)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", key))
			assert.Contains(t, err.Error(), "title:title", "the known keys are listed")
			require.ErrorIs(t, s.RestorePrompts(key), ErrUnknownPrompt)
		})
	}
}

func TestUpdatePromptsStrictAndAtomic(t *testing.T) {
	s := newService(t)
	err := s.UpdatePrompts(map[string]string{
		"title:title":   "fine {{ intent }}",
		"polish:polish": "{{ no_such_variable }}",
	})
	require.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	assert.Contains(t, err.Error(), "templates/polish.md (override):1:4")
	out, err := s.Build("title", builders.Task{Intent: "x"}, nil)
	require.NoError(t, err)
	assert.NotContains(t, out, "fine", "nothing was replaced")

	err = s.UpdatePrompts(map[string]string{"title:title": `{% chat role="user" %}{{ intent }}{% endchat %}`})
	require.ErrorIs(t, err, manager.ErrChatTemplate, "a builder renders text: its template stays text")
}

func TestUpdatePromptsSharedTemplate(t *testing.T) {
	m := defaultSet(t)
	s, err := New(m, WithDefaultBuilders(), WithBuilders(echo{name: "echo", r: m}))
	require.NoError(t, err)
	assert.Contains(t, s.Prompts(), "echo:title")

	err = s.UpdatePrompts(map[string]string{"echo:title": "A {{ intent }}", "title:title": "B {{ intent }}"})
	require.ErrorIs(t, err, ErrConflictingPrompts)
	assert.Contains(t, err.Error(), `"echo:title" and "title:title" replace template "title" with different sources`)

	require.NoError(t, s.UpdatePrompts(map[string]string{"echo:title": "A {{ intent }}", "title:title": "A {{ intent }}"}))
	out, err := s.Build("echo", builders.Task{Title: "t"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "A t", out, "a replacement belongs to the template: every builder of it sees it")
}

func TestUpdatePromptsWhileBuilding(t *testing.T) {
	s := newService(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				out, err := s.Build("title", builders.Task{Intent: "i"}, nil)
				if !assert.NoError(t, err) || !assert.NotEmpty(t, out) {
					return
				}
			}
		}()
	}
	for i := range 20 {
		require.NoError(t, s.UpdatePrompts(map[string]string{"title:title": fmt.Sprintf("v%d {{ intent }}", i)}))
	}
	close(stop)
	wg.Wait()
	out, err := s.Build("title", builders.Task{Intent: "i"}, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "v19 "), out)
}
