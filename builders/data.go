package builders

import (
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/internal/strictjson"
)

// data reads one build's values on behalf of a builder, so every error
// names the builder and the key.
type data struct {
	b   *base
	ctx Context
}

// str returns the string under key; absent or null is "".
func (d data) str(key string) (string, error) {
	v, ok := d.ctx.value(key) // strings need no copy
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", d.b.fail(key, ErrInvalidValue, fmt.Sprintf("want a string, got %T", v), nil)
	}
	return s, nil
}

// required returns the non-empty string under key.
func (d data) required(key string) (string, error) {
	s, err := d.str(key)
	if err == nil && s == "" {
		err = d.b.fail(key, ErrMissingValue, "absent or empty", nil)
	}
	return s, err
}

// botName returns bot_name, or def when it is absent or empty.
func (d data) botName(def string) (string, error) {
	s, err := d.str(keyBotName)
	if err != nil || s != "" {
		return s, err
	}
	if def == "" {
		return "", d.b.fail(keyBotName, ErrMissingValue, "absent or empty, and the builder has no default bot name", nil)
	}
	return def, nil
}

// intent returns the intent key of the data, else the task's intent.
func (d data) intent() (string, error) {
	s, err := d.str(keyIntent)
	if err != nil || s != "" {
		return s, err
	}
	if s = d.ctx.task.Intent; s == "" {
		return "", d.b.fail(keyIntent, ErrMissingValue, "absent or empty in the data and in task.intent", nil)
	}
	return s, nil
}

// noteID returns the task id, else the id key of the data, else a new id.
func (d data) noteID(newID func() string) (string, error) {
	if id := d.ctx.task.ID; id != "" {
		return id, nil
	}
	id, err := d.str(keyID)
	if err != nil || id != "" {
		return id, err
	}
	return newID(), nil
}

// list decodes the list under key into items of type T: a []T as is, or
// any JSON-shaped list (a []any or []map[string]any of objects, as decoded
// from JSON) whose objects have only T's fields, named exactly. Absent or
// null is empty. An error names the path of the bad item or field
// ("jargon[1].meening"). Each item is then checked by valid, which names
// the missing field.
func list[T any](d data, key string, valid func(T) string) ([]T, error) {
	v, ok := d.ctx.Value(key)
	if !ok || v == nil {
		return nil, nil
	}
	items, ok := v.([]T)
	if !ok {
		if err := strictjson.Decode(v, &items); err != nil {
			var pe *strictjson.PathError
			errors.As(err, &pe) // Decode's errors are *PathError
			return nil, d.b.fail(key+pe.Path, ErrInvalidValue, pe.Msg, nil)
		}
	}
	for i, it := range items {
		if field := valid(it); field != "" {
			return nil, d.b.fail(fmt.Sprintf("%s[%d].%s", key, i, field), ErrMissingValue, "absent or empty", nil)
		}
	}
	return items, nil
}

// shortID keeps the first n characters of id (characters, not bytes, so a
// multi-byte id is never cut inside a character).
func shortID(id string, n int) string {
	for i := range id {
		if n == 0 {
			return id[:i]
		}
		n--
	}
	return id
}
