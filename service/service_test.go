package service

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/rag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func defaultSet(t testing.TB) *manager.Manager {
	t.Helper()
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

func newService(t testing.TB, opts ...Option) *Service {
	t.Helper()
	s, err := New(defaultSet(t), append([]Option{WithDefaultBuilders()}, opts...)...)
	require.NoError(t, err)
	return s
}

// echo is a host's own builder: it renders the title template from the
// task's title, and reads one data key.
type echo struct {
	name string
	r    builders.Renderer
	err  error // returned instead of building, when set
}

func (e echo) Name() string     { return e.name }
func (e echo) Template() string { return "title" }
func (e echo) Keys() []string   { return []string{"suffix"} }
func (e echo) Build(ctx builders.Context) (string, error) {
	if e.err != nil {
		return "", e.err
	}
	suffix, _ := ctx.Value("suffix")
	s, _ := suffix.(string)
	return e.r.Render("title", map[string]any{"intent": builders.EscapeXML(ctx.Task().Title + s)})
}

func TestBuildersListsDefaults(t *testing.T) {
	s := newService(t)
	var names []string
	for _, in := range s.Builders() {
		names = append(names, in.Name)
		if in.Name != rag.Name {
			assert.Equal(t, in.Name, in.Template)
		}
		assert.NotEmpty(t, in.Keys)
	}
	assert.Equal(t, []string{"agent_system", "context_note", "injection", "planner_board", "polish", "rag_answer", "subagent_system", "title"}, names)

	// rag_answer is a default builder: Build serves it.
	out, err := s.Build(rag.Name, builders.Task{Intent: "年假能跨年吗？"}, map[string]any{
		"documents": []any{map[string]any{"chunks": []any{map[string]any{"text": "未休年假可顺延至次年 3 月 31 日。"}}}},
	})
	require.NoError(t, err)
	assert.Contains(t, out, `"role": "system"`)
	assert.Contains(t, out, "<question>年假能跨年吗？</question>")

	infos := s.Builders()
	infos[0].Keys[0] = "mutated"
	assert.NotEqual(t, "mutated", s.Builders()[0].Keys[0], "Builders returns a copy")
}

func TestBuild(t *testing.T) {
	s := newService(t)
	task := builders.Task{ID: "t-1", Title: "查天气", Intent: "查明天北京的天气"}
	tests := []struct {
		name     string
		builder  string
		task     builders.Task
		data     map[string]any
		contains []string
	}{
		{"agent_system uses the default bot name", "agent_system", task, nil,
			[]string{"你是麦麦，", "<intent>查明天北京的天气</intent>"}},
		{"agent_system with a bot name", "agent_system", task, map[string]any{"bot_name": "小爱"},
			[]string{"你是小爱，"}},
		{"title", "title", builders.Task{}, map[string]any{"intent": "查天气"},
			[]string{"<intent>查天气</intent>"}},
		{"injection takes the task id", "injection", task, map[string]any{"instruction": "改查上海"},
			[]string{`<instruction id="t-1">改查上海</instruction>`}},
		{"context_note", "context_note", task, map[string]any{"kind": "task-reply", "content": "明天有雨"},
			[]string{`<context_note kind="task-reply" id="t-1" speaker="麦麦">`}},
		{"subagent_system", "subagent_system", task, map[string]any{"tool_list": []any{map[string]any{"name": "search", "description": "搜索"}}},
			[]string{`<tool name="search">搜索</tool>`, "你是麦麦派出的子 Agent"}},
		{"polish", "polish", task, map[string]any{"result": "明天有雨"},
			[]string{"<result>\n明天有雨\n</result>"}},
		{"planner_board", "planner_board", task, map[string]any{"session_id": "s", "active": []builders.BoardTask{{ID: "0123456789", Title: "t", Status: "running"}}},
			[]string{`<task id="01234567" status="running">`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := s.Build(tt.builder, tt.task, tt.data)
			require.NoError(t, err)
			for _, c := range tt.contains {
				assert.Contains(t, out, c)
			}
		})
	}

	out, err := s.Build("planner_board", task, map[string]any{"session_id": "s"})
	require.NoError(t, err)
	assert.Empty(t, out, "an empty board is an empty prompt")
}

func TestBuildErrors(t *testing.T) {
	s := newService(t)
	task := builders.Task{ID: "t-1", Title: "t", Intent: "i"}
	tests := []struct {
		name     string
		builder  string
		data     map[string]any
		is       []error
		contains []string
	}{
		{"unknown builder", "summary", nil, []error{ErrUnknownBuilder},
			[]string{`"summary"`, "agent_system, context_note, injection, planner_board, polish, rag_answer, subagent_system, title"}},
		{"typo in a data key", "agent_system", map[string]any{"bot_nmae": "x"}, []error{builders.ErrUnknownKey},
			[]string{"agent_system", `"bot_nmae"`}},
		{"invalid kind", "context_note", map[string]any{"kind": "memo", "content": "c"}, []error{builders.ErrInvalidKind},
			[]string{"context_note", "sent-message, task-reply, task-waiting-input"}},
		{"missing value", "polish", map[string]any{}, []error{builders.ErrMissingValue},
			[]string{"polish", `"result"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := s.Build(tt.builder, task, tt.data)
			require.Error(t, err)
			assert.Empty(t, out)
			for _, sentinel := range tt.is {
				assert.ErrorIs(t, err, sentinel)
			}
			for _, c := range tt.contains {
				assert.Contains(t, err.Error(), c)
			}
			assert.Equal(t, 1, strings.Count(err.Error(), tt.builder), "the builder is named once: %v", err)
		})
	}
}

// TestBuildReachesManagerSentinels builds through a template set whose
// title template wants a variable the title builder does not pass.
func TestBuildReachesManagerSentinels(t *testing.T) {
	m, err := manager.Open("testdata/title_wants_tone")
	require.NoError(t, err)
	defer m.Close()
	s, err := New(m, WithBuilders(builders.NewTitle(m)))
	require.NoError(t, err)

	_, err = s.Build("title", builders.Task{}, map[string]any{"intent": "i"})
	require.ErrorIs(t, err, manager.ErrMissingVariables)
	require.ErrorIs(t, err, builders.ErrRender)
	var me *manager.Error
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []string{"tone"}, me.Variables)
	assert.Contains(t, err.Error(), "title")

	// A host builder's error is wrapped with the builder's name.
	cause := fmt.Errorf("lookup failed: %w", manager.ErrUnknownTemplate)
	s, err = New(defaultSet(t), WithBuilders(echo{name: "mine", err: cause}))
	require.NoError(t, err)
	_, err = s.Build("mine", builders.Task{}, nil)
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
	assert.Equal(t, `service: builder "mine": lookup failed: manager: unknown template`, err.Error())
}

func TestWithBuilders(t *testing.T) {
	m := defaultSet(t)
	s, err := New(m, WithDefaultBuilders(), WithBuilders(echo{name: "echo", r: m}))
	require.NoError(t, err)

	out, err := s.Build("echo", builders.Task{Title: "<周报>"}, map[string]any{"suffix": "!"})
	require.NoError(t, err)
	assert.Contains(t, out, "<intent>&lt;周报&gt;!</intent>")

	// The service holds host builders to their declared keys too.
	_, err = s.Build("echo", builders.Task{}, map[string]any{"sufix": "!"})
	require.ErrorIs(t, err, builders.ErrUnknownKey)
	assert.Contains(t, err.Error(), `"sufix"`)

	names := []string{}
	for _, in := range s.Builders() {
		names = append(names, in.Name)
	}
	assert.Contains(t, names, "echo")
	assert.Len(t, names, 9, "the eight default builders and echo")
}

func TestNewErrors(t *testing.T) {
	m := defaultSet(t)
	tests := []struct {
		name     string
		m        *manager.Manager
		opts     []Option
		is       error
		contains string
	}{
		{"nil manager", nil, nil, builders.ErrNoRenderer, "manager"},
		{"a host builder taking a default's name", m, []Option{WithDefaultBuilders(), WithBuilders(echo{name: "title", r: m})},
			ErrDuplicateBuilder, `"title"`},
		{"two host builders with one name", m, []Option{WithBuilders(echo{name: "x", r: m}), WithBuilders(echo{name: "x", r: m})},
			ErrDuplicateBuilder, `"x"`},
		{"an empty name", m, []Option{WithBuilders(echo{r: m})}, ErrInvalidOption, "empty name"},
		{"a nil builder", m, []Option{WithBuilders(nil)}, ErrInvalidOption, "nil"},
		{"empty bot name", m, []Option{WithDefaultBuilders(), WithBotName("")}, ErrInvalidOption, "WithBotName"},
		{"bot name twice", m, []Option{WithDefaultBuilders(), WithBotName("a"), WithBotName("b")}, ErrInvalidOption, "twice"},
		{"bad note prefix", m, []Option{WithDefaultBuilders(), WithNotePrefix("a b")}, ErrInvalidOption, "WithNotePrefix"},
		{"note prefix twice", m, []Option{WithDefaultBuilders(), WithNotePrefix("a-"), WithNotePrefix("b-")}, ErrInvalidOption, "twice"},
		{"defaults twice", m, []Option{WithDefaultBuilders(), WithDefaultBuilders()}, ErrInvalidOption, "twice"},
		{"a bot name without the default builders", m, []Option{WithBotName("a"), WithBuilders(echo{name: "x", r: m})},
			ErrInvalidOption, "WithBotName configures the default builders; add WithDefaultBuilders"},
		{"a note prefix without the default builders", m, []Option{WithNotePrefix("a-"), WithBuilders(echo{name: "x", r: m})},
			ErrInvalidOption, "WithNotePrefix configures the default builders"},
		{"no builders", m, nil, ErrNoBuilders, "register the default builders with WithDefaultBuilders, or your own with WithBuilders"},
		{"a default builder registered twice", m, []Option{WithDefaultBuilders(), WithBuilders(rag.New(m))}, ErrDuplicateBuilder, `"rag_answer"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.m, tt.opts...)
			require.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.contains)
			assert.Nil(t, s)
		})
	}
}

// TestNewChecksTemplates refuses a template set that lacks the templates
// of the builders, naming every one.
func TestNewChecksTemplates(t *testing.T) {
	m, err := manager.Open("testdata/title_wants_tone")
	require.NoError(t, err)
	defer m.Close()
	_, err = New(m, WithBuilders(echo{name: "x", r: m}))
	require.NoError(t, err, "the set has title, which echo renders")

	m2, err := manager.Open("testdata/only_greeting")
	require.NoError(t, err)
	defer m2.Close()
	_, err = New(m2, WithDefaultBuilders())
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
	for _, name := range []string{"agent_system", "context_note", "injection", "planner_board", "polish", "subagent_system", "title"} {
		assert.Contains(t, err.Error(), `builder "`+name+`" renders template "`+name+`"`)
	}
	for _, tmpl := range rag.New(m2).Templates() {
		assert.Contains(t, err.Error(), `builder "rag_answer" renders template "`+tmpl+`"`, "every template of a builder is checked")
	}
}

func TestOptions(t *testing.T) {
	s := newService(t, WithBotName("小爱"), WithNotePrefix("inj-"))
	out, err := s.Build("agent_system", builders.Task{Intent: "i"}, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "你是小爱，"))

	out, err = s.Build("injection", builders.Task{}, map[string]any{"instruction": "i"})
	require.NoError(t, err)
	assert.Regexp(t, `<instruction id="inj-[0-9a-f]{16}">i</instruction>`, out)

	out, err = newService(t).Build("injection", builders.Task{}, map[string]any{"instruction": "i"})
	require.NoError(t, err)
	assert.Regexp(t, `<instruction id="note-[0-9a-f]{16}">i</instruction>`, out)
}

// TestBuildDoesNotChangeData checks that the caller's data is neither
// changed nor kept.
func TestBuildDoesNotChangeData(t *testing.T) {
	s := newService(t)
	jargon := []any{map[string]any{"content": "yyds", "meaning": "永远的神"}}
	data := map[string]any{"result": "r", "jargon": jargon}
	_, err := s.Build("polish", builders.Task{}, data)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"result": "r", "jargon": []any{map[string]any{"content": "yyds", "meaning": "永远的神"}}}, data)
}

func TestConcurrentBuilds(t *testing.T) {
	s := newService(t)
	task := builders.Task{ID: "t-1", Title: "t", Intent: "i"}
	data := map[string]any{"kind": "task-reply", "content": "c"}
	want, err := s.Build("context_note", task, data)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				out, err := s.Build("context_note", task, data)
				assert.NoError(t, err)
				assert.Equal(t, want, out)
				_, err = s.Build("nope", task, nil)
				assert.True(t, errors.Is(err, ErrUnknownBuilder))
			}
		})
	}
	wg.Wait()
}

// greeter is a host's own builder for a set of its own (testdata/only_greeting).
type greeter struct{ r builders.Renderer }

func (greeter) Name() string     { return "greeting" }
func (greeter) Template() string { return "greeting" }
func (greeter) Keys() []string   { return []string{"name"} }
func (g greeter) Build(ctx builders.Context) (string, error) {
	name, _ := ctx.Value("name")
	s, _ := name.(string)
	return g.r.Render("greeting", map[string]any{"name": builders.EscapeXML(s)})
}

// TestNewOnASetOfOnesOwn: a set without the default templates serves the
// host's own builders, and only them.
func TestNewOnASetOfOnesOwn(t *testing.T) {
	m, err := manager.Open("testdata/only_greeting")
	require.NoError(t, err)
	defer m.Close()
	s, err := New(m, WithBuilders(greeter{m}))
	require.NoError(t, err)
	assert.Equal(t, []Info{{Name: "greeting", Template: "greeting", Keys: []string{"name"}}}, s.Builders())
	out, err := s.Build("greeting", builders.Task{}, map[string]any{"name": "<小明>"})
	require.NoError(t, err)
	assert.Equal(t, "hello &lt;小明&gt;", out)

	_, err = s.Build("title", builders.Task{}, nil)
	require.ErrorIs(t, err, ErrUnknownBuilder)
	assert.EqualError(t, err, `service: unknown builder "title" (known: greeting)`)
}

func TestDefaultBuilders(t *testing.T) {
	m := defaultSet(t)
	bs, err := DefaultBuilders(m, builders.Config{BotName: "小爱"})
	require.NoError(t, err)
	var names []string
	for _, b := range bs {
		names = append(names, b.Name())
	}
	assert.Equal(t, []string{"agent_system", "context_note", "injection", "planner_board", "polish", "rag_answer", "subagent_system", "title"}, names)

	// Some of them, registered by hand, serve as the same builders do.
	s, err := New(m, WithBuilders(bs[0], bs[5]))
	require.NoError(t, err)
	out, err := s.Build("agent_system", builders.Task{Intent: "i"}, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "你是小爱，"))

	_, err = DefaultBuilders(nil, builders.Config{BotName: "x"})
	require.ErrorIs(t, err, builders.ErrNoRenderer)
	_, err = DefaultBuilders(m, builders.Config{})
	require.ErrorIs(t, err, builders.ErrMissingValue)
}
