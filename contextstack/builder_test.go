package contextstack

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuilderAddsEachKind(t *testing.T) {
	git := Skill{Name: "git", Description: "版本控制"}
	d := Document{ID: "d1", ShorterID: "1", Text: "片段"}
	bundle := Bundle{Name: "git", Files: []BundleFile{{Path: "SKILL.md"}}}
	s, err := NewBuilder().
		UserInstructions("request", "user").
		RuntimeInstructions("loop", "runtime").
		SkillCatalog("skills", git).
		ActivatedSkill("skill:git", git, "body").
		ToolInstructions("platform", "search", "cite").
		ContextPrompt("rag", "context").
		Tools("rag", tool("search"), tool("fetch")).
		Document("citations", d).
		Bundles("skill:git", bundle).
		Layer(Layer{Source: "platform", Priority: 5, Content: RuntimeInstructions{Text: "guard"}}).
		Build()
	require.NoError(t, err)
	assert.Equal(t, []Layer{
		{Source: "request", Content: UserInstructions{Text: "user"}},
		{Source: "loop", Content: RuntimeInstructions{Text: "runtime"}},
		{Source: "skills", Content: SkillCatalog{Skills: []Skill{git}}},
		{Source: "skill:git", Content: SkillBody{Skill: git, Body: "body"}},
		{Source: "platform", Content: ToolInstructions{Tool: "search", Text: "cite"}},
		{Source: "rag", Content: ContextPrompt{Text: "context"}},
		{Source: "rag", Content: ToolDefinitions{Tools: []ToolSpec{tool("search"), tool("fetch")}}},
		{Source: "citations", Content: d},
		{Source: "skill:git", Content: ContentBundles{Bundles: []Bundle{bundle}}},
		{Source: "platform", Priority: 5, Content: RuntimeInstructions{Text: "guard"}},
	}, s.Layers())
}

func TestBuildToolNameConflict(t *testing.T) {
	tests := []struct {
		name    string
		build   func(*Builder) *Builder
		want    ToolNameConflictError
		wantMsg string
	}{
		{
			name: "across layers",
			build: func(b *Builder) *Builder {
				return b.Tools("rag", tool("search")).
					UserInstructions("request", "user").
					Tools("platform", tool("clock"), tool("search"))
			},
			want:    ToolNameConflictError{Name: "search", FirstSource: "rag", SecondSource: "platform", FirstLayer: 0, SecondLayer: 2},
			wantMsg: `contextstack: tool name conflict: "search" in layer 2 (source "platform") is already defined in layer 0 (source "rag")`,
		},
		{
			name: "across layers of one source",
			build: func(b *Builder) *Builder {
				return b.Tools("rag", tool("search")).Tools("rag", tool("search"))
			},
			want:    ToolNameConflictError{Name: "search", FirstSource: "rag", SecondSource: "rag", FirstLayer: 0, SecondLayer: 1},
			wantMsg: `contextstack: tool name conflict: "search" in layer 1 (source "rag") is already defined in layer 0 (source "rag")`,
		},
		{
			name: "within one layer",
			build: func(b *Builder) *Builder {
				return b.UserInstructions("request", "user").
					Tools("mcp:fs", tool("read"), tool("write"), tool("read"))
			},
			want:    ToolNameConflictError{Name: "read", FirstSource: "mcp:fs", SecondSource: "mcp:fs", FirstLayer: 1, SecondLayer: 1},
			wantMsg: `contextstack: tool name conflict: "read" is defined twice in layer 1 (source "mcp:fs")`,
		},
		{
			name: "same name, different definitions",
			build: func(b *Builder) *Builder {
				other := tool("search")
				other.Description = "another search"
				other.InputSchema = Schema(`{}`)
				return b.Tools("rag", tool("search")).Tools("web", other)
			},
			want:    ToolNameConflictError{Name: "search", FirstSource: "rag", SecondSource: "web", FirstLayer: 0, SecondLayer: 1},
			wantMsg: `contextstack: tool name conflict: "search" in layer 1 (source "web") is already defined in layer 0 (source "rag")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.build(NewBuilder()).Build()
			require.Error(t, err)
			assert.Equal(t, 0, s.Len(), "no stack on error")

			var conflict *ToolNameConflictError
			require.True(t, errors.As(err, &conflict))
			assert.Equal(t, tt.want, *conflict)
			assert.Equal(t, "TOOL_NAME_CONFLICT", conflict.Code())
			assert.ErrorIs(t, err, ErrToolNameConflict)
			assert.Equal(t, tt.wantMsg, err.Error())

			// Wrapped by a host, it is still found.
			wrapped := errors.Join(errors.New("turn 3"), err)
			require.ErrorAs(t, wrapped, &conflict)
			assert.Equal(t, tt.want.Name, conflict.Name)
		})
	}
}

func TestBuilderReuse(t *testing.T) {
	b := NewBuilder().UserInstructions("request", "user")
	first, err := b.Build()
	require.NoError(t, err)
	b.RuntimeInstructions("loop", "more")
	second, err := b.Build()
	require.NoError(t, err)
	assert.Equal(t, 1, first.Len(), "a built stack does not grow with its builder")
	assert.Equal(t, 2, second.Len())
}

func TestBuilderCopiesInput(t *testing.T) {
	specs := []ToolSpec{tool("search")}
	b := NewBuilder().Tools("rag", specs...)
	specs[0].Name = "changed"
	s, err := b.Build()
	require.NoError(t, err)
	assert.Equal(t, []string{"search"}, toolNames(s.AllTools()))
}

func TestFrom(t *testing.T) {
	initial := NewStack(user("request", "user"), tools("request", "search"))
	s, err := From(initial).Tools("rag", tool("fetch")).Build()
	require.NoError(t, err)
	assert.Equal(t, []string{"search", "fetch"}, toolNames(s.AllTools()))
	assert.Equal(t, 2, initial.Len(), "the starting stack is untouched")

	_, err = From(initial).Tools("rag", tool("search")).Build()
	var conflict *ToolNameConflictError
	require.ErrorAs(t, err, &conflict)
	assert.Equal(t, "request", conflict.FirstSource)
	assert.Equal(t, "rag", conflict.SecondSource)
}

func TestBuildRejectsInvalidLayers(t *testing.T) {
	_, err := NewBuilder().Layer(Layer{Source: "oops"}).Build()
	assert.ErrorIs(t, err, ErrInvalidLayer)
	_, err = NewBuilder().Tools("rag", ToolSpec{Description: "no name"}).Build()
	assert.ErrorIs(t, err, ErrInvalidLayer)
}

func TestBuilderCanBeUsedAfterBuild(t *testing.T) {
	b := NewBuilder().UserInstructions("request", "user").Tools("rag", tool("search"))
	first, err := b.Build()
	require.NoError(t, err)
	second, err := b.Tools("web", tool("fetch")).Build()
	require.NoError(t, err)
	third, err := b.Tools("platform", tool("clock")).Build()
	require.NoError(t, err)

	assert.Equal(t, []string{"search"}, toolNames(first.AllTools()), "later layers do not reach an earlier stack")
	assert.Equal(t, []string{"search", "fetch"}, toolNames(second.AllTools()))
	assert.Equal(t, []string{"search", "fetch", "clock"}, toolNames(third.AllTools()))

	// Stacks grown from a built stack do not write into each other.
	a := first.Append(runtime("a", "a"))
	c := first.Append(runtime("c", "c"))
	assert.Equal(t, "a", a.Layers()[2].Source)
	assert.Equal(t, "c", c.Layers()[2].Source)
	assert.Equal(t, 2, first.Len())
}
