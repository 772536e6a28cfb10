package rag

import (
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTagsComeFromOneTable reads the RAG templates of the default set:
// every tag they write or name goes through the tags table ({{ tags.X }},
// X a key of it), and none is spelt out, so a system prompt and the user
// message cannot name one tag differently.
func TestTagsComeFromOneTable(t *testing.T) {
	ref := regexp.MustCompile(`tags\.([A-Za-z_]\w*)`)
	var spelt []string
	for name := range tags {
		spelt = append(spelt, regexp.QuoteMeta(name), regexp.QuoteMeta(tags[name].(string)))
	}
	literal := regexp.MustCompile(`</?(` + strings.Join(spelt, "|") + `)[\s>/]`)
	files := 0
	require.NoError(t, fs.WalkDir(promptkit.FS(), "templates/rag", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		src, err := fs.ReadFile(promptkit.FS(), path)
		require.NoError(t, err)
		for _, m := range ref.FindAllStringSubmatch(string(src), -1) {
			assert.Contains(t, tags, m[1], "%s: {{ tags.%s }} is not in the tags table", path, m[1])
		}
		assert.Empty(t, literal.FindAllString(string(src), -1), "%s spells out a tag; write {{ tags.NAME }}", path)
		return nil
	}))
	assert.Positive(t, files)
}

// TestSystemPromptNamesTheTagsOfTheUserMessage renders each scene: every
// tag the system message tells the model about is a tag of the user
// message, and the scene's evidence sits in the tags the RAG design
// names: <tool-data> and <documents>.
func TestSystemPromptNamesTheTagsOfTheUserMessage(t *testing.T) {
	b := New(defaultSet(t))
	tests := []struct {
		name     string
		in       Input
		evidence []string
	}{
		{"kb", Input{Question: "q", Documents: []Retrieved{kb("", "x")}}, []string{"documents"}},
		{"tool", Input{Question: "q", Tools: []ToolResult{tool("t", "", 1)}}, []string{"tool-data"}},
		{"mixed", Input{Question: "q", SubQuestions: []string{"a", "b"}, Documents: []Retrieved{kb("", "x")}, Tools: []ToolResult{tool("t", "", 1)}},
			[]string{"tool-data", "documents"}},
	}
	named := regexp.MustCompile(`<([a-z][a-z_-]*)>`) // how a system prompt names a tag
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := b.Messages(tc.in)
			require.NoError(t, err)
			system, user := msgs[0].Text(), msgs[len(msgs)-1].Text()
			for _, e := range tc.evidence {
				assert.Contains(t, system, "<"+e+">", "the system prompt names <%s>", e)
				assert.Contains(t, user, "<"+e+">")
				assert.Contains(t, user, "</"+e+">")
			}
			values := slices.Collect(maps.Values(tags))
			for _, m := range named.FindAllStringSubmatch(system, -1) {
				if m[1] == "rules" {
					continue // the system prompt's own block
				}
				assert.Contains(t, values, m[1], "the system prompt names <%s>, which is not a tag of the table", m[1])
				// The system prompt names both question forms; the user
				// message has the numbered one only with sub-questions.
				numbered := len(tc.in.SubQuestions) >= 2
				if m[1] == "question" && numbered || m[1] == "questions" && !numbered {
					continue
				}
				assert.Regexp(t, "<"+m[1]+"[ >]", user, "the system prompt names <%s>, which the user message lacks", m[1])
			}
		})
	}
}
