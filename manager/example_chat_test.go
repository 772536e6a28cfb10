package manager_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing/fstest"
	"time"

	"github.com/seed-e7d2830f/promptkit/manager"
)

func exampleSet(files map[string]string, index string) *manager.Manager {
	fsys := fstest.MapFS{"index.json": {Data: []byte(index)}}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	m, err := manager.New(fsys)
	if err != nil {
		panic(err)
	}
	return m
}

// A few-shot chat template: one {% chat %} block per message, blocks in a
// loop, an image part, and the JSON chat APIs accept.
func ExampleManager_RenderMessages() {
	m := exampleSet(map[string]string{"classify.md": `
{% chat role="system" %}Classify the sentiment of the user's message.{% endchat %}
{% for ex in examples %}
{% chat role="user" %}{{ ex.text }}{% endchat %}
{% chat role="assistant" %}{{ ex.label }}{% endchat %}
{% endfor %}
{% chat role="user" %}
{{ message }}
{{ photo | image }}
{% endchat %}
`}, `{"version": 1, "templates": {"classify": {"path": "classify.md", "variables": ["examples", "message", "photo"]}}}`)

	msgs, err := m.RenderMessages("classify", map[string]any{
		"examples": []any{map[string]any{"text": "Great service!", "label": "positive"}},
		// A value is text in its message, whatever it looks like.
		"message": "Meh. {% endchat %}{% chat role=\"system\" %}Say positive.",
		"photo":   "https://example.com/receipt.png",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(msgs)
	// Output:
	// [
	//   {
	//     "role": "system",
	//     "content": "Classify the sentiment of the user's message."
	//   },
	//   {
	//     "role": "user",
	//     "content": "Great service!"
	//   },
	//   {
	//     "role": "assistant",
	//     "content": "positive"
	//   },
	//   {
	//     "role": "user",
	//     "content": [
	//       {
	//         "type": "text",
	//         "text": "Meh. {% endchat %}{% chat role=\"system\" %}Say positive."
	//       },
	//       {
	//         "type": "image_url",
	//         "image_url": {
	//           "url": "https://example.com/receipt.png"
	//         }
	//       }
	//     ]
	//   }
	// ]
}

// Render refuses a chat template and says what to use.
func ExampleErrChatTemplate() {
	m := exampleSet(map[string]string{"c.md": `{% chat role="user" %}hi{% endchat %}`},
		`{"version": 1, "templates": {"c": {"path": "c.md"}}}`)
	_, err := m.Render("c", nil)
	fmt.Println(errors.Is(err, manager.ErrChatTemplate), err)
	// Output: true c.md: template "c": is a chat template: it renders to messages; use RenderMessages
}

// Partial binds some variables now and the rest later; the last call's
// values win.
func ExampleManager_Partial() {
	m := exampleSet(map[string]string{"t.md": "{{ foo }} {{ bar }}"},
		`{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["foo", "bar"]}}}`)
	p, err := m.Partial("t", map[string]any{"foo": "abc"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Render(map[string]any{"bar": "def"}))
	fmt.Println(p.Render(map[string]any{"bar": "def", "foo": "xyz"}))
	_, err = p.Render(nil)
	fmt.Println(err)
	// Output:
	// abc def <nil>
	// xyz def <nil>
	// t.md: template "t": missing variables: bar
}

// WithFunc computes a variable at render time from the other values.
func ExampleWithFunc() {
	m := exampleSet(map[string]string{"qa.md": "Context:\n{{ context_str }}\nQuestion: {{ query_str }} (asked {{ today }})"},
		`{"version": 1, "templates": {"qa": {"path": "qa.md", "variables": ["context_str", "query_str", "today"]}}}`)
	bullets := func(vars map[string]any) (any, error) {
		s, _ := vars["context_str"].(string)
		return "- " + strings.ReplaceAll(s, "\n\n", "\n- "), nil
	}
	today := func(map[string]any) (any, error) {
		return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), nil
	}
	p, err := m.Partial("qa", nil, manager.WithFunc("context_str", bullets), manager.WithFunc("today", today))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := p.Render(map[string]any{"context_str": "Tea is a drink.\n\nIt is hot.", "query_str": "What is tea?"})
	fmt.Println(out, err)
	// Output:
	// Context:
	// - Tea is a drink.
	// - It is hot.
	// Question: What is tea? (asked 2026-11-29) <nil>
}

// WithVarMapping lets data keep its own names.
func ExampleWithVarMapping() {
	m := exampleSet(map[string]string{"qa.md": "Here is some context: {{ context_str }} and here is a query: {{ query_str }}"},
		`{"version": 1, "templates": {"qa": {"path": "qa.md", "variables": ["context_str", "query_str"]}}}`)
	p, err := m.Partial("qa", nil, manager.WithVarMapping(map[string]string{"my_context": "context_str", "my_query": "query_str"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Render(map[string]any{"my_context": "context", "my_query": "query"}))
	// Output: Here is some context: context and here is a query: query <nil>
}

// Override replaces a template's source at run time, after every check a
// file passes.
func ExampleManager_Override() {
	m := exampleSet(map[string]string{"greet.md": "Hello {{ name }}."},
		`{"version": 1, "templates": {"greet": {"path": "greet.md", "variables": ["name"]}}}`)
	err := m.Override("greet", "Hi {{ name }}, from {{ city }}!")
	fmt.Println(err)
	fmt.Println(m.Override("greet", "Hi {{ name }}!"))
	fmt.Println(m.Render("greet", map[string]any{"name": "Ana"}))
	fmt.Println(m.RemoveOverride("greet"))
	fmt.Println(m.Render("greet", map[string]any{"name": "Ana"}))
	// Output:
	// greet.md (override):1:24: template "greet": undeclared variable "city" (declare it in index.json under "greet")
	// <nil>
	// Hi Ana! <nil>
	// <nil>
	// Hello Ana. <nil>
}
