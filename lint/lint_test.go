package lint

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findings lints src and returns its findings as "line:col: message".
func findings(t *testing.T, src string) []string {
	t.Helper()
	fs, err := Source("x.go", []byte(src))
	require.NoError(t, err)
	out := []string{}
	for _, f := range fs {
		out = append(out, strings.TrimPrefix(f.String(), "x.go:"))
	}
	return out
}

func TestSource(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "template syntax",
			src:  "package p\n\nvar a = \"Hi {{ name }}\"\nvar b = `{% if x %}y{% endif %}`\n",
			want: []string{"3:9: " + msgTemplate, "4:9: " + msgTemplate},
		},
		{
			name: "CJK wording and full-width punctuation",
			src:  "package p\n\nvar a = \"你好\"\nvar b = \"（）\"\nvar c = \"こんにちは\"\nvar d = \"안녕\"\nvar e = \"「」\"\n",
			want: []string{"3:9: " + msgCJK, "4:9: " + msgCJK, "5:9: " + msgCJK, "6:9: " + msgCJK, "7:9: " + msgCJK},
		},
		{
			name: "multi-line prose",
			src:  "package p\n\nvar a = `You are a helpful assistant.\nAnswer briefly.`\n",
			want: []string{"3:9: " + msgProse},
		},
		{
			name: "prose joined with +",
			src:  "package p\n\nvar a = \"You are a title generator for tasks.\\n\" +\n\t\"Answer with the title only.\\n\"\n",
			want: []string{"3:9: " + msgProse},
		},
		{
			name: "a chain with a variable is checked literal by literal",
			src:  "package p\n\nfunc f(x string) string {\n\treturn \"Hello, \" + x + \"你好\"\n}\n",
			want: []string{"4:25: " + msgCJK},
		},
		{
			name: "short English messages, format strings, one-line text pass",
			src: "package p\n\nimport \"fmt\"\n\nfunc f(n int) error {\n\tfmt.Printf(\"%d templates loaded from the embedded set\\n\", n)\n" +
				"\treturn fmt.Errorf(\"check takes no arguments\\n\\n%s\", \"usage\")\n}\n\nvar sql = `SELECT id\nFROM t`\n\nvar braces = \"{ {x} }\"\n",
			want: []string{},
		},
		{
			name: "import paths and struct tags are not literals of the program",
			src:  "package p\n\nimport _ \"example.com/{{x}}\"\n\ntype T struct {\n\tA [2]int `json:\"名字\"`\n}\n",
			want: []string{},
		},
		{
			name: "marker on the line above the literal",
			src:  "package p\n\n//promptkit:allow-inline the default bot name is configuration\nvar a = \"麦麦\"\n",
			want: []string{},
		},
		{
			name: "marker above the statement holding the literal",
			src:  "package p\n\nimport \"fmt\"\n\nfunc f() {\n\t//promptkit:allow-inline a display name\n\tfmt.Println(\n\t\t\"麦麦\",\n\t)\n}\n",
			want: []string{},
		},
		{
			name: "marker above a declaration group",
			src:  "package p\n\n//promptkit:allow-inline language names shown to people\nvar (\n\ta = \"中文\"\n\tb = \"日本語\"\n)\n",
			want: []string{},
		},
		{
			name: "marker above the package clause exempts the file",
			src:  "// Package p lexes templates.\n//\n//promptkit:allow-inline a lexer quotes template syntax\npackage p\n\nvar a = \"{{\"\n\nfunc f() string { return \"{% endif %}\" }\n",
			want: []string{},
		},
		{
			name: "a marker exempts only the line below it",
			src:  "package p\n\n//promptkit:allow-inline one name\nvar a = \"麦麦\"\n\nvar b = \"小爱\"\n",
			want: []string{"6:9: " + msgCJK},
		},
		{
			name: "a marker above a function does not exempt its body",
			src:  "package p\n\n//promptkit:allow-inline not like this\nfunc f() string {\n\treturn \"你好\"\n}\n",
			want: []string{"3:1: " + msgUnused, "5:9: " + msgCJK},
		},
		{
			name: "a marker needs a reason",
			src:  "package p\n\n//promptkit:allow-inline\nvar a = \"你好\"\n",
			want: []string{"3:1: " + msgNoReason, "4:9: " + msgCJK},
		},
		{
			name: "an unused marker is reported",
			src:  "package p\n\n//promptkit:allow-inline stale\nvar a = \"fine\"\n",
			want: []string{"3:1: " + msgUnused},
		},
		{
			name: "a look-alike comment is not a marker",
			src:  "package p\n\n//promptkit:allow-inlined typo\nvar a = \"你好\"\n",
			want: []string{"4:9: " + msgCJK},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, findings(t, tt.src))
		})
	}
}

func TestSourceSyntaxError(t *testing.T) {
	_, err := Source("bad.go", []byte("package p\nvar = \n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.go:2")
}

// TestPlantedPrompts checks that the linter finds every inline prompt
// planted in testdata/inline, and nothing else.
func TestPlantedPrompts(t *testing.T) {
	const f = "testdata/inline/prompts.go"
	want := []string{
		f + ":6:22: " + msgCJK,       // const systemPrompt = "你是一个助手…"
		f + ":8:16: " + msgTemplate,  // "Hello {{ name }}…"
		f + ":10:12: " + msgTemplate, // "{% for x in xs %}…"
		f + ":12:22: " + msgProse,    // a raw multi-line prompt
		f + ":17:12: " + msgProse,    // lines joined with +
		f + ":19:17: " + msgCJK,      // the placeholder "（无）"
		f + ":26:20: " + msgCJK,      // "任务标题："+title
		f + ":30:1: " + msgNoReason,  // a marker without a reason…
		f + ":31:19: " + msgCJK,      // …exempts nothing
		f + ":33:1: " + msgUnused,    // a marker with nothing to exempt
	}
	got, err := Paths("testdata/inline")
	require.NoError(t, err)
	assert.Equal(t, want, strings_(got))
}

func strings_(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

func TestPaths(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		want     []string
	}{
		{"clean code, test and generated files skipped", []string{"testdata/clean"}, []string{}},
		{"a test file named directly is linted", []string{"testdata/clean/clean_test.go"}, []string{
			"testdata/clean/clean_test.go:3:14: " + msgTemplate,
		}},
		{"... skips testdata, vendor, hidden, _ and nested modules", []string{"testdata/tree/..."}, []string{
			"testdata/tree/sub/x.go:3:16: " + msgTemplate,
		}},
		{"a directory alone is not recursive", []string{"testdata/tree"}, []string{}},
		{"a directory named explicitly is linted even under testdata", []string{"testdata/tree/testdata"}, []string{
			"testdata/tree/testdata/x.go:3:16: " + msgTemplate,
		}},
		{"an import path of the main module", []string{"github.com/seed-e7d2830f/promptkit/lint/testdata/tree/sub"}, []string{
			"testdata/tree/sub/x.go:3:16: " + msgTemplate,
		}},
		{"overlapping patterns report once", []string{"testdata/tree/sub", "testdata/tree/..."}, []string{
			"testdata/tree/sub/x.go:3:16: " + msgTemplate,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Paths(tt.patterns...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, strings_(got))
		})
	}
}

func TestPathsErrors(t *testing.T) {
	for _, p := range []string{"testdata/none", "testdata/none.go", "example.com/other/module", "github.com/seed-e7d2830f/promptkitx"} {
		_, err := Paths(p)
		assert.ErrorIs(t, err, ErrPattern, p)
	}

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/bad.go", []byte("package p\nvar = \n"), 0o644))
	require.NoError(t, os.WriteFile(dir+"/good.go", []byte("package p\nvar a = \"{{ x }}\"\n"), 0o644))
	got, err := Paths(dir)
	require.Error(t, err, "a file that does not parse is an error")
	assert.False(t, errors.Is(err, ErrPattern))
	assert.Contains(t, err.Error(), "bad.go:2")
	assert.Equal(t, []string{dir + "/good.go:2:9: " + msgTemplate}, strings_(got), "the other files are still linted")
}
