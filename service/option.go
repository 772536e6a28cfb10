package service

import (
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/builders"
)

// DefaultBotName is the bot name the default builders use where the data
// gives no bot_name and no WithBotName option was given.
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
	defaults   bool // WithDefaultBuilders
	botName    string
	notePrefix string
	builders   []builders.Builder // WithBuilders
	set        map[string]bool    // options already given
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

// WithDefaultBuilders registers the default builders (DefaultBuilders):
// the seven scene builders of package builders and rag_answer, rendering
// the templates of the default template set. The manager must hold all of
// their templates, as the embedded set (promptkit.FS) does; New names each
// one it lacks. WithBotName and WithNotePrefix configure them.
func WithDefaultBuilders() Option {
	return func(c *config) error {
		if err := c.once("WithDefaultBuilders"); err != nil {
			return err
		}
		c.defaults = true
		return nil
	}
}

// WithBotName sets the bot name that the default builders use when the
// data has no bot_name (default DefaultBotName). It must not be empty,
// and it needs WithDefaultBuilders: without them no builder reads it.
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

// WithNotePrefix sets the prefix of the note ids that the default
// injection and context_note builders generate (default
// builders.DefaultNotePrefix): 1 to 32 letters, digits, '.', '_', ':' or
// '-'. It needs WithDefaultBuilders.
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

// WithBuilders registers builders: a host's own, or some of
// DefaultBuilders. A name that is already taken, by a default builder or
// by another, makes New fail with ErrDuplicateBuilder. It may be given
// more than once.
func WithBuilders(bs ...builders.Builder) Option {
	return func(c *config) error {
		for i, b := range bs {
			if b == nil {
				return fmt.Errorf("%w: WithBuilders: builder %d is nil", ErrInvalidOption, i)
			}
		}
		c.builders = append(c.builders, bs...)
		return nil
	}
}

// check rejects options that contradict each other, once all are applied.
func (c *config) check() error {
	if !c.defaults {
		for _, o := range []string{"WithBotName", "WithNotePrefix"} {
			if c.set[o] {
				return fmt.Errorf("%w: %s configures the default builders; add WithDefaultBuilders", ErrInvalidOption, o)
			}
		}
	}
	return nil
}
