package prompts_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/prompts"
)

// A host renders the default set's templates with typed values: a
// misspelled field (Intnet) or a value of the wrong type does not compile.
func ExampleRenderTitle() {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		panic(err)
	}
	out, err := prompts.RenderTitle(m, prompts.TitleVars{Intent: "查询明天北京的天气"})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(out, "<intent>查询明天北京的天气</intent>"))
	// Output: true
}

// What the Go types cannot say, the schema still checks when it renders:
// here an enum.
func ExampleRenderContextNote() {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		panic(err)
	}
	_, err = prompts.RenderContextNote(m, prompts.ContextNoteVars{Kind: "memo", Content: "c", NoteID: "n-1", BotName: "麦麦"})
	fmt.Println(errors.Is(err, manager.ErrInvalidVariables))
	fmt.Println(err)
	// Output:
	// true
	// templates/context_note.md: template "context_note": invalid variables: kind: want one of "sent-message", "task-reply", "task-waiting-input", got "memo"
}
