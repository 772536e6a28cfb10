package mcpserver_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/mcpserver"
)

func TestListPrompts(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			_, s := openSet(t, "testdata/set")
			cs, _ := client(t, ctx, s, tr)
			res, err := cs.ListPrompts(ctx, nil)
			require.NoError(t, err)
			got, err := json.MarshalIndent(res.Prompts, "", "  ")
			require.NoError(t, err)
			golden(t, "testdata/prompts.golden.json", got)
		})
	}
}

func TestGetPrompt(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			m, s := openSet(t, "testdata/set")
			cs, _ := client(t, ctx, s, tr)
			for _, tc := range []struct {
				name, prompt string
				args         map[string]string
				vars         map[string]any // what RenderMessages gets for args
			}{
				{"text template", "title", map[string]string{"intent": "查询明天北京的天气"},
					map[string]any{"intent": "查询明天北京的天气"}},
				{"chat template", "support", map[string]string{
					"product":    "麦麦",
					"examples":   `[{"q": "怎么退货？", "a": "在订单页点“退货”。"}]`,
					"question":   "这个报错是什么意思？",
					"screenshot": "data:image/png;base64,iVBORw0KGgo=",
				}, map[string]any{
					"product":    "麦麦",
					"examples":   []any{map[string]any{"q": "怎么退货？", "a": "在订单页点“退货”。"}},
					"question":   "这个报错是什么意思？",
					"screenshot": "data:image/png;base64,iVBORw0KGgo=",
				}},
				{"an image by URL", "support", map[string]string{"product": "麦麦", "question": "看图", "screenshot": "https://example.com/a.png"},
					map[string]any{"product": "麦麦", "question": "看图", "screenshot": "https://example.com/a.png"}},
				{"typed, as JSON", "digest", map[string]string{"days": "7", "level": "2"},
					map[string]any{"days": int64(7), "level": int64(2)}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.prompt, Arguments: tc.args})
					require.NoError(t, err)
					msgs, err := m.RenderMessages(tc.prompt, tc.vars)
					require.NoError(t, err)
					want, err := mcpserver.Messages(msgs)
					require.NoError(t, err)
					assert.Equal(t, wire(t, want), wire(t, res.Messages), "what the client got is RenderMessages' messages")
					tmpl, _ := m.Lookup(tc.prompt)
					assert.Equal(t, tmpl.Description, res.Description)
				})
			}
			// The chat template's messages as the client reads them: the
			// system block as a user message marked with its role, the
			// few-shot pair, the question and its screenshot as image content.
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "support", Arguments: map[string]string{
				"product": "麦麦", "examples": `[{"q": "怎么退货？", "a": "在订单页点“退货”。"}]`,
				"question": "这个报错是什么意思？", "screenshot": "data:image/png;base64,iVBORw0KGgo="}})
			require.NoError(t, err)
			got, err := json.MarshalIndent(res.Messages, "", "  ")
			require.NoError(t, err)
			golden(t, "testdata/support.golden.json", got)
		})
	}
}

// wire is the JSON of v, as a client reads it.
func wire(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestArgumentErrors(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			_, s := openSet(t, "testdata/set")
			cs, _ := client(t, ctx, s, tr)
			for _, tc := range []struct {
				name, prompt string
				args         map[string]string
				code         int64
				message      string
				data         mcpserver.Problem
			}{
				{"a misspelt argument", "title", map[string]string{"intnet": "查天气"}, jsonrpc.CodeInvalidParams,
					`prompt "title": missing argument: intent; unknown argument "intnet": did you mean "intent"?`,
					mcpserver.Problem{Kind: "missing_variables", Template: "title", Path: "templates/title.md",
						Variables: []string{"intent", "intnet"}, Missing: []string{"intent"}, Unknown: []string{"intnet"},
						DidYouMean: map[string]string{"intnet": "intent"}}},
				{"an extra argument", "title", map[string]string{"intent": "x", "mood": "y"}, jsonrpc.CodeInvalidParams,
					`prompt "title": unknown argument "mood" (not a variable of the template; it has: intent, tone)`,
					mcpserver.Problem{Kind: "extra_variables", Template: "title", Path: "templates/title.md",
						Variables: []string{"mood"}, Unknown: []string{"mood"}}},
				{"not JSON where the schema wants it", "digest", map[string]string{"days": "seven", "level": "2"}, jsonrpc.CodeInvalidParams,
					`prompt "digest": argument "days": want an integer written as JSON, got "seven": invalid character 's' looking for beginning of value`,
					mcpserver.Problem{Kind: "invalid_variables", Template: "digest", Path: "templates/digest.md",
						Variables: []string{"days"}, Invalid: []string{"days"}}},
				{"against the schema", "digest", map[string]string{"days": "90", "level": "4"}, jsonrpc.CodeInvalidParams,
					`templates/digest.md: template "digest": invalid variables: days: maximum: got 90, want 30; level: want one of 1, 2, 3, got 4`,
					mcpserver.Problem{Kind: "invalid_variables", Template: "digest", Path: "templates/digest.md",
						Variables: []string{"days", "level"}}},
				{"a value outside the enum", "title", map[string]string{"intent": "x", "tone": "冷淡"}, jsonrpc.CodeInvalidParams,
					`templates/title.md: template "title": invalid variables: tone: want one of "亲切", "正式", "幽默", got "冷淡"`,
					mcpserver.Problem{Kind: "invalid_variables", Template: "title", Path: "templates/title.md", Variables: []string{"tone"}}},
				{"an unknown prompt", "titel", nil, jsonrpc.CodeInvalidParams,
					`unknown prompt "titel"; did you mean "title"?`,
					mcpserver.Problem{Kind: "unknown_template", Template: "titel"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.prompt, Arguments: tc.args})
					var we *jsonrpc.Error
					require.True(t, errors.As(err, &we), "a JSON-RPC error: %v", err)
					assert.Equal(t, tc.code, we.Code)
					assert.Equal(t, tc.message, we.Message)
					var data mcpserver.Problem
					require.NoError(t, json.Unmarshal(we.Data, &data))
					tc.data.Message = tc.message
					assert.Equal(t, tc.data, data)
				})
			}
		})
	}
}

func TestComplete(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			_, s := openSet(t, "testdata/set")
			cs, _ := client(t, ctx, s, tr)
			complete := func(prompt, arg, value string) ([]string, error) {
				res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: prompt},
					Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
				if err != nil {
					return nil, err
				}
				return res.Completion.Values, nil
			}
			for _, tc := range []struct {
				prompt, arg, value string
				want               []string
			}{
				{"title", "tone", "", []string{"亲切", "正式", "幽默"}},
				{"title", "tone", "正", []string{"正式"}},
				{"digest", "level", "", []string{"1", "2", "3"}},
				{"digest", "level", "3", []string{"3"}},
				{"title", "intent", "", []string{}},
			} {
				got, err := complete(tc.prompt, tc.arg, tc.value)
				require.NoError(t, err, "%s.%s", tc.prompt, tc.arg)
				assert.Equal(t, tc.want, got, "%s.%s %q", tc.prompt, tc.arg, tc.value)
			}
			_, err := complete("title", "tnoe", "")
			var we *jsonrpc.Error
			require.True(t, errors.As(err, &we), "%v", err)
			assert.Equal(t, `prompt "title": unknown argument "tnoe": did you mean "tone"?`, we.Message)
		})
	}
}

func TestReloadSendsListChanged(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			dir := copySet(t)
			m, s := openSet(t, dir)
			cs, changed := client(t, ctx, s, tr)

			// A new template: a reload makes it a prompt and tells the client.
			editFile(t, dir, "templates/greet.md", "你好，{{ name }}！")
			editFile(t, dir, "index.json", `{"version": 1, "templates": {
			  "title": {"path": "templates/title.md", "variables": ["intent", {"name": "tone", "required": false, "default": "亲切"}]},
			  "greet": {"path": "templates/greet.md", "variables": ["name"]}}}`)
			require.NoError(t, m.Reload(ctx))
			waitChanged(t, ctx, changed)
			res, err := cs.ListPrompts(ctx, nil)
			require.NoError(t, err)
			var names []string
			for _, p := range res.Prompts {
				names = append(names, p.Name)
			}
			assert.Equal(t, []string{"greet", "title"}, names, "support and digest are gone, greet is new")
			got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "李雷"}})
			require.NoError(t, err)
			assert.Equal(t, "你好，李雷！", got.Messages[0].Content.(*mcp.TextContent).Text)

			// An edit of a template's text alone: the same list, but what a
			// prompt gives changed, and the client hears of it.
			editFile(t, dir, "templates/greet.md", "您好，{{ name }}。")
			require.NoError(t, m.Reload(ctx))
			waitChanged(t, ctx, changed)
			got, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "李雷"}})
			require.NoError(t, err)
			assert.Equal(t, "您好，李雷。", got.Messages[0].Content.(*mcp.TextContent).Text)

			// A broken edit changes nothing: no notification, the last good
			// set serves.
			editFile(t, dir, "templates/greet.md", "{{ nmae }}")
			require.Error(t, m.Reload(ctx))
			editFile(t, dir, "templates/greet.md", "嗨，{{ name }}")
			require.NoError(t, m.Reload(ctx))
			waitChanged(t, ctx, changed)
			select {
			case <-changed:
				t.Fatal("a failed reload sent list_changed")
			default:
			}
		})
	}
}

// An error quotes a bounded part of what a client sends: a long name is
// cut, and a flood of unknown arguments is counted, not listed.
func TestErrorsAreBounded(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	_, s := openSet(t, "testdata/set")
	cs, _ := client(t, ctx, s, "stdio")
	args := map[string]string{"intent": "x", "a" + strings.Repeat("长", 200): "y"}
	for i := range 40 {
		args[fmt.Sprintf("extra%02d", i)] = "z"
	}
	_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "title", Arguments: args})
	var we *jsonrpc.Error
	require.True(t, errors.As(err, &we), "%v", err)
	assert.Less(t, len(we.Message), 4096)
	assert.Contains(t, we.Message, "… [345 more bytes cut]")
	assert.Contains(t, we.Message, "; 9 more unknown arguments")
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: strings.Repeat("p", 10000)})
	require.True(t, errors.As(err, &we), "%v", err)
	assert.Equal(t, `unknown prompt "`+strings.Repeat("p", 256)+`… [9744 more bytes cut]"`, we.Message)
}

// A client that hangs up ends Run normally, whether the server was
// reading (EOF) or still writing its answer (a closed pipe).
func TestRunEndsWhenTheClientHangsUp(t *testing.T) {
	_, s := openSet(t, "testdata/set")
	for i := range 20 {
		serverSide, clientSide := net.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- s.Run(testContext(t, 30*time.Second), &mcp.IOTransport{Reader: serverSide, Writer: serverSide})
		}()
		_, err := clientSide.Write([]byte(`{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}` + "\n"))
		require.NoError(t, err)
		if i%2 == 1 { // read part of the answer, so that the server is writing when the client goes
			_, _ = clientSide.Read(make([]byte, 8))
		}
		require.NoError(t, clientSide.Close())
		require.NoError(t, <-done, "round %d", i)
	}
}
