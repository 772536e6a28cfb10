package contextstack

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolChoiceFilter(t *testing.T) {
	s := NewStack(tools("rag", "search", "fetch"), user("request", "u"), tools("platform", "clock"))
	tests := []struct {
		name   string
		choice ToolChoice
		want   []string
	}{
		{"zero value is auto", ToolChoice{}, []string{"search", "fetch", "clock"}},
		{"auto", Auto, []string{"search", "fetch", "clock"}},
		{"any", Any, []string{"search", "fetch", "clock"}},
		{"one name", ChooseTools("fetch"), []string{"fetch"}},
		{"a list keeps stack order", ChooseTools("clock", "search"), []string{"search", "clock"}},
		{"unknown names are left out", ChooseTools("nope", "clock"), []string{"clock"}},
		{"an empty list offers nothing", ChooseTools(), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.SelectTools(tt.choice)
			require.NoError(t, err)
			assert.Equal(t, tt.want, toolNames(got))
		})
	}
}

func TestSelectToolsChecksConflictsFirst(t *testing.T) {
	s := NewStack(tools("rag", "search"), tools("platform", "search", "clock"))
	for _, choice := range []ToolChoice{Auto, ChooseTools("clock"), ChooseTools()} {
		_, err := s.SelectTools(choice)
		var conflict *ToolNameConflictError
		require.ErrorAs(t, err, &conflict, "choice %v", choice.Mode())
		assert.Equal(t, "search", conflict.Name)
	}
}

func TestToolChoiceAccessors(t *testing.T) {
	assert.Equal(t, "auto", ToolChoice{}.Mode())
	assert.Equal(t, "auto", Auto.Mode())
	assert.Equal(t, "any", Any.Mode())
	assert.Nil(t, Auto.Names())
	names := []string{"a", "b"}
	c := ChooseTools(names...)
	names[0] = "changed"
	assert.Equal(t, "names", c.Mode())
	assert.Equal(t, []string{"a", "b"}, c.Names(), "the choice keeps its own copy")
	c.Names()[0] = "changed"
	assert.Equal(t, []string{"a", "b"}, c.Names())
}

func TestToolChoiceJSON(t *testing.T) {
	tests := []struct {
		name   string
		choice ToolChoice
		json   string
	}{
		{"auto", Auto, `"auto"`},
		{"any", Any, `"any"`},
		{"one name", ChooseTools("search"), `"search"`},
		{"list", ChooseTools("search", "fetch"), `["search","fetch"]`},
		{"empty list", ChooseTools(), `[]`},
		{"a tool named auto stays a list", ChooseTools("auto"), `["auto"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.choice)
			require.NoError(t, err)
			assert.Equal(t, tt.json, string(got))
			var back ToolChoice
			require.NoError(t, json.Unmarshal(got, &back))
			assert.Equal(t, tt.choice, back)
		})
	}
	t.Run("null leaves the choice as it is", func(t *testing.T) {
		c := ChooseTools("x")
		require.NoError(t, json.Unmarshal([]byte(`null`), &c))
		assert.Equal(t, ChooseTools("x"), c)
	})
	t.Run("zero value writes auto", func(t *testing.T) {
		got, err := json.Marshal(ToolChoice{})
		require.NoError(t, err)
		assert.Equal(t, `"auto"`, string(got))
	})
}

func TestToolChoiceInvalidJSON(t *testing.T) {
	for _, in := range []string{`""`, `3`, `{"name":"x"}`, `[1,2]`, `["a",""]`, `true`} {
		t.Run(in, func(t *testing.T) {
			var c ToolChoice
			assert.ErrorIs(t, json.Unmarshal([]byte(in), &c), ErrInvalidToolChoice)
		})
	}
}

// namesUnique agrees with a map on stacks small and large (past the
// table it keeps on the stack), with and without a repeated or empty
// name, wherever in stack order the problem is.
func TestNamesUnique(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100, 128, 129, 300} {
		for _, problem := range []string{"", "repeat first", "repeat last", "empty"} {
			var layers []Layer
			for i := 0; i < n; i += 10 {
				var specs []ToolSpec
				for j := i; j < min(i+10, n); j++ {
					specs = append(specs, ToolSpec{Name: fmt.Sprintf("mcp_server_tool_%d", j)})
				}
				layers = append(layers, Layer{Source: "s", Content: ToolDefinitions{Tools: specs}}, Layer{Content: ContextPrompt{Text: "x"}})
			}
			last := layers[len(layers)-2].Content.(ToolDefinitions).Tools
			switch problem {
			case "repeat first":
				last[len(last)-1].Name = "mcp_server_tool_0"
			case "repeat last":
				if n > 1 {
					layers[0].Content.(ToolDefinitions).Tools[0].Name = last[len(last)-1].Name
				}
			case "empty":
				last[0].Name = ""
			}
			seen, want := map[string]bool{}, true
			for _, l := range layers {
				if defs, ok := l.Content.(ToolDefinitions); ok {
					for _, s := range defs.Tools {
						if s.Name == "" || seen[s.Name] {
							want = false
						}
						seen[s.Name] = true
					}
				}
			}
			assert.Equal(t, want, namesUnique(layers, n), "%d tools, %s", n, problem)
		}
	}
}
