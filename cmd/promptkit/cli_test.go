package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// runCLI runs the CLI in-process and returns exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// cliCase is one CLI invocation and what it must give: the exit code, the
// exact stdout, and text stderr contains (or nothing at all when empty).
type cliCase struct {
	name   string
	stdin  string
	args   []string
	code   int
	stdout string
	stderr string
}

func runCases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Equal(t, tc.stdout, stdout)
			if tc.stderr == "" {
				assert.Empty(t, stderr)
			} else {
				assert.Contains(t, stderr, tc.stderr)
			}
		})
	}
}

// digestOf is the digest of the set in dir; hashOf one template's hash.
func digestOf(t *testing.T, dir string) string {
	t.Helper()
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	return m.Digest()
}

func hashOf(t *testing.T, dir, name string) string {
	t.Helper()
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	tpl, ok := m.Lookup(name)
	require.True(t, ok)
	return tpl.Hash
}

// writeSet writes a template set into a temp dir.
func writeSet(t *testing.T, index string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.json"), []byte(index), 0o644))
	for p, s := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
	return dir
}

func TestUsageAndHelp(t *testing.T) {
	code, _, stderr := runCLI(t, "")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "Commands:")

	code, stdout, _ := runCLI(t, "", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "promptkit render title")

	code, _, stderr = runCLI(t, "", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown command "frobnicate"`)

	for _, cmd := range []string{"render", "list", "check"} {
		code, stdout, _ := runCLI(t, "", cmd, "--help")
		assert.Equal(t, exitOK, code, cmd)
		assert.Contains(t, stdout, "Example:", cmd)
	}
}

func TestRenderCommand(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["name",{"name":"items","required":false,"default":[]},{"name":"n","required":false}]}}}`,
		map[string]string{"t.md": "你好，{{ name }}{% for i in items %}[{{ i }}]{% endfor %}{{ n | default('') }}\n"})
	tests := []cliCase{
		{"var after name", "", []string{"render", "t", "--dir", dir, "--var", "name=小王"}, 0, "你好，小王", ""},
		{"flags before name", "", []string{"render", "--dir", dir, "--var", "name=小王", "t"}, 0, "你好，小王", ""},
		{"vars file from stdin keeps numbers", `{"name":"甲","items":[30,1.5,"x"],"n":2}`, []string{"render", "--vars", "-", "t", "--dir", dir}, 0, "你好，甲[30][1.5][x]2", ""},
		{"var wins over vars", `{"name":"甲"}`, []string{"render", "t", "--vars", "-", "--var", "name=乙", "--dir", dir}, 0, "你好，乙", ""},
		{"missing variable", "", []string{"render", "t", "--dir", dir}, 1, "", `template "t": missing variables: name`},
		{"extra variable", "", []string{"render", "t", "--dir", dir, "--var", "name=a", "--var", "nmae=b"}, 1, "", "extra variables not declared in index.json: nmae"},
		{"missing and extra at once", "", []string{"render", "t", "--dir", dir, "--var", "nmae=b"}, 1, "", `template "t": missing: name; extra: nmae — did you mean "name"?`},
		{"unknown template", "", []string{"render", "nope", "--dir", dir}, 1, "", `template "nope": unknown template (known: t)`},
		{"no name", "", []string{"render", "--dir", dir}, 2, "", "exactly one template name"},
		{"bad var", "", []string{"render", "t", "--var", "novalue", "--dir", dir}, 2, "", "want KEY=VALUE"},
		{"bad vars json", "{", []string{"render", "t", "--vars", "-", "--dir", dir}, 2, "", "invalid JSON"},
		{"vars not an object", "[1]", []string{"render", "t", "--vars", "-", "--dir", dir}, 2, "", "want a JSON object"},
		{"unknown flag", "", []string{"render", "t", "--bogus"}, 2, "", "promptkit render: unknown flag --bogus\n"},
		{"unknown flag typed with one dash", "", []string{"render", "t", "-bogus"}, 2, "", "promptkit render: unknown flag --bogus\n"},
		{"a flag without its value", "", []string{"render", "t", "--dir"}, 2, "", "promptkit render: --dir needs a value\n"},
		{"a boolean flag with a bad value", "", []string{"render", "t", "--messages=yes"}, 2, "", `promptkit render: --messages "yes": parse error`},
	}
	runCases(t, tests)
}

func TestRenderEmbeddedSet(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "render", "title", "--var", "intent=查询明天的天气")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "<intent>查询明天的天气</intent>")
	assert.False(t, strings.HasSuffix(stdout, "\n"), "nothing is added to the rendered prompt")
}

func TestRenderBrokenSet(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"},"u":{"path":"u.md"}}}`, map[string]string{"t.md": "{{ x }}", "u.md": "{% if %}"})
	code, stdout, stderr := runCLI(t, "", "render", "t", "--dir", dir)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `t.md:1:4: template "t": undeclared variable "x"`)
	assert.Contains(t, stderr, `u.md:1:7: template "u"`)
}

func TestListCommand(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"b":{"path":"b.md","variables":["x",{"name":"tone","required":false,"default":"正式"}]},"a":{"path":"a.md"}}}`,
		map[string]string{"a.md": "A", "b.md": "{{ x }}{{ tone }}"})
	code, stdout, stderr := runCLI(t, "", "list", "--dir", dir)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 3)
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, "digest "+m.Digest(), lines[0])
	b, _ := m.Lookup("b")
	assert.True(t, strings.HasPrefix(lines[1], "a "))
	assert.Regexp(t, `^b +b\.md +`+b.Hash[:12]+` +x tone\?=正式$`, lines[2])

	code, _, _ = runCLI(t, "", "list", "extra")
	assert.Equal(t, 2, code)
}

func TestCheckCommand(t *testing.T) {
	good := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": "{{ x }}"})
	code, stdout, _ := runCLI(t, "", "check", "--dir", good)
	assert.Equal(t, 0, code)
	m, err := manager.Open(good)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, "ok: 1 template, digest "+m.Digest()+"\n", stdout)

	unused := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x","spare"]}}}`, map[string]string{"t.md": "{{ x }}"})
	code, stdout, _ = runCLI(t, "", "check", "--dir", unused)
	assert.Equal(t, 1, code)
	assert.Equal(t, "t.md: template \"t\": declared variables never used: spare\n", stdout)

	broken := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"},"u":{"path":"../u.md"}}}`, map[string]string{"t.md": "a\n{{ y }}"})
	code, stdout, _ = runCLI(t, "", "check", "--dir", broken)
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	assert.Equal(t, []string{
		// Said once, in promptkit's words: not again as the index
		// schema's violation.
		`index.json: template "u": path "../u.md": ".." would leave the template root`,
		`t.md:2:4: template "t": undeclared variable "y" (declare it in index.json under "t")`,
	}, lines)

	code, _, _ = runCLI(t, "", "check")
	assert.Equal(t, 0, code, "the embedded default set is clean")
}

// check reports every read of an optional variable without a default
// that no guard covers, with its line and column, and exits 1; the
// guarded ones and a lenient template's are fine.
func TestCheckUnguardedOptionalVariables(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{
		"t":{"path":"t.md","variables":[{"name":"who","required":false},{"name":"tone","required":false,"default":"x"}]},
		"l":{"path":"l.md","undefined":"lenient","variables":[{"name":"who","required":false}]}}}`, map[string]string{
		"t.md": "{{ tone }}{% if who is defined %}{{ who }}{% endif %}{{ who | default('-') }}{{ who is defined and who }}\n" +
			"{% if who is undefined %}-{% else %}{{ who }}{% endif %}{{ who if who is defined }}{% if who | default %}{{ who }}{% endif %}\n" +
			"[{{ who }}] {% if who %}x{% endif %}{{ who.name | default('') }}",
		"l.md": "{{ who }}",
	})
	code, stdout, _ := runCLI(t, "", "check", dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, `t.md:3:5: template "t": optional variable "who" is read without a guard: a render that does not pass it fails (it has no default); write {% if who is defined %}…{% endif %} or who | default(…), or give it a default in index.json`+"\n"+
		`t.md:3:19: template "t": optional variable "who" is read without a guard: a render that does not pass it fails (it has no default); write {% if who is defined %}…{% endif %} or who | default(…), or give it a default in index.json`+"\n"+
		`t.md:3:40: template "t": optional variable "who" is read without a guard: a render that does not pass it fails (it has no default); write {% if who is defined %}…{% endif %} or who | default(…), or give it a default in index.json`+"\n", stdout)
}

// A .md file beside the set's templates that nothing uses gets a warning
// line; check still exits 0, or 1 with --strict.
func TestCheckStrayFiles(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"templates/t.md"}}}`, map[string]string{
		"templates/t.md":          `{% include "templates/parts/used.md" %}`,
		"templates/parts/used.md": "x",
		"templates/old.md":        "y",
		"README.md":               "not beside the templates",
	})
	code, stdout, _ := runCLI(t, "", "check", dir)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "templates/old.md: warning: no template uses this file (no entry of index.json names it, and no template includes, imports or extends it)\n")
	assert.NotContains(t, stdout, "README.md")
	assert.NotContains(t, stdout, "used.md")
	code, _, _ = runCLI(t, "", "check", "--strict", dir)
	assert.Equal(t, 1, code)
}

// TestCheckReportsEverything: unused declarations are listed beside the
// problems that refuse a set, not only once the set is clean.
func TestCheckReportsEverything(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x","spare"]},"u":{"path":"u.md"}}}`,
		map[string]string{"t.md": "{{ x }}", "u.md": "{{ y }}"})
	code, stdout, _ := runCLI(t, "", "check", dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, "u.md:1:4: template \"u\": undeclared variable \"y\" (declare it in index.json under \"u\")\n"+
		"t.md: template \"t\": declared variables never used: spare\n", stdout)
}

// TestCheckWarnsOfBlankTemplates: a blank file renders nothing; check
// warns and passes, and fails with --strict (before or after DIR).
func TestCheckWarnsOfBlankTemplates(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"a":{"path":"a.md"},"b":{"path":"b.md"},"c":{"path":"c.md"}}}`,
		map[string]string{"a.md": "", "b.md": " \n\t\n", "c.md": "text"})
	want := "a.md: template \"a\": warning: the file is empty\n" +
		"b.md: template \"b\": warning: the file holds only whitespace\n"
	code, stdout, _ := runCLI(t, "", "check", dir)
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(stdout, want), stdout)
	assert.Contains(t, stdout, "ok: 3 templates")
	for _, args := range [][]string{{"check", "--strict", dir}, {"check", dir, "--strict"}} {
		code, stdout, _ = runCLI(t, "", args...)
		assert.Equal(t, 1, code, args)
		assert.Equal(t, want, stdout, args)
	}
}

// TestCheckSkipsIndexByteOrderMark: an index.json saved with a UTF-8
// byte-order mark loads.
func TestCheckSkipsIndexByteOrderMark(t *testing.T) {
	dir := writeSet(t, "\ufeff"+`{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{"t.md": "hi"})
	code, stdout, _ := runCLI(t, "", "check", dir)
	assert.Equal(t, 0, code, stdout)
	assert.Contains(t, stdout, "ok: 1 template")
}

// TestCheckTyped: a template author adds a schema, misspells a path and
// runs check: the line, the column and the suggestion.
func TestCheckTyped(t *testing.T) {
	dir := writeSet(t, `{"$schema": "schemas/index.schema.json", "version": 1, "templates": {"card": {"path": "card.md", "variables": [
	  {"name": "user", "schema": {"$ref": "user.json"}}]}}}`, map[string]string{
		"card.md":   "你好，{{ user.name }}\n{% for t in user.tags %}{{ t.label }}{% endfor %}{{ user.nmae }}",
		"user.json": `{"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "object", "properties": {"label": {"type": "string"}}}}}}`,
	})
	code, stdout, _ := runCLI(t, "", "check", dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, `card.md:2:53: template "card": user.nmae is not in the schema of variable "user": user has no property "nmae"; did you mean "name"?`+"\n", stdout)

	// An index that breaks the index schema, where the manager is silent
	// about it: a variable's schema that is not a schema.
	bad := writeSet(t, `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "x", "schema": {"type": 3}}]}}}`,
		map[string]string{"t.md": "{{ x }}"})
	code, stdout, _ = runCLI(t, "", "check", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "index.json: templates.t.variables[0].schema.type: matches none of the schema's alternatives")
	assert.Contains(t, stdout, `index.json: template "t": variable "x": schema: `)
}

// TestHelpAndVersion: "help COMMAND" is that command's --help, and
// --version names promptkit's version and the Go it was built with.
func TestHelpAndVersion(t *testing.T) {
	_, renderHelp, _ := runCLI(t, "", "render", "--help")
	require.Contains(t, renderHelp, "Usage: promptkit render NAME")
	_, mainHelp, _ := runCLI(t, "", "--help")
	require.Contains(t, mainHelp, "promptkit help COMMAND")
	bi, ok := debug.ReadBuildInfo()
	require.True(t, ok, "the test binary has build information")
	runCases(t, []cliCase{
		{"help render", "", []string{"help", "render"}, exitOK, renderHelp, ""},
		{"help alone", "", []string{"help"}, exitOK, mainHelp, ""},
		{"help of an unknown command", "", []string{"help", "rendr"}, exitUsage, "", `promptkit: unknown command "rendr"`},
		{"--version", "", []string{"--version"}, exitOK, "promptkit (devel) (" + bi.GoVersion + ")\n", ""},
		{"-version", "", []string{"-version"}, exitOK, "promptkit (devel) (" + bi.GoVersion + ")\n", ""},
	})
}

func TestVersionOf(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"installed at a version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}, true,
			"promptkit v1.2.3 (go1.26.8)\n"},
		{"built from a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, true,
			"promptkit (devel) (go1.26.8)\n"},
		{"no version recorded", &debug.BuildInfo{GoVersion: "go1.26.8"}, true, "promptkit (devel) (go1.26.8)\n"},
		{"no Go version recorded", &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}}, true, "promptkit v1.0.0\n"},
		{"no build information", nil, false, "promptkit (unknown: built without module information)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, versionOf(tc.bi, tc.ok))
		})
	}
}

// TestDirBeforeTheCommand: --dir may come before the command, as global
// flags do in go and git -C, for every command that reads a set.
func TestDirBeforeTheCommand(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["name"]}}}`, map[string]string{"t.md": "你好，{{ name }}"})
	other := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["name"]}}}`, map[string]string{"t.md": "再见，{{ name }}"})
	runCases(t, []cliCase{
		{"--dir DIR render", "", []string{"--dir", dir, "render", "t", "--var", "name=小王"}, exitOK, "你好，小王", ""},
		{"--dir=DIR render", "", []string{"--dir=" + dir, "render", "t", "--var", "name=小王"}, exitOK, "你好，小王", ""},
		{"-dir DIR render", "", []string{"-dir", dir, "render", "t", "--var", "name=小王"}, exitOK, "你好，小王", ""},
		{"the command's --dir wins, as a repeated flag does", "", []string{"--dir", dir, "render", "t", "--dir", other, "--var", "name=小王"}, exitOK, "再见，小王", ""},
		{"--dir DIR list", "", []string{"--dir", dir, "list"}, exitOK, "digest " + digestOf(t, dir) + "\nt  t.md  " + hashOf(t, dir, "t")[:12] + "  name\n", ""},
		{"--dir DIR check", "", []string{"--dir", dir, "check"}, exitOK, "ok: 1 template, digest " + digestOf(t, dir) + "\n", ""},
		{"--dir DIR builders", "", []string{"--dir", dir, "builders"}, exitOK, "", "the template set lacks the templates of"},
		{"--dir for a command that reads no set", "", []string{"--dir", dir, "lint"}, exitUsage, "", "promptkit: lint does not read a template set: --dir does not apply"},
		{"--dir without a value", "", []string{"--dir"}, exitUsage, "", "promptkit: --dir needs a value"},
		{"--dir without a command", "", []string{"--dir", dir}, exitUsage, "", "promptkit: --dir DIR needs a command after it"},
		{"another flag before the command", "", []string{"--vars", "x", "render"}, exitUsage, "", "promptkit: unknown flag --vars before the command"},
	})
}

// TestCheckDir: "check DIR" is "check --dir DIR".
func TestCheckDir(t *testing.T) {
	good := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": "{{ x }}"})
	unused := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x","spare"]}}}`, map[string]string{"t.md": "{{ x }}"})
	runCases(t, []cliCase{
		{"check DIR", "", []string{"check", good}, exitOK, "ok: 1 template, digest " + digestOf(t, good) + "\n", ""},
		{"check DIR reports as check --dir DIR does", "", []string{"check", unused}, exitPrompt, "t.md: template \"t\": declared variables never used: spare\n", ""},
		{"DIR and --dir", "", []string{"check", good, "--dir", unused}, exitUsage, "", "check takes the directory once: DIR or --dir DIR"},
		{"two directories", "", []string{"check", good, unused}, exitUsage, "", "check takes one directory"},
	})
	// No directory: no report, an error on stderr.
	code, stdout, stderr := runCLI(t, "", "check", filepath.Join(good, "nope"))
	assert.Equal(t, exitPrompt, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "promptkit check: cannot read the template set "+filepath.Join(good, "nope")+": no such file or directory\n", stderr)
}

// TestFlagErrors: flag errors spell flags as users type them, and a
// duration flag gives an example.
func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	runCases(t, []cliCase{
		{"a duration that does not parse", "", []string{"watch", "--dir", dir, "--debounce", "150"}, exitUsage, "",
			`promptkit watch: --debounce "150": not a duration; write one such as --debounce 150ms (units: ms, s, m, h)` + "\n"},
		{"a duration flag without its value", "", []string{"watch", "--dir", dir, "--max-wait"}, exitUsage, "",
			"promptkit watch: --max-wait needs a duration, e.g. --max-wait 150ms\n"},
		{"an unknown flag", "", []string{"list", "--verbose"}, exitUsage, "", "promptkit list: unknown flag --verbose\n"},
		{"an unknown flag given with a value", "", []string{"list", "--format=json"}, exitUsage, "", "promptkit list: unknown flag --format\n"},
	})
}

// TestOneRuleForErrors: every command says what went wrong on stderr,
// under its "promptkit CMD: " prefix, and exits by one rule: a set that
// cannot be read is 1, as every prompt error; bad usage 2.
func TestOneRuleForErrors(t *testing.T) {
	none := filepath.Join(t.TempDir(), "nonexistent")
	for _, args := range [][]string{
		{"list", "--dir", none},
		{"check", none},
		{"check", "--dir", none},
		{"render", "t", "--dir", none},
		{"gen", "--dir", none},
		{"builders", "--dir", none},
		{"build", "title", "--dir", none},
		{"watch", "--dir", none},
		{"serve", "--dir", none},
		{"push", none, "localhost:1/prompts:v1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", args...)
			assert.Equal(t, exitPrompt, code)
			assert.Empty(t, stdout, "errors never go to stdout")
			assert.True(t, strings.HasPrefix(stderr, "promptkit "+args[0]+": "), stderr)
			for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
				assert.True(t, strings.HasPrefix(line, "promptkit "+args[0]+": "), "every line has the prefix: %q", line)
			}
		})
	}
	// Every problem of a set, each on its own prefixed line.
	bad := writeSet(t, `{"version":1,"templates":{"a":{"path":"a.md"},"b":{"path":"b.md"}}}`, map[string]string{"a.md": "{{ x }}", "b.md": "{% if %}"})
	code, stdout, stderr := runCLI(t, "", "list", "--dir", bad)
	assert.Equal(t, exitPrompt, code)
	assert.Empty(t, stdout)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2, stderr)
	for _, line := range lines {
		assert.True(t, strings.HasPrefix(line, "promptkit list: "), line)
	}
}

// TestSignalsExitOneWay: a command stopped by SIGINT exits 130 and by
// SIGTERM 143, the commands that run until stopped (serve, watch) too,
// although they stop cleanly.
func TestSignalsExitOneWay(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md"}}}`, map[string]string{"t.md": "x"})
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		for _, args := range [][]string{
			{"watch", "--dir", dir},
			{"serve", "--dir", dir, "--addr", "127.0.0.1:0"},
		} {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(interrupted{tc.sig})
			var out, errb bytes.Buffer
			code := run(ctx, args, strings.NewReader(""), &out, &errb)
			assert.Equal(t, tc.code, code, "%s: %s", args[0], errb.String())
			assert.True(t, strings.HasSuffix(errb.String(), "promptkit "+args[0]+": interrupted by "+tc.sig.String()+"\n"), errb.String())
		}
	}
}

// JSON values keep the order of their keys, as Python's json.loads keeps
// it: in --vars and in --var KEY:=JSON.
func TestRenderKeepsJSONKeyOrder(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["d"]}}}`,
		map[string]string{"t.md": "{% for k in d %}{{ k }} {% endfor %}{{ d }} {{ d.n.keys() | list }}"})
	want := "z a n {'z': 1, 'a': 2, 'n': {'y': [], 'b': None}} ['y', 'b']"
	runCases(t, []cliCase{
		{"--vars", `{"d": {"z": 1, "a": 2, "n": {"y": [], "b": null}}}`, []string{"render", "t", "--vars", "-", "--dir", dir}, 0, want, ""},
		{"--var KEY:=JSON", "", []string{"render", "t", "--dir", dir, "--var", `d:={"z": 1, "a": 2, "n": {"y": [], "b": null}}`}, 0, want, ""},
		{"--var KEY:=JSON, bad JSON", "", []string{"render", "t", "--dir", dir, "--var", `d:={`}, 2, "", "want KEY:=JSON"},
		{"--var KEY=VALUE stays a string", "", []string{"render", "t", "--dir", dir, "--var", `d={"z": 1}`}, 1, "", `d.n is undefined`},
	})
}
