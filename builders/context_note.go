package builders

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/prompts"
)

// The kinds of context note.
const (
	KindSentMessage      = "sent-message"       // the bot sent a message of its own accord
	KindTaskReply        = "task-reply"         // the bot replied with a task's result
	KindTaskWaitingInput = "task-waiting-input" // the bot asked for input a task waits on
)

// NoteKinds returns the kinds a context note may have.
func NoteKinds() []string {
	return []string{KindSentMessage, KindTaskReply, KindTaskWaitingInput}
}

// ContextNote builds the note that tells the main chat program why the bot
// sent a message (a sent message, a task's reply, or a question a waiting
// task asks), from the template context_note.
//
// It reads the data keys kind (one of NoteKinds, checked before anything
// else: ErrInvalidKind), content (required), bot_name (as AgentSystem
// does) and id. The note id is the task's id, else the data key id, else a
// new unique id made by the generator given to NewContextNote.
//
// Escaped with EscapeXML: kind, content, the note id, bot_name.
type ContextNote struct {
	base
	botName string
	newID   func() string
}

// NewContextNote returns the context_note builder. botName is the default
// bot name; newID generates note ids, nil meaning NoteIDs(DefaultNotePrefix).
func NewContextNote(r Renderer, botName string, newID func() string) *ContextNote {
	if newID == nil {
		newID = defaultIDs()
	}
	return &ContextNote{
		base:    newBase("context_note", r, "kind", "content", keyID, keyBotName),
		botName: botName,
		newID:   newID,
	}
}

// Build renders the context note.
func (b *ContextNote) Build(ctx Context) (string, error) {
	d, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	kind, err := d.str("kind")
	if err != nil {
		return "", err
	}
	if !slices.Contains(NoteKinds(), kind) {
		return "", b.fail("kind", ErrInvalidKind,
			fmt.Sprintf("%q is not a note kind (want one of: %s)", kind, strings.Join(NoteKinds(), ", ")), nil)
	}
	content, err := d.required("content")
	if err != nil {
		return "", err
	}
	bot, err := d.botName(b.botName)
	if err != nil {
		return "", err
	}
	id, err := d.noteID(b.newID)
	if err != nil {
		return "", err
	}
	return b.rendered(prompts.RenderContextNote(b.r, prompts.ContextNoteVars{
		Kind:    EscapeXML(kind),
		Content: EscapeXML(content),
		NoteID:  EscapeXML(id),
		BotName: EscapeXML(bot),
	}))
}
