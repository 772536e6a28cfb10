package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	fields := []string{"role", "content", "name", "tool_calls", "tool_call_id", "reasoning_content"}
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"argumnets", []string{"name", "arguments"}, "arguments"}, // a swap and a letter
		{"contnet", fields, "content"},                            // a swap of neighbours costs one
		{"tool_call", fields, "tool_calls"},                       // a letter missing
		{"toolcalls", fields, "tool_calls"},                       // a letter missing
		{"reasoning", fields, ""},                                 // too far from reasoning_content
		{"rol", fields, "role"},                                   // three characters: suggested
		{"ro", fields, ""},                                        // two: every short name is close
		{"role", fields, ""},                                      // itself is not a suggestion
		{"nmae", []string{"name", "nmaes"}, "name"},               // of two at distance one, the first sorted
		{"nmae", []string{"nmaes", "name"}, "name"},               // whatever their order
		{"城市名", []string{"城市", "城市名称"}, "城市"},                     // by characters, not bytes
		{"descripton", []string{"description", "destination"}, "description"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Closest(tc.name, tc.names), "Closest(%q, %q)", tc.name, tc.names)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"城市", "城事", 1}} {
		assert.Equal(t, tc.d, distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		assert.Equal(t, tc.d, distance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}
