package manager_test

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"testing/fstest"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// New loads a set from any fs.FS; Render fills a template strictly.
func ExampleNew() {
	fsys := fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {
			"faq": {"path": "faq.md", "variables": ["question", {"name": "tone", "required": false, "default": "正式"}]}}}`)},
		"faq.md": {Data: []byte("请用{{ tone }}的语气回答：{{ question }}\n")},
	}
	m, err := manager.New(fsys)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := m.Render("faq", map[string]any{"question": "怎么退货？"})
	fmt.Printf("%q %v\n", out, err)
	// Output: "请用正式的语气回答：怎么退货？" <nil>
}

// Render's errors say what and where, and match the package's sentinels.
func ExampleManager_Render_errors() {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = m.Render("title", map[string]any{})
	fmt.Println(errors.Is(err, manager.ErrMissingVariables), err)
	_, err = m.Render("title", map[string]any{"intent": "x", "intnet": "typo"})
	fmt.Println(errors.Is(err, manager.ErrExtraVariables), err)
	_, err = m.Render("title", map[string]any{"intnet": "typo"})
	fmt.Println(errors.Is(err, manager.ErrMissingVariables) && errors.Is(err, manager.ErrExtraVariables), err)
	_, err = m.Render("titel", nil)
	fmt.Println(errors.Is(err, manager.ErrUnknownTemplate))
	// Output:
	// true templates/title.md: template "title": missing variables: intent
	// true templates/title.md: template "title": extra variables not declared in index.json: intnet; did you mean "intent"?
	// true templates/title.md: template "title": missing: intent; extra: intnet — did you mean "intent"?
	// true
}

// A set with problems is refused as a whole; every problem is listed.
func ExampleProblems() {
	fsys := fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {
			"a": {"path": "a.md", "variables": ["x"]},
			"b": {"path": "b.md"}}}`)},
		"a.md": {Data: []byte("{{ x }}\n{% if flag %}{{ y }}{% endif %}")},
		"b.md": {Data: []byte("{{ x|default:'a' }}")},
	}
	_, err := manager.New(fsys)
	for _, p := range manager.Problems(err) {
		fmt.Println(p)
	}
	// Output:
	// a.md:2:7: template "a": undeclared variable "flag" (declare it in index.json under "a")
	// a.md:2:17: template "a": undeclared variable "y" (declare it in index.json under "a")
	// b.md:1:13: template "b": Django filter arguments (default:arg) are not supported; write Jinja's default(arg)
}

// WithLogger makes the manager log through the program's logger; without
// it a manager logs nothing. A host usually passes slog.Default().
func ExampleWithLogger() {
	dropTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "digest" {
			return slog.Attr{}
		}
		return a
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	m, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"hi": {"path": "hi.md"}}}`)},
		"hi.md":      {Data: []byte("你好")},
	}, manager.WithLogger(logger))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	// Output: level=INFO msg="promptkit: template set loaded" templates=1 generation=1
}
