package builders

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ Builder = (*AgentSystem)(nil)
	_ Builder = (*Title)(nil)
	_ Builder = (*Polish)(nil)
	_ Builder = (*PlannerBoard)(nil)
	_ Builder = (*Injection)(nil)
	_ Builder = (*ContextNote)(nil)
	_ Builder = (*SubAgentSystem)(nil)

	_ Renderer = (*manager.Manager)(nil)
)

func TestDefaults(t *testing.T) {
	bs, err := Defaults(&spy{}, Config{BotName: testBot})
	require.NoError(t, err)
	var names []string
	for _, b := range bs {
		names = append(names, b.Name())
		assert.Equal(t, b.Name(), b.Template(), "each default builder renders the template of its name")
		keys := b.Keys()
		assert.True(t, slices.IsSorted(keys), b.Name())
		assert.NotEmpty(t, keys)
		keys[0] = "mutated"
		assert.NotEqual(t, "mutated", b.Keys()[0], "Keys returns a copy")
	}
	assert.Equal(t, []string{"agent_system", "context_note", "injection", "planner_board", "polish", "subagent_system", "title"}, names)

	// Every default builder's template is in the default set.
	m := defaultSet(t)
	var templates []string
	for _, tmpl := range m.Templates() {
		templates = append(templates, tmpl.Name)
	}
	for _, b := range bs {
		assert.Contains(t, templates, b.Template())
	}
}

func TestDefaultsConfig(t *testing.T) {
	tests := []struct {
		name string
		r    Renderer
		cfg  Config
		err  error
	}{
		{"no renderer", nil, Config{BotName: "b"}, ErrNoRenderer},
		{"no bot name", &spy{}, Config{}, ErrMissingValue},
		{"bad prefix", &spy{}, Config{BotName: "b", NotePrefix: "a b"}, ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Defaults(tt.r, tt.cfg)
			assert.ErrorIs(t, err, tt.err)
		})
	}

	// The configured prefix reaches the generated ids.
	r := &spy{}
	bs, err := Defaults(r, Config{BotName: "b", NotePrefix: "inj-"})
	require.NoError(t, err)
	for _, b := range bs {
		var data map[string]any
		switch b.Name() {
		case "injection":
			data = map[string]any{"instruction": "i"}
		case "context_note":
			data = map[string]any{"kind": KindSentMessage, "content": "c"}
		default:
			continue
		}
		_, err := b.Build(NewContext(Task{}, data))
		require.NoError(t, err)
		assert.Regexp(t, `^inj-[0-9a-f]{16}$`, r.vars["note_id"], b.Name())
	}
}

func TestCheckKeys(t *testing.T) {
	b := NewPolish(&spy{}, testBot)
	assert.NoError(t, CheckKeys(b, NewContext(Task{}, nil)))
	assert.NoError(t, CheckKeys(b, NewContext(Task{}, map[string]any{"result": "r", "jargon": nil})))

	err := CheckKeys(b, NewContext(Task{}, map[string]any{"result": "r", "zeta": 1, "alpha": 2}))
	requireErrorKind(t, err, ErrUnknownKey, "alpha") // the first unknown key, sorted
	assert.Equal(t,
		`builders: polish: key "alpha": not a data key of this builder (it reads: bot_name, context, jargon, personality, reply_style, requester, result)`,
		err.Error())
}

func TestNoRenderer(t *testing.T) {
	bs := []Builder{
		NewAgentSystem(nil, "b"), NewTitle(nil), NewPolish(nil, "b"), NewPlannerBoard(nil),
		NewInjection(nil, nil), NewContextNote(nil, "b", nil), NewSubAgentSystem(nil, "b"),
	}
	for _, b := range bs {
		t.Run(b.Name(), func(t *testing.T) {
			_, err := b.Build(NewContext(Task{ID: "1", Title: "t", Intent: "i"}, nil))
			require.ErrorIs(t, err, ErrNoRenderer)
			assert.Contains(t, err.Error(), b.Name())
		})
	}
}

func TestErrorFormat(t *testing.T) {
	cause := errors.New("boom")
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Kind: ErrMissingValue, Builder: "title", Key: "intent", Msg: "absent or empty"},
			`builders: title: key "intent": absent or empty`},
		{&Error{Kind: ErrRender, Builder: "title", Msg: `template "title"`, Err: cause},
			`builders: title: template "title": boom`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
		assert.ErrorIs(t, tt.err, tt.err.Kind)
	}
	assert.ErrorIs(t, tests[1].err, cause)
}

// TestRenderErrorsReachManagerSentinels renders through a template set
// (testdata/missing_var) whose title template declares a variable the
// builder does not pass.
func TestRenderErrorsReachManagerSentinels(t *testing.T) {
	m, err := manager.New(os.DirFS("testdata/missing_var"))
	require.NoError(t, err)
	defer m.Close()

	_, err = NewTitle(m).Build(NewContext(Task{}, map[string]any{"intent": "i"}))
	require.ErrorIs(t, err, ErrRender)
	require.ErrorIs(t, err, manager.ErrMissingVariables)
	var me *manager.Error
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []string{"tone"}, me.Variables)
	assert.Contains(t, err.Error(), "builders: title: ")

	// A set without the builder's template.
	_, err = NewAgentSystem(m, "b").Build(NewContext(Task{Intent: "i"}, nil))
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
}

// hostileData gives every default builder a hostile value in every string
// it reads.
func hostileData() map[string]map[string]any {
	return map[string]map[string]any{
		"agent_system": {"bot_name": hostile},
		"title":        {"intent": hostile},
		"polish": {
			"context": hostile, "jargon": []Jargon{
				{Content: hostile, Meaning: hostile},
			}, "result": hostile,
			"requester": hostile, "personality": hostile, "reply_style": hostile, "bot_name": hostile,
		},
		"planner_board": {
			"session_id": hostile,
			"active": []BoardTask{
				{ID: hostile, Title: hostile, Status: hostile, Requester: hostile, Summary: hostile},
			},
			"scheduled": []BoardTask{
				{ID: hostile, Title: hostile, Status: hostile, Schedule: hostile},
			},
			"recent": []BoardTask{
				{ID: hostile, Title: hostile, Status: hostile, Summary: hostile},
			},
		},
		"injection":    {"instruction": hostile},
		"context_note": {"kind": KindTaskReply, "content": hostile, "bot_name": hostile},
		"subagent_system": {"tool_list": []Tool{
			{Name: hostile, Description: hostile},
		}, "bot_name": hostile},
	}
}

// TestEveryValueEscaped checks every variable that every default builder
// hands its template, and every rendered default prompt.
func TestEveryValueEscaped(t *testing.T) {
	task := Task{ID: hostile, Title: hostile, Intent: hostile}
	r := &spy{}
	bs, err := Defaults(r, Config{BotName: testBot})
	require.NoError(t, err)
	m := defaultSet(t)
	real, err := Defaults(m, Config{BotName: testBot})
	require.NoError(t, err)
	data := hostileData()
	for i, b := range bs {
		t.Run(b.Name(), func(t *testing.T) {
			d, ok := data[b.Name()]
			require.True(t, ok)
			_, err := b.Build(NewContext(task, d))
			require.NoError(t, err)
			require.NotEmpty(t, r.vars)
			assertAllEscaped(t, r.vars)

			out, err := real[i].Build(NewContext(task, d))
			require.NoError(t, err)
			assert.NotContains(t, out, "<system", "a value forged a tag")
			assert.NotContains(t, out, `kind="forged"`, "a value broke out of an attribute")
		})
	}
}

// TestConcurrentBuilds shares builders and the manager between goroutines
// (run with -race).
func TestConcurrentBuilds(t *testing.T) {
	bs, err := Defaults(defaultSet(t), Config{BotName: testBot})
	require.NoError(t, err)
	data := hostileData()
	want := map[string]string{}
	for _, b := range bs {
		out, err := b.Build(NewContext(Task{ID: "1", Title: "t", Intent: "i"}, data[b.Name()]))
		require.NoError(t, err)
		want[b.Name()] = out
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				b := bs[(g+i)%len(bs)]
				out, err := b.Build(NewContext(Task{ID: "1", Title: "t", Intent: "i"}, data[b.Name()]))
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, want[b.Name()], out, fmt.Sprint(b.Name(), " differs under concurrency"))
			}
		})
	}
	wg.Wait()
}
