package contextstack

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPromptPriorityMatchesType holds promptPriority, the system prompt's
// shortcut, to DefaultPriority and IsPrompt of every content's type.
func TestPromptPriorityMatchesType(t *testing.T) {
	contents := []Content{
		UserInstructions{}, RuntimeInstructions{}, SkillCatalog{}, SkillBody{}, ToolInstructions{},
		ContextPrompt{}, ToolDefinitions{}, Document{}, ContentBundles{},
		&UserInstructions{}, &SkillBody{}, &Document{},
	}
	for _, c := range contents {
		t.Run(fmt.Sprintf("%T", c), func(t *testing.T) {
			p, ok := promptPriority(c)
			assert.Equal(t, c.Type().DefaultPriority(), p)
			assert.Equal(t, c.Type().IsPrompt(), ok)
		})
	}
	p, ok := promptPriority(nil)
	assert.Equal(t, StatePriority, p)
	assert.False(t, ok)
}
