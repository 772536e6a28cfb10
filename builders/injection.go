package builders

import "github.com/seed-e7d2830f/promptkit/prompts"

// Injection formats an instruction that the user added while a task runs
// as a system message for the agent loop, from the template injection.
//
// It reads the data key instruction (required) and gives the note an id:
// the task's id, else the data key id, else a new unique id made by the
// generator given to NewInjection (see NoteIDs).
//
// Escaped with EscapeXML: instruction, the note id.
type Injection struct {
	base
	newID func() string
}

// NewInjection returns the injection builder. newID generates note ids;
// nil means NoteIDs(DefaultNotePrefix).
func NewInjection(r Renderer, newID func() string) *Injection {
	if newID == nil {
		newID = defaultIDs()
	}
	return &Injection{base: newBase("injection", r, "instruction", keyID), newID: newID}
}

// Build renders the injection message.
func (b *Injection) Build(ctx Context) (string, error) {
	d, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	instruction, err := d.required("instruction")
	if err != nil {
		return "", err
	}
	id, err := d.noteID(b.newID)
	if err != nil {
		return "", err
	}
	return b.rendered(prompts.RenderInjection(b.r, prompts.InjectionVars{
		Instruction: EscapeXML(instruction),
		NoteID:      EscapeXML(id),
	}))
}
