package service

import (
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/builders"
)

// DefaultBotName is the bot name used where the data gives no bot_name and
// no WithBotName option was given: the name of the bot of seed 001.
//
//promptkit:allow-inline the default bot name is configuration, not prompt wording
const DefaultBotName = "麦麦"

// ErrInvalidOption is returned by New for an option with an invalid value,
// or one given twice.
var ErrInvalidOption = errors.New("service: invalid option")

// Option configures a Service. Options are applied in order on top of the
// defaults, and New rejects an invalid value or an option given twice.
type Option func(*config) error

type config struct {
	botName    string
	notePrefix string
	extra      []builders.Builder
	set        map[string]bool // options already given
}

func defaults() config {
	return config{
		botName:    DefaultBotName,
		notePrefix: builders.DefaultNotePrefix,
		set:        map[string]bool{},
	}
}

// once rejects an option given twice.
func (c *config) once(option string) error {
	if c.set[option] {
		return fmt.Errorf("%w: %s given twice", ErrInvalidOption, option)
	}
	c.set[option] = true
	return nil
}

// WithBotName sets the bot name that builders use when the data has no
// bot_name (default DefaultBotName). It must not be empty.
func WithBotName(name string) Option {
	return func(c *config) error {
		if err := c.once("WithBotName"); err != nil {
			return err
		}
		if name == "" {
			return fmt.Errorf("%w: WithBotName: empty name", ErrInvalidOption)
		}
		c.botName = name
		return nil
	}
}

// WithNotePrefix sets the prefix of the note ids that the injection and
// context_note builders generate (default builders.DefaultNotePrefix): 1 to
// 32 letters, digits, '.', '_', ':' or '-'.
func WithNotePrefix(prefix string) Option {
	return func(c *config) error {
		if err := c.once("WithNotePrefix"); err != nil {
			return err
		}
		if _, err := builders.NoteIDs(prefix); err != nil {
			return fmt.Errorf("%w: WithNotePrefix: %w", ErrInvalidOption, err)
		}
		c.notePrefix = prefix
		return nil
	}
}

// WithBuilders registers more builders beside the seven defaults. A name
// that is already taken, by a default or by another builder, makes New fail
// with ErrDuplicateBuilder. It may be given more than once.
func WithBuilders(bs ...builders.Builder) Option {
	return func(c *config) error {
		for i, b := range bs {
			if b == nil {
				return fmt.Errorf("%w: WithBuilders: builder %d is nil", ErrInvalidOption, i)
			}
		}
		c.extra = append(c.extra, bs...)
		return nil
	}
}
