package contextstack

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var turnTime = time.Date(2025, 3, 1, 1, 30, 0, 0, time.UTC)

func incoming() Request {
	return Request{
		System: "只依据文档回答。",
		Messages: []Message{
			message.Text(message.RoleSystem, "旧的系统提示"),
			message.Text(message.RoleUser, "北京明天天气？"),
		},
		Tools:      []ToolSpec{tool("search")},
		ToolChoice: Auto,
		Documents:  []Document{{ID: "d1", Text: "片段一"}, {ID: "d2", Text: "片段二"}},
		Bundles:    []Bundle{{Name: "git"}},
	}
}

func TestFromRequest(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want []Layer
	}{
		{
			name: "everything",
			req:  incoming(),
			want: []Layer{
				{Source: SourceRequest, Content: UserInstructions{Text: "只依据文档回答。"}},
				{Source: SourceRequest, Content: ToolDefinitions{Tools: []ToolSpec{tool("search")}}},
				{Source: SourceRequest, Content: Document{ID: "d1", Text: "片段一"}},
				{Source: SourceRequest, Content: Document{ID: "d2", Text: "片段二"}},
				{Source: SourceRequest, Content: ContentBundles{Bundles: []Bundle{{Name: "git"}}}},
			},
		},
		{
			name: "only what the request has",
			req:  Request{Messages: []Message{message.Text(message.RoleUser, "hi")}, Tools: []ToolSpec{}},
			want: []Layer{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FromRequest(tt.req).Layers())
		})
	}
}

func TestDeriveRequest(t *testing.T) {
	req := incoming()
	s, err := From(FromRequest(req)).
		RuntimeInstructions("loop", "注意省点 token").
		Tools("rag", tool("fetch")).
		Document("citations", Document{ID: "d3", Text: "片段三"}).
		Build()
	require.NoError(t, err)

	got, err := s.DeriveRequest(req, &fakeRenderer{}, WithClock(FixedClock(turnTime)))
	require.NoError(t, err)
	assert.Equal(t, Request{
		System:     "只依据文档回答。" + BlockSeparator + "注意省点 token",
		Messages:   []Message{message.Text(message.RoleUser, "北京明天天气？")},
		Tools:      []ToolSpec{tool("search"), tool("fetch")},
		ToolChoice: Auto,
		Documents: []Document{
			{ID: "d1", Text: "片段一"}, {ID: "d2", Text: "片段二"}, {ID: "d3", Text: "片段三"},
		},
		Bundles: []Bundle{{Name: "git"}},
		Time:    turnTime,
	}, got)
	assert.Equal(t, incoming(), req, "the base request is not changed")
}

func TestDeriveRequestEveryTurnIsFresh(t *testing.T) {
	// The next turn derives from the previous turn's request: its system
	// prompt and tools are replaced, never accumulated.
	req := incoming()
	s := FromRequest(req)
	r := &fakeRenderer{}
	turn1, err := s.DeriveRequest(req, r, WithClock(FixedClock(turnTime)))
	require.NoError(t, err)

	turn1.Messages = append(turn1.Messages,
		message.Text(message.RoleAssistant, "我查一下。"),
		message.Text(message.RoleSystem, "一条中途的系统消息"),
	)
	s = s.RemoveSource(SourceRequest).Append(user("platform", "新的系统提示"))
	turn2, err := s.DeriveRequest(turn1, r, WithClock(FixedClock(turnTime.Add(time.Minute))))
	require.NoError(t, err)

	assert.Equal(t, "新的系统提示", turn2.System)
	assert.Equal(t, []Message{message.Text(message.RoleUser, "北京明天天气？"), message.Text(message.RoleAssistant, "我查一下。")}, turn2.Messages)
	assert.Empty(t, turn2.Tools, "the stack is the truth: its request tools are gone")
	assert.Empty(t, turn2.Documents)
	assert.Equal(t, turnTime.Add(time.Minute), turn2.Time)
}

func TestDeriveRequestToolChoice(t *testing.T) {
	s := NewStack(tools("rag", "search", "fetch"), tools("platform", "clock"))
	tests := []struct {
		choice ToolChoice
		want   []string
	}{
		{Auto, []string{"search", "fetch", "clock"}},
		{Any, []string{"search", "fetch", "clock"}},
		{ChooseTools("clock"), []string{"clock"}},
		{ChooseTools("clock", "search"), []string{"search", "clock"}},
	}
	for _, tt := range tests {
		got, err := s.DeriveRequest(Request{ToolChoice: tt.choice}, &fakeRenderer{})
		require.NoError(t, err)
		assert.Equal(t, tt.want, toolNames(got.Tools))
		assert.Equal(t, tt.choice, got.ToolChoice)
	}
}

func TestDeriveRequestErrors(t *testing.T) {
	t.Run("two tools with one name in the request", func(t *testing.T) {
		req := Request{Tools: []ToolSpec{tool("search"), tool("search")}}
		_, err := FromRequest(req).DeriveRequest(req, &fakeRenderer{})
		var conflict *ToolNameConflictError
		require.ErrorAs(t, err, &conflict)
		assert.Equal(t, SourceRequest, conflict.FirstSource)
	})
	t.Run("a layer that fails to render", func(t *testing.T) {
		r := &fakeRenderer{fail: map[string]error{TemplateSkillBody: errFake}}
		s := NewStack(Layer{Source: "skill:git", Content: SkillBody{Skill: Skill{Name: "git"}}})
		_, err := s.DeriveRequest(Request{}, r)
		assert.ErrorIs(t, err, errFake)
		assert.ErrorIs(t, err, ErrRender)
	})
}

func TestDeriveRequestDefaultClock(t *testing.T) {
	before := time.Now()
	got, err := Stack{}.DeriveRequest(Request{}, &fakeRenderer{}, WithClock(nil))
	require.NoError(t, err)
	assert.False(t, got.Time.Before(before.Truncate(time.Second)))
	assert.Equal(t, time.UTC, got.Time.Location())
}

func TestRequestJSON(t *testing.T) {
	req := incoming()
	req.ToolChoice = ChooseTools("search")
	req.Time = turnTime
	data, err := json.Marshal(req)
	require.NoError(t, err)
	var back Request
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, req, back)

	data, err = json.Marshal(Request{})
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(data), "an empty request has no fields")
}

// TestRequestKeepsToolTurns: a history with tool calls, tool results,
// reasoning and images survives the request's JSON and DeriveRequest
// whole; only system messages are dropped.
func TestRequestKeepsToolTurns(t *testing.T) {
	history := `[{"role":"system","content":"旧的系统提示"},` +
		`{"role":"user","content":[{"type":"text","text":"这张图里的城市明天天气如何？"},{"type":"image_url","image_url":{"url":"https://example.com/city.png","detail":"low"}}]},` +
		`{"role":"assistant","content":null,"reasoning_content":"先认城市，再查天气","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"北京\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"晴"}]`
	var req Request
	require.NoError(t, json.Unmarshal([]byte(`{"system":"只依据文档回答。","messages":`+history+`}`), &req))
	require.Len(t, req.Messages, 4)
	assert.Equal(t, `{"city": "北京"}`, req.Messages[2].ToolCalls[0].Arguments)

	data, err := json.Marshal(req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"system":"只依据文档回答。","messages":`+history+`}`, string(data))

	got, err := FromRequest(req).DeriveRequest(req, &fakeRenderer{}, WithClock(FixedClock(turnTime)))
	require.NoError(t, err)
	assert.Equal(t, req.Messages[1:], got.Messages, "every turn but the system message, whole")

	_, err = json.Marshal(Request{Messages: []Message{{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c"}}}}})
	assert.ErrorIs(t, err, message.ErrInvalid, "a tool call without a name has no JSON form")
	err = json.Unmarshal([]byte(`{"messages":[{"role":"tool","tool_call_id":"c","content":"x","tool_use_id":"c"}]}`), &req)
	assert.ErrorIs(t, err, message.ErrUnknownField, "nothing is dropped silently")
}
