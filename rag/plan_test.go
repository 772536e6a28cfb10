package rag

import (
	"errors"
	"testing"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlanScene(t *testing.T) {
	tests := []struct {
		name  string
		in    Input
		scene Scene
		tmpl  string
	}{
		{"kb only", Input{Question: "q", Documents: []Retrieved{kb("", "text")}}, SceneKB, TemplateKB},
		{"tool only", Input{Question: "q", Tools: []ToolResult{tool("t", "", map[string]any{"a": 1})}}, SceneTool, TemplateTool},
		{"tool error only", Input{Question: "q", Tools: []ToolResult{{Tool: "t", Error: "timeout"}}}, SceneTool, TemplateTool},
		{"tool with empty data", Input{Question: "q", Tools: []ToolResult{{Tool: "t"}}}, SceneTool, TemplateTool},
		{"mixed", Input{Question: "q", Documents: []Retrieved{kb("", "text")}, Tools: []ToolResult{tool("t", "", 1)}}, SceneMixed, TemplateMixed},
		{"blank chunks do not make kb", Input{Question: "q", Documents: []Retrieved{kb("", " \n\t")}, Tools: []ToolResult{tool("t", "", 1)}}, SceneTool, TemplateTool},
		{"empty group does not make kb", Input{Question: "q", Documents: []Retrieved{{}}, Tools: []ToolResult{tool("t", "", 1)}}, SceneTool, TemplateTool},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanFor(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.scene, p.Scene)
			assert.Equal(t, tc.tmpl, p.Template)
			assert.Equal(t, tc.tmpl, p.Scene.Template())
		})
	}
}

func TestSceneString(t *testing.T) {
	assert.Equal(t, "kb", SceneKB.String())
	assert.Equal(t, "tool", SceneTool.String())
	assert.Equal(t, "mixed", SceneMixed.String())
	assert.Equal(t, "Scene(0)", Scene(0).String())
	assert.Empty(t, Scene(0).Template())
}

func TestNoEvidence(t *testing.T) {
	tests := []struct {
		name string
		in   Input
	}{
		{"nothing", Input{Question: "q"}},
		{"empty groups", Input{Question: "q", Documents: []Retrieved{{Intent: "a"}, {Chunks: []Chunk{}}}, Intents: []Intent{{ID: "a"}}}},
		{"blank chunks only", Input{Question: "q", Documents: []Retrieved{{Chunks: []Chunk{{Source: "手册", Text: "  "}, {Text: "\n"}}}}}},
		{"intents but no evidence", Input{Question: "q", Intents: []Intent{{ID: "a", Template: "T", Snippet: "S"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PlanFor(tc.in)
			require.ErrorIs(t, err, ErrNoEvidence)
			msgs, err := New(defaultSet(t)).Messages(tc.in)
			require.ErrorIs(t, err, ErrNoEvidence)
			assert.Nil(t, msgs)
			var be *builders.Error
			require.True(t, errors.As(err, &be))
			assert.Equal(t, Name, be.Builder)
		})
	}
}

func TestPlanIntentTemplate(t *testing.T) {
	intents := []Intent{
		{ID: "legal", Template: "  法务模板  \n"},
		{ID: "hr", Template: "人事模板"},
		{ID: "plain"},
	}
	tests := []struct {
		name     string
		in       Input
		retained []string
		override string
	}{
		{"one intent with a template keeps evidence", Input{Documents: []Retrieved{kb("legal", "x")}}, []string{"legal"}, "法务模板"},
		{"kept through a tool result", Input{Tools: []ToolResult{tool("t", "hr", 1)}}, []string{"hr"}, "人事模板"},
		{"kept through a tool error", Input{Tools: []ToolResult{{Tool: "t", Intent: "hr", Error: "boom"}}}, []string{"hr"}, "人事模板"},
		{"one intent without a template", Input{Documents: []Retrieved{kb("plain", "x")}}, []string{"plain"}, ""},
		{"two intents with templates never merge", Input{Documents: []Retrieved{kb("legal", "x"), kb("hr", "y")}}, []string{"legal", "hr"}, ""},
		{"template intent plus plain intent", Input{Documents: []Retrieved{kb("legal", "x")}, Tools: []ToolResult{tool("t", "plain", 1)}}, []string{"legal", "plain"}, ""},
		{"intent whose chunks are blank is dropped", Input{Documents: []Retrieved{kb("hr", " "), kb("legal", "x")}}, []string{"legal"}, "法务模板"},
		{"intent without evidence does not count", Input{Documents: []Retrieved{kb("plain", "x"), {Intent: "hr"}}}, []string{"plain"}, ""},
		{"unattributed evidence does not count as an intent", Input{Documents: []Retrieved{kb("", "x"), kb("legal", "y")}}, []string{"legal"}, "法务模板"},
		{"blank template is no template", Input{Documents: []Retrieved{kb("blank", "x")}, Intents: []Intent{{ID: "blank", Template: " \n "}}}, []string{"blank"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Question = "q"
			if tc.in.Intents == nil {
				tc.in.Intents = intents
			}
			p, err := PlanFor(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.retained, p.Retained)
			assert.Equal(t, tc.override, p.Override)
			if tc.override != "" {
				assert.Equal(t, TemplateIntent, p.Template)
			} else {
				assert.Equal(t, p.Scene.Template(), p.Template)
			}
		})
	}
}

func TestPlanRules(t *testing.T) {
	tests := []struct {
		name    string
		intents []Intent
		docs    []Retrieved
		rules   []string
	}{
		{"none", []Intent{{ID: "a"}}, []Retrieved{kb("a", "x")}, nil},
		{"one, trimmed", []Intent{{ID: "a", Snippet: "  价格保留两位小数 \n"}}, []Retrieved{kb("a", "x")}, []string{"价格保留两位小数"}},
		{"blank dropped", []Intent{{ID: "a", Snippet: " \t "}, {ID: "b", Snippet: "规则 B"}}, []Retrieved{kb("a", "x"), kb("b", "y")}, []string{"规则 B"}},
		{"duplicates removed, first wins", []Intent{{ID: "a", Snippet: "规则 A"}, {ID: "b", Snippet: "规则 B"}, {ID: "c", Snippet: " 规则 A "}}, []Retrieved{kb("c", "z"), kb("b", "y"), kb("a", "x")}, []string{"规则 A", "规则 B"}},
		{"in the order of the intents, not of the evidence", []Intent{{ID: "a", Snippet: "1"}, {ID: "b", Snippet: "2"}}, []Retrieved{kb("b", "y"), kb("a", "x")}, []string{"1", "2"}},
		{"only intents that keep evidence", []Intent{{ID: "a", Snippet: "规则 A"}, {ID: "b", Snippet: "规则 B"}}, []Retrieved{kb("b", "y"), kb("a", " ")}, []string{"规则 B"}},
		{"kept with the override", []Intent{{ID: "a", Template: "T", Snippet: "规则 A"}}, []Retrieved{kb("a", "x")}, []string{"规则 A"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanFor(Input{Question: "q", Intents: tc.intents, Documents: tc.docs})
			require.NoError(t, err)
			assert.Equal(t, tc.rules, p.Rules)
		})
	}
}

func TestPlanInvalidInput(t *testing.T) {
	ok := []Retrieved{kb("", "x")}
	tests := []struct {
		name string
		in   Input
		kind error
		key  string
	}{
		{"no question", Input{Documents: ok}, builders.ErrMissingValue, "question"},
		{"blank question", Input{Question: " \n", Documents: ok}, builders.ErrMissingValue, "question"},
		{"bad history role", Input{Question: "q", Documents: ok, History: []manager.Message{msg("user", "hi"), msg("ipython", "x")}}, builders.ErrInvalidValue, "history[1].role"},
		{"empty history role", Input{Question: "q", Documents: ok, History: []manager.Message{msg("", "x")}}, builders.ErrInvalidValue, "history[0].role"},
		{"intent without id", Input{Question: "q", Documents: ok, Intents: []Intent{{ID: "a"}, {Name: "x"}}}, builders.ErrMissingValue, "intents[1].id"},
		{"intent twice", Input{Question: "q", Documents: ok, Intents: []Intent{{ID: "a"}, {ID: "a"}}}, builders.ErrInvalidValue, "intents[1].id"},
		{"documents name an unknown intent", Input{Question: "q", Documents: []Retrieved{kb("nope", "x")}}, builders.ErrInvalidValue, "documents[0].intent"},
		{"tool names an unknown intent", Input{Question: "q", Tools: []ToolResult{tool("t", "nope", 1)}}, builders.ErrInvalidValue, "tools[0].intent"},
		{"tool without name", Input{Question: "q", Tools: []ToolResult{tool("t", "", 1), {Tool: " ", Data: 1}}}, builders.ErrMissingValue, "tools[1].tool"},
		{"tool with data and error", Input{Question: "q", Tools: []ToolResult{{Tool: "t", Data: 1, Error: "boom"}}}, builders.ErrInvalidValue, "tools[0]"},
		{"tool data not JSON", Input{Question: "q", Tools: []ToolResult{{Tool: "t", Data: make(chan int)}}}, builders.ErrInvalidValue, "tools[0].data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PlanFor(tc.in)
			require.ErrorIs(t, err, tc.kind)
			var be *builders.Error
			require.True(t, errors.As(err, &be))
			assert.Equal(t, tc.key, be.Key)
			assert.Equal(t, Name, be.Builder)
			assert.NotErrorIs(t, err, ErrNoEvidence)
		})
	}
}
