package contextstack_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	. "github.com/seed-e7d2830f/promptkit/contextstack"
	"github.com/seed-e7d2830f/promptkit/manager"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// defaultManager is the manager of the default template set, which
// declares the contextstack_ templates.
func defaultManager(t testing.TB) *manager.Manager {
	t.Helper()
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	return m
}

// TestTemplatesGolden renders the layers that add wording through the
// default set and compares with testdata/*.golden byte for byte; run
// "go test ./contextstack -update" after changing a template and review
// the diff.
func TestTemplatesGolden(t *testing.T) {
	m := defaultManager(t)
	git := Skill{Name: "git", Description: "管理 Git 仓库：查看状态、提交、切换分支。", Location: "skills/git", Resources: []string{"SKILL.md", "reference/branching.md"}}
	tests := []struct {
		name   string
		layers []Layer
	}{
		{"skill_catalog", []Layer{{Source: "skills", Content: SkillCatalog{Skills: []Skill{git, {Name: "weather", Description: "查询城市天气预报。"}}}}}},
		{"skill_catalog_empty", []Layer{{Source: "skills", Content: SkillCatalog{}}}},
		{"skill_body", []Layer{{Source: "skill:git", Content: SkillBody{Skill: git, Body: "1. 先运行 git status，确认工作区状态。\n2. 提交前逐项核对改动。"}}}},
		{"skill_body_minimal", []Layer{{Source: "skill:weather", Content: SkillBody{Skill: Skill{Name: "weather"}, Body: "只报告官方预报。"}}}},
		{"tool_instructions", []Layer{{Source: "platform", Content: ToolInstructions{Tool: "search", Text: "回答中引用检索结果时，写出片段的编号，例如 [3]。"}}}},
		{"full_stack", []Layer{
			{Source: "platform", Content: ToolInstructions{Tool: "search", Text: "引用时写出片段编号。"}},
			{Source: "request", Content: UserInstructions{Text: "你是一个只依据文档回答的助手。"}},
			{Source: "rag", Content: ToolDefinitions{Tools: []ToolSpec{TestTool("search")}}},
			{Source: "skill:git", Content: SkillBody{Skill: git, Body: "先运行 git status。"}},
			{Source: "citations", Content: Document{ID: "d1", Text: "不会出现在系统提示里"}},
			{Source: "skills", Content: SkillCatalog{Skills: []Skill{git}}},
			{Source: "loop", Content: RuntimeInstructions{Text: "剩余预算不多，尽快收尾。"}},
			{Source: "rag", Content: ContextPrompt{Text: "用户所在城市：北京。"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewStack(tt.layers...).SystemPromptText(m)
			require.NoError(t, err)
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./contextstack -update to create it")
			assert.Equal(t, string(want), got)
		})
	}
}

// TestTemplatesDeclared checks the default set's entries for the
// contextstack_ templates take exactly the variables the layers pass:
// the manager refuses extra variables and missing required ones.
func TestTemplatesDeclared(t *testing.T) {
	m := defaultManager(t)
	for _, c := range []Content{
		SkillCatalog{Skills: []Skill{{Name: "a"}}},
		SkillBody{Skill: Skill{Name: "a"}, Body: "b"},
		ToolInstructions{Tool: "a", Text: "b"},
	} {
		tmpl, err := RenderLayer(c, m)
		assert.NoError(t, err, "%s", tmpl)
	}
}

func TestRenderErrorWrapsManagerErrors(t *testing.T) {
	// A template set without the contextstack_ templates.
	m, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version":1,"templates":{"hello":{"path":"hello.md","variables":[]}}}`)},
		"hello.md":   {Data: []byte("hello")},
	})
	require.NoError(t, err)
	s := NewStack(TestUser("request", "user"), Layer{Source: "skills", Content: SkillCatalog{Skills: []Skill{{Name: "git"}}}})
	_, err = s.SystemPromptText(m)
	require.ErrorIs(t, err, ErrRender)
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
	var re *RenderError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 1, re.Layer)
	assert.Equal(t, TemplateSkillCatalog, re.Template)
}

// TestConcurrentDerive derives requests from one stack in many goroutines
// with one manager; run with -race.
func TestConcurrentDerive(t *testing.T) {
	m := defaultManager(t)
	s, err := NewBuilder().Tools("rag", TestTool("search")).Build()
	require.NoError(t, err)
	s = s.Append(BenchLayers()[:8]...)
	want, err := s.DeriveRequest(Request{}, m, WithClock(FixedClock(TurnTime)))
	require.NoError(t, err)
	done := make(chan Request, 8)
	for range 8 {
		go func() {
			got, err := s.DeriveRequest(Request{}, m, WithClock(FixedClock(TurnTime)))
			assert.NoError(t, err)
			done <- got
		}()
	}
	for range 8 {
		assert.Equal(t, want, <-done)
	}
}
