package contextstack

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSystemPromptOrder(t *testing.T) {
	tests := []struct {
		name   string
		layers []Layer
		want   []string
	}{
		{
			name: "default priorities order the types",
			layers: []Layer{
				ctxPrompt("rag", "context"),
				{Source: "platform", Content: ToolInstructions{Tool: "search", Text: "cite"}},
				{Source: "skill:git", Content: SkillBody{Skill: Skill{Name: "git"}, Body: "body"}},
				{Source: "skills", Content: SkillCatalog{Skills: []Skill{{Name: "git"}}}},
				runtime("loop", "runtime"),
				user("request", "user"),
			},
			want: []string{
				"user",
				"runtime",
				"<contextstack_skill_catalog skills=[map[description: location: name:git resources:[]]]>",
				"<contextstack_skill_body body=body description= location= name=git resources=[]>",
				"<contextstack_tool_instructions instructions=cite tool=search>",
				"context",
			},
		},
		{
			name: "ties keep insertion order",
			layers: []Layer{
				runtime("a", "first"),
				user("b", "user"),
				runtime("c", "second"),
				runtime("d", "third"),
			},
			want: []string{"user", "first", "second", "third"},
		},
		{
			name: "a priority override moves one layer",
			layers: []Layer{
				user("request", "user"),
				{Source: "platform", Priority: 50, Content: RuntimeInstructions{Text: "guard"}},
				{Source: "late", Priority: 1000, Content: UserInstructions{Text: "last"}},
				ctxPrompt("rag", "context"),
			},
			want: []string{"guard", "user", "context", "last"},
		},
		{
			name: "negative priority sorts before every default",
			layers: []Layer{
				user("request", "user"),
				{Source: "platform", Priority: -1, Content: ContextPrompt{Text: "first"}},
			},
			want: []string{"first", "user"},
		},
		{
			name: "blank renders and state layers are dropped",
			layers: []Layer{
				user("request", "user"),
				runtime("loop", "  \n\t "),
				user("empty", ""),
				tools("rag", "search"),
				doc("d1"),
				{Source: "skill", Content: ContentBundles{Bundles: []Bundle{{Name: "b"}}}},
				ctxPrompt("rag", "context"),
			},
			want: []string{"user", "context"},
		},
		{
			name:   "an empty stack renders nothing",
			layers: nil,
			want:   []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStack(tt.layers...)
			blocks, err := s.SystemPrompt(&fakeRenderer{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, blockTexts(blocks))

			text, err := s.SystemPromptText(&fakeRenderer{})
			require.NoError(t, err)
			want := ""
			for i, w := range tt.want {
				if i > 0 {
					want += BlockSeparator
				}
				want += w
			}
			assert.Equal(t, want, text)
		})
	}
}

func TestSystemPromptBlockMetadata(t *testing.T) {
	s := NewStack(
		ctxPrompt("rag", "context"),
		Layer{Source: "platform", Priority: 7, Content: UserInstructions{Text: "user"}},
	)
	blocks, err := s.SystemPrompt(&fakeRenderer{})
	require.NoError(t, err)
	assert.Equal(t, []Block{
		{Text: "user", Type: TypeUserInstructions, Source: "platform", Priority: 7},
		{Text: "context", Type: TypeContextPrompt, Source: "rag", Priority: 600},
	}, blocks)
}

func TestSystemPromptDropsTemplateBlankRender(t *testing.T) {
	r := &fakeRenderer{blank: map[string]bool{TemplateSkillCatalog: true}}
	s := NewStack(user("request", "user"), Layer{Source: "skills", Content: SkillCatalog{}})
	text, err := s.SystemPromptText(r)
	require.NoError(t, err)
	assert.Equal(t, "user", text)
	assert.Equal(t, []string{TemplateSkillCatalog}, r.calls, "the template decides, so it is asked")
}

func TestSystemPromptRenderError(t *testing.T) {
	r := &fakeRenderer{fail: map[string]error{TemplateToolInstructions: errFake}}
	s := NewStack(
		user("request", "user"),
		doc("d1"),
		Layer{Source: "platform", Content: ToolInstructions{Tool: "search", Text: "cite"}},
	)
	_, err := s.SystemPromptText(r)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrRender)
	assert.ErrorIs(t, err, errFake)
	var re *RenderError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, RenderError{Layer: 2, Type: TypeToolInstructions, Source: "platform", Template: TemplateToolInstructions, Err: errFake}, *re)
	assert.Equal(t, `contextstack: render failed: layer 2 (tool_instructions, source "platform"), template "contextstack_tool_instructions": fake: render failed`, err.Error())
}

func TestStackIsImmutable(t *testing.T) {
	base := NewStack(user("request", "user"), tools("rag", "search"), doc("d1"))
	before := base.Layers()

	ops := []struct {
		name string
		op   func(Stack) (Stack, error)
		want []LayerType
	}{
		{"append", func(s Stack) (Stack, error) { return s.Append(runtime("loop", "x")), nil },
			[]LayerType{TypeUserInstructions, TypeToolDefinitions, TypeDocument, TypeRuntimeInstructions}},
		{"insert at 0", func(s Stack) (Stack, error) { return s.Insert(0, runtime("loop", "x")) },
			[]LayerType{TypeRuntimeInstructions, TypeUserInstructions, TypeToolDefinitions, TypeDocument}},
		{"insert in the middle", func(s Stack) (Stack, error) { return s.Insert(1, runtime("loop", "x"), doc("d2")) },
			[]LayerType{TypeUserInstructions, TypeRuntimeInstructions, TypeDocument, TypeToolDefinitions, TypeDocument}},
		{"insert at Len", func(s Stack) (Stack, error) { return s.Insert(s.Len(), runtime("loop", "x")) },
			[]LayerType{TypeUserInstructions, TypeToolDefinitions, TypeDocument, TypeRuntimeInstructions}},
		{"remove type", func(s Stack) (Stack, error) { return s.RemoveType(TypeToolDefinitions), nil },
			[]LayerType{TypeUserInstructions, TypeDocument}},
		{"remove source", func(s Stack) (Stack, error) { return s.RemoveSource("citations"), nil },
			[]LayerType{TypeUserInstructions, TypeToolDefinitions}},
		{"remove an absent source", func(s Stack) (Stack, error) { return s.RemoveSource("nobody"), nil },
			[]LayerType{TypeUserInstructions, TypeToolDefinitions, TypeDocument}},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			got, err := o.op(base)
			require.NoError(t, err)
			assert.Equal(t, o.want, layerTypes(got))
			assert.Equal(t, before, base.Layers(), "the old stack is untouched")
		})
	}

	t.Run("two appends to one stack do not share storage", func(t *testing.T) {
		a := base.Append(runtime("a", "a"))
		b := base.Append(runtime("b", "b"))
		assert.Equal(t, "a", a.Layers()[3].Source)
		assert.Equal(t, "b", b.Layers()[3].Source)
	})
}

func layerTypes(s Stack) []LayerType {
	var out []LayerType
	for _, l := range s.Layers() {
		out = append(out, l.Type())
	}
	return out
}

func TestInsertOutOfRange(t *testing.T) {
	s := NewStack(user("request", "user"))
	for _, i := range []int{-1, 2, 100} {
		got, err := s.Insert(i, runtime("loop", "x"))
		require.ErrorIs(t, err, ErrIndexOutOfRange, "index %d", i)
		assert.Equal(t, 1, got.Len())
	}
}

func TestStackSharesNothingWithCallers(t *testing.T) {
	specs := []ToolSpec{tool("search")}
	skills := []Skill{{Name: "git", Resources: []string{"a.md"}}}
	meta := map[string]string{"lang": "zh"}
	s := NewStack(
		Layer{Source: "rag", Content: ToolDefinitions{Tools: specs}},
		Layer{Source: "skills", Content: SkillCatalog{Skills: skills}},
		Layer{Source: "citations", Content: Document{ID: "d1", Metadata: meta}},
	)

	// Changing what was passed in changes nothing in the stack.
	specs[0].Name = "changed"
	skills[0].Resources[0] = "changed"
	meta["lang"] = "changed"
	assert.Equal(t, "search", s.AllTools()[0].Name)
	assert.Equal(t, "a.md", s.LayersOf(TypeSkillCatalog)[0].Content.(SkillCatalog).Skills[0].Resources[0])
	assert.Equal(t, "zh", s.AllDocuments()[0].Metadata["lang"])

	// Changing what a reader returned changes nothing either.
	got := s.AllTools()
	got[0].Name = "changed"
	s.Layers()[0].Content.(ToolDefinitions).Tools[0].Name = "changed"
	s.AllDocuments()[0].Metadata["lang"] = "changed"
	s.LayersOf(TypeSkillCatalog)[0].Content.(SkillCatalog).Skills[0].Resources[0] = "changed"
	assert.Equal(t, []ToolSpec{tool("search")}, s.AllTools())
	assert.Equal(t, "zh", s.AllDocuments()[0].Metadata["lang"])
	assert.Equal(t, "a.md", s.LayersOf(TypeSkillCatalog)[0].Content.(SkillCatalog).Skills[0].Resources[0])
}

func TestPointerContentIsStoredAsValue(t *testing.T) {
	s := NewStack(Layer{Source: "request", Content: &UserInstructions{Text: "user"}})
	require.NoError(t, s.Validate())
	assert.Equal(t, UserInstructions{Text: "user"}, s.Layers()[0].Content)
}

func TestReaders(t *testing.T) {
	bundles := []Bundle{{Name: "git", Files: []BundleFile{{Path: "SKILL.md", MediaType: "text/markdown", Content: "# git"}}}}
	s := NewStack(
		doc("d1"),
		tools("rag", "search", "fetch"),
		user("request", "user"),
		tools("platform", "search", "clock"), // search again: first wins
		doc("d2"),
		Layer{Source: "skill:git", Content: ContentBundles{Bundles: bundles}},
		Layer{Source: "skill:web", Content: ContentBundles{Bundles: []Bundle{{Name: "web"}}}},
	)

	t.Run("all tools, deduplicated, first wins", func(t *testing.T) {
		got := s.AllTools()
		assert.Equal(t, []string{"search", "fetch", "clock"}, toolNames(got))
		assert.Equal(t, tool("search"), got[0])
	})
	t.Run("all documents in insertion order", func(t *testing.T) {
		got := s.AllDocuments()
		require.Len(t, got, 2)
		assert.Equal(t, "d1", got[0].ID)
		assert.Equal(t, "d2", got[1].ID)
	})
	t.Run("all bundles", func(t *testing.T) {
		assert.Equal(t, append(bundles, Bundle{Name: "web"}), s.AllBundles())
	})
	t.Run("layers of a type", func(t *testing.T) {
		got := s.LayersOf(TypeToolDefinitions)
		require.Len(t, got, 2)
		assert.Equal(t, "rag", got[0].Source)
		assert.Equal(t, "platform", got[1].Source)
		assert.Empty(t, s.LayersOf(TypeSkillBody))
	})
	t.Run("empty stack", func(t *testing.T) {
		var empty Stack
		assert.Empty(t, empty.AllTools())
		assert.Empty(t, empty.AllDocuments())
		assert.Empty(t, empty.AllBundles())
		assert.Empty(t, empty.Layers())
		assert.Equal(t, 0, empty.Len())
	})
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		layers  []Layer
		wantErr error
		wantMsg string
	}{
		{name: "valid", layers: []Layer{user("request", "u"), tools("rag", "a", "b"), tools("platform", "c")}},
		{
			name:    "conflict across layers",
			layers:  []Layer{tools("rag", "search"), doc("d1"), tools("platform", "fetch", "search")},
			wantErr: ErrToolNameConflict,
			wantMsg: `contextstack: tool name conflict: "search" in layer 2 (source "platform") is already defined in layer 0 (source "rag")`,
		},
		{
			name:    "conflict within one layer",
			layers:  []Layer{user("request", "u"), tools("rag", "search", "search")},
			wantErr: ErrToolNameConflict,
			wantMsg: `contextstack: tool name conflict: "search" is defined twice in layer 1 (source "rag")`,
		},
		{
			name:    "a tool without a name",
			layers:  []Layer{tools("rag", "search", "")},
			wantErr: ErrInvalidLayer,
			wantMsg: `contextstack: invalid layer: layer 0 (source "rag"): tool 1 has no name`,
		},
		{
			name:    "a conflict before a tool without a name",
			layers:  []Layer{tools("rag", "search", "search"), tools("platform", "")},
			wantErr: ErrToolNameConflict,
			wantMsg: `contextstack: tool name conflict: "search" is defined twice in layer 0 (source "rag")`,
		},
		{
			name:    "a tool without a name before a conflict",
			layers:  []Layer{tools("rag", ""), tools("platform", "search", "search")},
			wantErr: ErrInvalidLayer,
			wantMsg: `contextstack: invalid layer: layer 0 (source "rag"): tool 0 has no name`,
		},
		{
			name:   "valid, more tools than the names buffer",
			layers: manyTools(200, ""),
		},
		{
			name:    "a conflict among more tools than the names buffer",
			layers:  manyTools(200, "tool_150"),
			wantErr: ErrToolNameConflict,
			wantMsg: `contextstack: tool name conflict: "tool_150" in layer 2 (source "extra") is already defined in layer 1 (source "mcp:1")`,
		},
		{
			name:    "a layer without content",
			layers:  []Layer{user("request", "u"), {Source: "oops"}},
			wantErr: ErrInvalidLayer,
			wantMsg: `contextstack: invalid layer: layer 1 (source "oops") has content of type <nil>`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewStack(tt.layers...).Validate()
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
			assert.Equal(t, tt.wantMsg, err.Error())
		})
	}
}

// manyTools returns two tool-definition layers of n/2 tools each, named
// tool_0 to tool_<n-1>, and, if extra is not empty, a third layer with one
// tool of that name.
func manyTools(n int, extra string) []Layer {
	var layers []Layer
	for i := range 2 {
		names := make([]string, n/2)
		for j := range names {
			names[j] = fmt.Sprintf("tool_%d", i*n/2+j)
		}
		layers = append(layers, tools(fmt.Sprintf("mcp:%d", i), names...))
	}
	if extra != "" {
		layers = append(layers, tools("extra", extra))
	}
	return layers
}

func TestAllToolsDoesNotValidate(t *testing.T) {
	s := NewStack(tools("rag", "search"), tools("platform", "search"))
	assert.Equal(t, []string{"search"}, toolNames(s.AllTools()))
	var conflict *ToolNameConflictError
	assert.True(t, errors.As(s.Validate(), &conflict))
}

func TestValidityIsRemembered(t *testing.T) {
	built, err := NewBuilder().Tools("rag", tool("search")).Tools("web", tool("fetch")).Build()
	require.NoError(t, err)
	assert.True(t, built.valid)
	assert.True(t, built.RemoveSource("web").valid, "removal cannot make a conflict")
	assert.True(t, built.RemoveType(TypeDocument).valid)

	grown := built.Append(tools("platform", "search"))
	assert.False(t, grown.valid, "an appended layer must be checked again")
	_, err = grown.SelectTools(Auto)
	assert.ErrorIs(t, err, ErrToolNameConflict)
	inserted, err := built.Insert(0, tools("platform", "fetch"))
	require.NoError(t, err)
	_, err = inserted.SelectTools(Auto)
	assert.ErrorIs(t, err, ErrToolNameConflict)

	got, err := built.SelectTools(Auto)
	require.NoError(t, err)
	assert.Equal(t, []ToolSpec{tool("search"), tool("fetch")}, got)
	got[0].Name = "changed"
	assert.Equal(t, []ToolSpec{tool("search"), tool("fetch")}, built.AllTools(), "readers of a valid stack copy too")
}

func TestExtremePriorities(t *testing.T) {
	s := NewStack(
		Layer{Source: "max", Priority: math.MaxInt, Content: ContextPrompt{Text: "max"}},
		Layer{Source: "min", Priority: math.MinInt, Content: ContextPrompt{Text: "min"}},
		user("request", "user"),
	)
	text, err := s.SystemPromptText(&fakeRenderer{})
	require.NoError(t, err)
	assert.Equal(t, "min\n\nuser\n\nmax", text)
}

// ToolProblems lists every problem Validate reports the first of.
func TestToolProblems(t *testing.T) {
	s := NewStack(tools("rag", "search", ""), doc("d1"), tools("platform", "fetch", "search"), tools("mcp", "fetch", "search"))
	var got []string
	for _, err := range s.ToolProblems() {
		got = append(got, err.Error())
	}
	assert.Equal(t, []string{
		`contextstack: invalid layer: layer 0 (source "rag"): tool 1 has no name`,
		`contextstack: tool name conflict: "search" in layer 2 (source "platform") is already defined in layer 0 (source "rag")`,
		`contextstack: tool name conflict: "fetch" in layer 3 (source "mcp") is already defined in layer 2 (source "platform")`,
		`contextstack: tool name conflict: "search" in layer 3 (source "mcp") is already defined in layer 0 (source "rag")`,
	}, got)
	assert.EqualError(t, s.Validate(), got[0])
	assert.Empty(t, NewStack(tools("rag", "a", "b")).ToolProblems())
}
