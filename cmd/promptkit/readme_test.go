package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocumentedCommands runs, through the CLI's entry function, every
// "go run ./cmd/promptkit …" command of the README and docs/ — in shell
// blocks and in inline code — except those whose --dir names a directory
// that does not exist: each must succeed as written, from the module root.
func TestDocumentedCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	var cmds []docCommand
	for _, path := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		cmds = append(cmds, documentedCommands(t, filepath.Base(path), string(src))...)
	}
	require.GreaterOrEqual(t, len(cmds), 10, "the README shows the CLI")

	t.Chdir(root)
	for _, c := range cmds {
		if len(c.args) > 0 && (c.args[0] == "serve" || c.args[0] == "watch") {
			continue // these run until interrupted; serve_test and watch_test run them
		}
		if dir, ok := c.dir(); ok {
			if _, err := os.Stat(dir); err != nil {
				continue // a placeholder such as --dir ./prompts
			}
		}
		t.Run(c.where, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			assert.Equal(t, exitOK, code, "%s\nstdout: %s\nstderr: %s", c.line, stdout.String(), stderr.String())
		})
	}
}

// docCommand is one documented command line.
type docCommand struct {
	where string // file:line
	line  string
	stdin string // what an "echo 'X' |" before it feeds
	args  []string
}

// dir returns the command's --dir, if it has one.
func (c docCommand) dir() (string, bool) {
	for i, a := range c.args {
		if v, ok := strings.CutPrefix(a, "--dir="); ok {
			return v, true
		}
		if a == "--dir" && i+1 < len(c.args) {
			return c.args[i+1], true
		}
	}
	return "", false
}

var (
	inlineCommand = regexp.MustCompile("`(go run ./cmd/promptkit[^`]*)`")
	fence         = regexp.MustCompile("^\\s*```")
)

// documentedCommands finds the commands of one Markdown file.
func documentedCommands(t *testing.T, name, src string) []docCommand {
	var out []docCommand
	inBlock, shell := false, false
	for i, line := range strings.Split(src, "\n") {
		where := fmt.Sprintf("%s:%d", name, i+1)
		if fence.MatchString(line) {
			info := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "`"))
			inBlock, shell = !inBlock, !inBlock && (info == "sh" || info == "bash" || info == "shell")
			continue
		}
		switch {
		case inBlock && shell && strings.Contains(line, "go run ./cmd/promptkit"):
			out = append(out, parseCommand(t, where, line))
		case !inBlock:
			for _, m := range inlineCommand.FindAllStringSubmatch(line, -1) {
				out = append(out, parseCommand(t, where, m[1]))
			}
		}
	}
	return out
}

// parseCommand reads "[echo 'X' |] go run ./cmd/promptkit ARGS [# comment]"
// with shell quoting. Anything else a shell would do (variables,
// redirections, other commands) fails the test: the documents show
// commands that run as written.
func parseCommand(t *testing.T, where, line string) docCommand {
	t.Helper()
	words, err := shellWords(line)
	require.NoError(t, err, "%s: %s", where, line)
	c := docCommand{where: where, line: line}
	if len(words) >= 3 && words[0] == "echo" && words[2] == "|" {
		c.stdin, words = words[1]+"\n", words[3:]
	}
	require.True(t, len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/promptkit",
		"%s: not a promptkit command this test can run: %s", where, line)
	for _, w := range words[3:] {
		require.NotEqual(t, "|", w, "%s: only an echo may pipe into the command: %s", where, line)
	}
	c.args = words[3:]
	return c
}

// shellWords splits a command line as a POSIX shell does for the simple
// commands the documents show: words, '…' and "…" quotes, a backslash in
// double quotes, | as a word of its own, and # starting a comment.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return words, nil
		case c == '|':
			flush()
			words = append(words, "|")
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated '")
			}
			w.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '$' || line[i] == '`' {
					return nil, fmt.Errorf("shell expansion %q in double quotes", line[i])
				}
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, fmt.Errorf(`unterminated "`)
			}
		case strings.IndexByte("$`<>;&(){}*?~\\", c) >= 0:
			return nil, fmt.Errorf("shell syntax %q", c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  bool
	}{
		{`go run ./cmd/promptkit render title --var intent="查询 天气"   # a comment`, []string{"go", "run", "./cmd/promptkit", "render", "title", "--var", "intent=查询 天气"}, false},
		{`echo '{"a": "b"}' | go run ./cmd/promptkit build title --data -`, []string{"echo", `{"a": "b"}`, "|", "go", "run", "./cmd/promptkit", "build", "title", "--data", "-"}, false},
		{`x="a\"b" y='c"d'`, []string{`x=a"b`, `y=c"d`}, false},
		{`go run ./cmd/promptkit lint ./...`, []string{"go", "run", "./cmd/promptkit", "lint", "./..."}, false},
		{`a $HOME`, nil, true},
		{`a > out`, nil, true},
		{`a "$x"`, nil, true},
		{`a 'unterminated`, nil, true},
		{`a && b`, nil, true},
	}
	for _, tc := range tests {
		got, err := shellWords(tc.line)
		if tc.err {
			assert.Error(t, err, tc.line)
			continue
		}
		require.NoError(t, err, tc.line)
		assert.Equal(t, tc.want, got, tc.line)
	}
}

// TestReadmeListsTheCommands: the README's CLI block and its layout table
// name the commands "promptkit help" prints, in its order; and the
// README's first command is one that runs in a checkout.
func TestReadmeListsTheCommands(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(src)
	var want []string
	for _, c := range commands() {
		want = append(want, c.name)
	}
	var help bytes.Buffer
	require.Equal(t, exitOK, run(context.Background(), []string{"help"}, strings.NewReader(""), &help, &bytes.Buffer{}))
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^  (\S+) +\S`).FindAllStringSubmatch(strings.SplitN(help.String(), "Commands:\n", 2)[1], -1) {
		listed = append(listed, m[1])
	}
	require.Equal(t, want, listed[:len(want)], "help prints the command table")

	block := regexp.MustCompile("(?s)## CLI\n```\n(.*?)```").FindStringSubmatch(readme)
	require.NotNil(t, block, "the README has a CLI block")
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^promptkit (\S+)`).FindAllStringSubmatch(block[1], -1) {
		if m[1] != "help" && m[1] != "--version" {
			documented = append(documented, m[1])
		}
	}
	assert.Equal(t, want, documented, "the README's CLI block lists what help prints, in its order")

	row := regexp.MustCompile("(?m)^\\| `cmd/promptkit/` \\| the CLI: (.*) \\|$").FindStringSubmatch(readme)
	require.NotNil(t, row)
	assert.Equal(t, strings.Join(want, ", "), row[1], "the layout table names every command")

	first := regexp.MustCompile("(?s)```sh\n(.*?)\n").FindStringSubmatch(readme)
	require.NotNil(t, first)
	assert.True(t, strings.HasPrefix(first[1], "go run ./cmd/promptkit "), "the first command runs in a checkout: %s", first[1])
}
