package manager_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// A compiled template is immutable: every construct renders from many
// goroutines at once, each render equal to the single-goroutine render.
// Under -race (CI runs it) the detector checks that no render writes
// what another reads.
func TestConcurrentRendersOfEveryConstruct(t *testing.T) {
	files := map[string]string{
		"macros.md": `{% macro tag(name, cls="c") %}<{{ name }} {{ cls }}{{ varargs | join(",") }}{{ kwargs | dictsort | join(",") }}>{{ caller() if caller is defined else "" }}{% endmacro %}` +
			`{% macro list(items) %}{% for i in items %}{{ caller(i) }}{% endfor %}{% endmacro %}{% set version = "m1" %}`,
		"part.md":   `[part {{ who }} {{ loop_var }}]`,
		"base.md":   `<{% block head %}H{% endblock %}|{% block body %}B{% block inner %}i{% endblock %}{% endblock %}>`,
		"mid.md":    `{% extends "base.md" %}{% block head %}M{{ super() }}{% endblock %}`,
		"macro.md":  `{% macro m(x, y=2) %}{{ x }}+{{ y }}{% endmacro %}{{ m(1) }} {{ m(who, y=3) }} {% for i in range(3) %}{{ m(i) }}{% endfor %}`,
		"call.md":   `{% from "macros.md" import tag, list %}{% call tag("a", "k", 1, 2, z=3) %}body {{ who }}{% endcall %}{% call(i) list([1, 2, 3]) %}<{{ i * 2 }}>{% endcall %}`,
		"import.md": `{% import "macros.md" as mm %}{% import "macros.md" as mc with context %}{{ mm.version }}{{ mm.tag("b") }}{{ mc.tag("c") }}`,
		"include.md": `{% for loop_var in ["x", "y"] %}{% include "part.md" %}{% endfor %}` +
			`{% with who = "w", loop_var = "z" %}{% include "part.md" %}{% endwith %}`,
		"extends.md": `{% extends "mid.md" %}{% block inner %}<{{ super() }}{{ who }}>{% endblock %}` +
			`{% block body %}C{{ super() }}{% endblock %}`,
		"scoped.md": `{% for i in [1, 2] %}{% block s scoped %}[{{ i }}]{% endblock %}{% endfor %}`,
		"loops.md": `{% for n in tree recursive %}{{ loop.depth }}{{ n.name }}({{ loop(n.kids) if n.kids is defined and n.kids else "" }}){% endfor %}` +
			`{% for x in [1, 2, 3, 4, 5] if x != 2 %}{{ loop.index }}{{ loop.cycle("a", "b") }}{% if loop.changed(x // 2) %}!{% endif %}` +
			`{% if x == 4 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ loop.previtem | default("") }}/{{ loop.nextitem | default("") }};{% else %}E{% endfor %}` +
			`{% for x in [] %}X{% else %}empty{% endfor %}`,
		"ns.md": `{% set ns = namespace(total=0, seen=[]) %}{% for x in [1, 2, 3] %}{% set ns.total = ns.total + x %}{% endfor %}{{ ns.total }}` +
			`{% set c = cycler("x", "y") %}{% set j = joiner("; ") %}{% for i in range(3) %}{{ j() }}{{ c.next() }}{% endfor %}`,
		"blocks.md": `{% set head %}Dear {{ who }},{% endset %}{% set up | upper %}shout {{ who }}{% endset %}{{ head }} {{ up }}` +
			`{% filter upper %}quiet {{ who }}{% endfilter %}{% filter replace("a", "4") | trim %}  banana  {% endfilter %}`,
		"chat.md": `{% macro say(x) %}{{ x }}!{% endmacro %}{% chat role="system" %}You help {{ who }}.{% endchat %}` +
			`{% for t in turns %}{% chat role=t.role allow=["user", "assistant"] %}{{ say(t.text) }}{% if t.img is defined %}{{ t.img | image }}{% endif %}{% endchat %}{% endfor %}`,
	}
	index := `{"version":1,"templates":{`
	names := []string{"macro", "call", "import", "include", "extends", "scoped", "loops", "ns", "blocks", "chat"}
	for i, n := range names {
		if i > 0 {
			index += ","
		}
		vars := `["who"]`
		switch n {
		case "scoped", "ns":
			vars = `[]`
		case "loops":
			vars = `["tree"]`
		case "chat":
			vars = `["who", "turns"]`
		}
		index += fmt.Sprintf(`%q:{"path":"%s.md","variables":%s}`, n, n, vars)
	}
	index += "}}"
	fsys := fstest.MapFS{"index.json": {Data: []byte(index)}}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	m, err := manager.New(fsys)
	require.NoError(t, err)

	vars := map[string]map[string]any{
		"loops": {"tree": []any{
			map[string]any{"name": "a", "kids": []any{map[string]any{"name": "b", "kids": []any{}}, map[string]any{"name": "c"}}},
			map[string]any{"name": "d"},
		}},
		"scoped": nil, "ns": nil,
		"chat": {"who": "阿明", "turns": []any{
			map[string]any{"role": "user", "text": "hi", "img": "https://example.com/a.png"},
			map[string]any{"role": "assistant", "text": "hello"},
		}},
	}
	args := func(name string) map[string]any {
		if v, ok := vars[name]; ok {
			return v
		}
		return map[string]any{"who": "阿明"}
	}
	render := func(name string) (string, error) {
		if name == "chat" {
			msgs, err := m.RenderMessages(name, args(name))
			var b strings.Builder
			for _, msg := range msgs {
				b.WriteString(msg.Role + ":")
				for _, p := range msg.Parts {
					b.WriteString("[" + p.Text + p.URL + "]")
				}
				b.WriteString("\n")
			}
			return b.String(), err
		}
		return m.Render(name, args(name))
	}
	want := map[string]string{}
	for _, n := range names {
		out, err := render(n)
		require.NoError(t, err, n)
		want[n] = out
	}
	// The constructs ran as Jinja2 3.1 runs them (its outputs for the
	// same files, through a DictLoader with the loopcontrols extension).
	jinja2 := map[string]string{
		"macro":   "1+2 阿明+3 0+21+22+2",
		"call":    "<a k1,2('z', 3)>body 阿明<2><4><6>",
		"import":  "m1<b c><c c>",
		"include": "[part 阿明 x][part 阿明 y][part w z]",
		"extends": "<MH|CB<i阿明>>",
		"scoped":  "[1][2]",
		"loops":   "1a(2b()2c())1d()1a!/3;2b!1/4;3a!4bempty",
		"ns":      "6x; y; x",
		"blocks":  "Dear 阿明, SHOUT 阿明QUIET 阿明b4n4n4",
	}
	for n, out := range jinja2 {
		assert.Equal(t, out, want[n], n)
	}
	assert.Equal(t, "system:[You help 阿明.]\nuser:[hi!][https://example.com/a.png]\nassistant:[hello!]\n", want["chat"])

	const goroutines, rounds = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				n := names[(g+r)%len(names)]
				out, err := render(n)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", n, err)
					return
				}
				if out != want[n] {
					errs <- fmt.Errorf("%s: rendered %q from goroutine %d, %q alone", n, out, g, want[n])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
