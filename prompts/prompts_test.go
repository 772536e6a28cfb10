package prompts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/gen"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/prompts"
)

// TestGeneratedIsCurrent fails when prompts.go no longer matches the
// default set's index.json and schemas.
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := gen.Generate(promptkit.FS(), gen.Options{Package: "prompts", Command: "promptkit gen --out prompts.go"})
	require.NoError(t, err)
	got, err := os.ReadFile("prompts.go")
	require.NoError(t, err)
	if string(got) != string(want) {
		t.Fatal("prompts/prompts.go is stale: run go generate ./prompts and commit the result")
	}
}

// The typed functions render what Render renders with the same values.
func TestTypedRenders(t *testing.T) {
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	defer m.Close()

	got, err := prompts.RenderTitle(m, prompts.TitleVars{Intent: "查天气"})
	require.NoError(t, err)
	want, err := m.Render("title", map[string]any{"intent": "查天气"})
	require.NoError(t, err)
	assert.Equal(t, want, got)

	requester := "小王"
	got, err = prompts.RenderPolish(m, prompts.PolishVars{Result: "晴", BotName: "麦麦", Requester: &requester,
		Jargon: []prompts.Jargon{{Content: "yyds", Meaning: "永远的神"}}})
	require.NoError(t, err)
	want, err = m.Render("polish", map[string]any{"result": "晴", "bot_name": "麦麦", "requester": "小王", "context": "",
		"jargon": []any{map[string]any{"content": "yyds", "meaning": "永远的神"}}})
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// Optional properties left zero are absent, as in the JSON form.
	board := prompts.PlannerBoardVars{SessionID: "s", Active: []prompts.BoardTask{{ID: "t-1", Title: "查天气", Status: "running"}}}
	got, err = prompts.RenderPlannerBoard(m, board)
	require.NoError(t, err)
	want, err = m.Render("planner_board", map[string]any{"session_id": "s", "scheduled": []any{}, "recent": []any{},
		"active": []any{map[string]any{"id": "t-1", "title": "查天气", "status": "running"}}})
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.NotContains(t, got, "requester=", "an absent requester is left out")

	// The schema still checks what the Go types cannot: an enum.
	_, err = prompts.RenderContextNote(m, prompts.ContextNoteVars{Kind: "note", Content: "c", NoteID: "n", BotName: "b"})
	require.ErrorIs(t, err, manager.ErrInvalidVariables)
	assert.Contains(t, err.Error(), `kind: want one of "sent-message", "task-reply", "task-waiting-input", got "note"`)
}

// TestMisspelledFieldDoesNotCompile builds a small host program against
// the generated package: with the fields spelled right it builds; with a
// misspelled field, or a value of the wrong type, the compiler refuses it.
func TestMisspelledFieldDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	build := func(body string) (string, error) {
		dir := t.TempDir()
		files := map[string]string{
			"go.mod":  "module host\n\ngo 1.26.0\n",
			"go.work": "go 1.26.0\n\nuse (\n\t.\n\t" + root + "\n)\n",
			"main.go": `package main

import (
	"fmt"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/prompts"
)

func main() {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		panic(err)
	}
	out, err := prompts.RenderTitle(m, prompts.TitleVars{` + body + `})
	fmt.Println(len(out), err)
}
`,
		}
		for name, content := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
		}
		cmd := exec.Command(gobin, "build", "-o", filepath.Join(dir, "host"), ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off", "GOWORK="+filepath.Join(dir, "go.work"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := build(`Intent: "查天气"`)
	require.NoError(t, err, "the control program must build: %s", out)

	out, err = build(`Intnet: "查天气"`)
	require.Error(t, err)
	assert.Contains(t, out, "unknown field Intnet in struct literal of type prompts.TitleVars")

	out, err = build(`Intent: 42`)
	require.Error(t, err)
	assert.True(t, strings.Contains(out, "cannot use 42") && strings.Contains(out, "string"), out)
}
