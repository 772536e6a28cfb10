package contextstack

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLayerTypes(t *testing.T) {
	tests := []struct {
		typ      LayerType
		content  Content
		prompt   bool
		priority int
	}{
		{TypeUserInstructions, UserInstructions{}, true, 100},
		{TypeRuntimeInstructions, RuntimeInstructions{}, true, 200},
		{TypeSkillCatalog, SkillCatalog{}, true, 300},
		{TypeSkillBody, SkillBody{}, true, 400},
		{TypeToolInstructions, ToolInstructions{}, true, 450},
		{TypeContextPrompt, ContextPrompt{}, true, 600},
		{TypeToolDefinitions, ToolDefinitions{}, false, StatePriority},
		{TypeDocument, Document{}, false, StatePriority},
		{TypeContentBundles, ContentBundles{}, false, StatePriority},
	}
	require.Len(t, tests, len(LayerTypes()), "every layer type is listed here")
	for i, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			assert.Equal(t, tt.typ, LayerTypes()[i], "LayerTypes order")
			assert.Equal(t, tt.typ, tt.content.Type())
			assert.Equal(t, tt.prompt, tt.typ.IsPrompt())
			assert.Equal(t, tt.priority, tt.typ.DefaultPriority())

			l := Layer{Source: "s", Content: tt.content}
			assert.Equal(t, tt.typ, l.Type())
			assert.Equal(t, tt.priority, l.EffectivePriority(), "0 means the type's default")
			l.Priority = 42
			assert.Equal(t, 42, l.EffectivePriority(), "an override wins")
		})
	}
}

func TestLayerWithoutContent(t *testing.T) {
	var l Layer
	assert.Equal(t, LayerType(""), l.Type())
	assert.False(t, l.Type().IsPrompt())
	assert.Equal(t, StatePriority, l.EffectivePriority())
}

func TestStateLayersRenderNothing(t *testing.T) {
	for _, c := range []Content{ToolDefinitions{Tools: []ToolSpec{tool("a")}}, Document{ID: "d", Text: "text"}, ContentBundles{Bundles: []Bundle{{Name: "b"}}}} {
		r := &fakeRenderer{}
		text, tmpl, err := c.render(r)
		require.NoError(t, err)
		assert.Empty(t, text, "%T", c)
		assert.Empty(t, tmpl)
		assert.Empty(t, r.calls, "a state layer never asks the renderer")
	}
}

func TestPassThroughLayers(t *testing.T) {
	const text = "  <b>&\"原样\"</b>\n"
	for _, c := range []Content{UserInstructions{Text: text}, RuntimeInstructions{Text: text}, ContextPrompt{Text: text}} {
		r := &fakeRenderer{}
		got, tmpl, err := c.render(r)
		require.NoError(t, err)
		assert.Equal(t, text, got, "%T passes its text through as it is", c)
		assert.Empty(t, tmpl)
		assert.Empty(t, r.calls)
	}
}

func TestTemplateLayersVariables(t *testing.T) {
	git := Skill{Name: "git", Description: "版本控制", Location: "skills/git", Resources: []string{"a.md", "b.md"}}
	tests := []struct {
		name     string
		content  Content
		template string
		vars     map[string]any
	}{
		{
			name:     "skill catalog",
			content:  SkillCatalog{Skills: []Skill{git, {Name: "web"}}},
			template: TemplateSkillCatalog,
			vars: map[string]any{"skills": []any{
				map[string]any{"name": "git", "description": "版本控制", "location": "skills/git", "resources": []any{"a.md", "b.md"}},
				map[string]any{"name": "web", "description": "", "location": "", "resources": []any{}},
			}},
		},
		{
			name:     "empty skill catalog",
			content:  SkillCatalog{},
			template: TemplateSkillCatalog,
			vars:     map[string]any{"skills": []any{}},
		},
		{
			name:     "skill body",
			content:  SkillBody{Skill: git, Body: "先运行 git status。"},
			template: TemplateSkillBody,
			vars: map[string]any{
				"name": "git", "description": "版本控制", "location": "skills/git",
				"resources": []any{"a.md", "b.md"}, "body": "先运行 git status。",
			},
		},
		{
			name:     "tool instructions",
			content:  ToolInstructions{Tool: "search", Text: "引用编号"},
			template: TemplateToolInstructions,
			vars:     map[string]any{"tool": "search", "instructions": "引用编号"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &fakeRenderer{}
			_, tmpl, err := tt.content.render(r)
			require.NoError(t, err)
			assert.Equal(t, tt.template, tmpl)
			require.Equal(t, []string{tt.template}, r.calls)
			assert.Equal(t, tt.vars, r.vars[0])
		})
	}
}
