package gen_test

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/gen"
	"github.com/seed-e7d2830f/promptkit/manager"
)

var update = flag.Bool("update", false, "rewrite testdata/cards.go.golden")

func generate(t *testing.T) []byte {
	t.Helper()
	root, err := os.OpenRoot("testdata/set")
	require.NoError(t, err)
	defer root.Close()
	src, err := gen.Generate(root.FS(), gen.Options{Package: "cards", Command: "promptkit gen --dir testdata/set --package cards"})
	require.NoError(t, err)
	return src
}

// TestGenerateGolden: every kind of variable the generator types —
// required, optional, untyped, nullable, a map, a union, structs from a
// file, from $defs and inline, a recursive schema, a chat template.
func TestGenerateGolden(t *testing.T) {
	src := generate(t)
	golden := filepath.Join("testdata", "cards.go.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, src, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(src), "go test ./gen -update rewrites the golden file")
}

// TestGeneratedCompilesAndRenders builds the generated package into a
// host program, vets it, runs it, and compares what it renders with the
// manager's render of the same values written as maps.
func TestGeneratedCompilesAndRenders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	set, err := filepath.Abs("testdata/set")
	require.NoError(t, err)
	run := hostModule(t, map[string]string{
		"cards/cards.go": string(generate(t)),
		"main.go": `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/seed-e7d2830f/promptkit/manager"

	"host/cards"
)

func main() {
	m, err := manager.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	note, count := "n", 7
	out, err := cards.RenderCardV1(m, cards.CardV1Vars{
		User:    cards.User{Name: "A", Tags: []string{"x", "y"}, Home: &cards.Address{City: "C"}, Kind: "admin"},
		Note:    &note,
		Count:   &count,
		Labels:  map[string]float64{"b": 1.5},
		Either:  3,
		Tree:    &cards.Node{Value: "r", Children: []cards.Node{{Value: "c"}}},
		Untyped: []int{1},
	})
	fmt.Printf("%s %v\n", out, err)
	msgs, err := cards.RenderChatMessages(m, cards.ChatVars{Turns: []cards.ChatTurnsItem{{Q: "q1", A: "a1"}}, Question: "q2"})
	b, _ := json.Marshal(msgs)
	fmt.Printf("%s %v\n", b, err)
	_, err = cards.RenderCardV1(m, cards.CardV1Vars{User: cards.User{Name: "A"}})
	fmt.Println(err)
	ans, err := cards.DecodeForecast(context.Background(), m, []byte(` + "`" + `{"city": "北京", "days": [{"date": "12-02", "high": 3.5}]}` + "`" + `))
	fmt.Printf("%+v %v\n", ans, err)
	_, err = cards.DecodeForecast(context.Background(), m, []byte(` + "`" + `{"city": "北京", "days": [{"date": "12-02", "high": "冷"}], "wind": 3}` + "`" + `))
	fmt.Println(err)
}
`,
	})
	run("vet", "./...")
	got := run("run", ".", set)

	m, err := manager.Open(set)
	require.NoError(t, err)
	defer m.Close()
	want, err := m.Render("card.v1", map[string]any{
		"user": map[string]any{"name": "A", "tags": []any{"x", "y"}, "home": map[string]any{"city": "C"}, "kind": "admin"},
		"note": "n", "count": 7, "labels": map[string]any{"b": 1.5}, "either": 3,
		"tree":    map[string]any{"value": "r", "children": []any{map[string]any{"value": "c"}}},
		"untyped": []any{1},
	})
	require.NoError(t, err)
	assert.Equal(t, want+" <nil>\n"+
		`[{"role":"user","content":"q1"},{"role":"assistant","content":"a1"},{"role":"user","content":"q2"}] <nil>`+"\n"+
		`card.md: template "card.v1": invalid variables: either: matches none of the schema's alternatives: want string, got null; or want integer, got null; user.tags: want array, got null`+"\n"+
		"{City:北京 Days:[{Date:12-02 High:3.5}] Note:} <nil>\n"+
		`forecast.md: template "forecast": invalid output: answer.days[0].high: want number, got string; answer.wind: not in the schema, which allows no other properties`+"\n", got)
}

// hostModule writes files into a module "host" that uses this checkout
// of promptkit (through a go.work), and returns a function that runs the
// go command in it, failing the test when the command fails.
func hostModule(t *testing.T, files map[string]string) func(args ...string) string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	dir := t.TempDir()
	files["go.mod"] = "module host\n\ngo 1.26.0\n"
	files["go.work"] = "go 1.26.0\n\nuse (\n\t.\n\t" + root + "\n)\n"
	for name, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gobin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off", "GOWORK="+filepath.Join(dir, "go.work"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %v: %s", args, out)
		return string(out)
	}
}

func TestGenerateRefuses(t *testing.T) {
	_, err := gen.Generate(fstest.MapFS{"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md"}}}`)},
		"t.md": {Data: []byte("{{ x }}")}}, gen.Options{})
	var le *manager.LoadError
	require.ErrorAs(t, err, &le, "a set that does not load")

	_, err = gen.Generate(fstest.MapFS{"index.json": {Data: []byte(`{"version": 1, "templates": {"a-b": {"path": "t.md"}, "a_b": {"path": "t.md"}}}`)},
		"t.md": {Data: []byte("x")}}, gen.Options{})
	require.ErrorIs(t, err, gen.ErrGenerate)
	assert.Equal(t, `gen: cannot generate: templates "a-b" and "a_b" both make the Go name ABVars`, err.Error())

	_, err = gen.Generate(fstest.MapFS{}, gen.Options{Package: "not a name"})
	require.True(t, errors.Is(err, gen.ErrGenerate))
}

// A schema that is only a cycle of $refs validates no value (it would
// validate the same value forever): it is refused.
func TestGenerateRefCycle(t *testing.T) {
	_, err := gen.Generate(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "v", "schema": {"$ref": "#"}}]}}}`)},
		"t.md":       {Data: []byte("{{ v }}")}}, gen.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a $ref cycle that never moves into the value")
}
