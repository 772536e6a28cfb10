package builders

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"sync"
)

// Data keys shared by several builders.
const (
	keyBotName = "bot_name"
	keyIntent  = "intent"
	keyID      = "id"
)

// DefaultNotePrefix starts the note ids that the injection and context_note
// builders generate when neither the task nor the data gives one.
const DefaultNotePrefix = "note-"

// notePrefix is what a note id prefix may be: short, and free of anything
// that would need escaping.
var notePrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._:-]{1,32}$`) })

// NoteIDs returns a generator of unique note ids: prefix followed by 16
// random hexadecimal digits, e.g. "note-3f2a9c1b7d4e5f60". The prefix is
// 1 to 32 letters, digits, '.', '_', ':' or '-'. The generator is safe
// for concurrent use.
func NoteIDs(prefix string) (func() string, error) {
	if !notePrefix().MatchString(prefix) {
		return nil, fmt.Errorf("%w: note id prefix %q: want 1 to 32 of A-Z a-z 0-9 . _ : -", ErrInvalidValue, prefix)
	}
	return func() string {
		var b [8]byte
		rand.Read(b[:]) // never fails (crypto/rand)
		return prefix + hex.EncodeToString(b[:])
	}, nil
}

// Config is what the default builders share.
type Config struct {
	// BotName is the bot's name where the data gives no bot_name. Required.
	BotName string
	// NotePrefix starts generated note ids; empty means DefaultNotePrefix.
	NotePrefix string
}

// Defaults returns the seven builders of the default template set, sorted
// by name, sharing r and cfg: agent_system, context_note, injection,
// planner_board, polish, subagent_system and title.
func Defaults(r Renderer, cfg Config) ([]Builder, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: Defaults needs a renderer", ErrNoRenderer)
	}
	if cfg.BotName == "" {
		return nil, fmt.Errorf("%w: Config.BotName is empty", ErrMissingValue)
	}
	if cfg.NotePrefix == "" {
		cfg.NotePrefix = DefaultNotePrefix
	}
	ids, err := NoteIDs(cfg.NotePrefix)
	if err != nil {
		return nil, err
	}
	return []Builder{
		NewAgentSystem(r, cfg.BotName),
		NewContextNote(r, cfg.BotName, ids),
		NewInjection(r, ids),
		NewPlannerBoard(r),
		NewPolish(r, cfg.BotName),
		NewSubAgentSystem(r, cfg.BotName),
		NewTitle(r),
	}, nil
}

// defaultIDs generates note ids for a builder made without a generator.
func defaultIDs() func() string {
	ids, _ := NoteIDs(DefaultNotePrefix) // DefaultNotePrefix is valid
	return ids
}
