package jinja_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// The type pass's tables name only filters and tests the runtime has, and
// every method of the runtime says which kinds of value have it.
func TestTypeTablesMatchTheRuntime(t *testing.T) {
	c := engine.Catalog(engine.Options{})
	for name := range jinja.FilterInputs {
		spec, ok := c.Filters[name]
		assert.True(t, ok && spec.Refused == "", "filter %s is in the type pass's table but not a filter of the runtime", name)
	}
	for name := range jinja.TestInputs {
		spec, ok := c.Tests[name]
		assert.True(t, ok && spec.Refused == "", "test %s is in the type pass's table but not a test of the runtime", name)
	}
	for name, spec := range c.Methods {
		if spec.Refused == "" {
			assert.NotZero(t, spec.Receivers, "method %s: the catalog does not say which values have it", name)
		}
	}
	assert.Equal(t, jinja.KindString, c.Methods["upper"].Receivers)
	assert.Equal(t, jinja.KindObject, c.Methods["items"].Receivers)
}

func TestKindsString(t *testing.T) {
	for k, want := range map[jinja.Kinds]string{
		jinja.KindString:                   "a string",
		jinja.KindNumber:                   "a number",
		jinja.KindInt:                      "an integer",
		jinja.KindString | jinja.KindNull:  "a string or null",
		jinja.KindArray | jinja.KindObject: "an array or an object",
		0:                                  "anything",
	} {
		assert.Equal(t, want, k.String())
	}
}
