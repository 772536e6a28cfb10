package manager

import (
	"fmt"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// TextForm says how a caller that holds only text — an MCP client's
// prompt arguments, a form's fields, a framework's string inputs — writes
// the value of one variable, as the variable's schema decides it.
type TextForm struct {
	// JSON is true when the text is read as JSON (DecodeJSON): the
	// variable's schema does not allow a string (a number, a boolean, a
	// list, an object). Otherwise the text is the value itself: an
	// untyped variable, or a schema that allows a string.
	JSON bool
	// Want names the kinds of values the schema allows, as errors name
	// them ("an integer", "an array or null"); "" for a variable without
	// a schema, or one that allows anything.
	Want string
	// Choices are the values the schema lists (enum, const, through $ref,
	// allOf, anyOf and oneOf) and accepts, in their order; nil when it lists
	// none. Numbers are int64 or float64.
	Choices []any
}

// TextForm returns how text stands for a value of variable in the
// template called name. ok is false for an unknown template or a variable
// it does not declare.
func (m *Manager) TextForm(name, variable string) (form TextForm, ok bool) {
	c := m.cur.Load().templates[name]
	if c == nil || c.declared(variable) == nil {
		return TextForm{}, false
	}
	for _, s := range c.schemas {
		if s.name != variable {
			continue
		}
		k := s.schema.Type().Kinds
		if k != 0 && k != jinja.KindAny {
			form.Want = k.String()
		}
		form.JSON = k != 0 && k&jinja.KindString == 0
		form.Choices = s.schema.Choices()
	}
	return form, true
}

// Value returns the value text stands for in this form: the text itself,
// or the text read as JSON. Text that is not JSON where JSON is wanted is
// an error that says what was wanted (the caller names the variable); the
// value is not checked against the schema here — a render validates it.
func (f TextForm) Value(text string) (any, error) {
	if !f.JSON {
		return text, nil
	}
	v, err := DecodeJSON([]byte(text))
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "json: ")
		return nil, fmt.Errorf("want %s written as JSON, got %q: %s", f.Want, quoteCut(text), msg)
	}
	return v, nil
}

// quoteCut shortens text for an error message: at most 64 runes.
func quoteCut(text string) string {
	if r := []rune(text); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return text
}
