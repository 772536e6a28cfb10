package manager

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/flosch/pongo2/v6"
)

// The render path runs a template's body itself instead of through
// pongo2's Execute, and prints {{ x }} with promptkit's print tag instead
// of pongo2's {{ x|filter }}. These tests hold both to what pongo2 gives.

// stringerString is a string kind with its own String method.
type stringerString string

func (s stringerString) String() string { return "stringer:" + string(s) }

type pathStruct struct{ Name string }

// printValues are values of every shape a host may pass, for the print
// tag's differential test.
func printValues() map[string]any {
	str := "指针"
	return map[string]any{
		"str": "文本 <&> \"q\"", "empty": "", "i64": int64(-42), "int": 7, "f": 1.5, "fint": 2.0, "fbig": 1e20,
		"t": true, "f0": false, "none": none, "nil": nil, "u64": uint64(1 << 63), "i32": int32(5),
		"num":   json.Number("3.25"),
		"list":  []any{"a", int64(1), nil},
		"strs":  []string{"x", "y"},
		"map":   map[string]any{"a": map[string]any{"b": "深", "n": int64(3), "nil": nil}, "s": "浅", "l": []any{"z"}},
		"smap":  map[string]string{"a": "typed map"},
		"st":    pathStruct{Name: "struct"},
		"pst":   &pathStruct{Name: "pointer to struct"},
		"ps":    &str,
		"fn":    func() string { return "called" },
		"named": stringerString("n"),
		"val":   pongo2.AsValue("a pongo2 value"),
		"inner": map[string]any{"val": pongo2.AsValue("nested pongo2 value"), "fn": func() string { return "nested call" }},
	}
}

func init() {
	// The translation the print tag replaced, kept as a test-only filter:
	// pongo2 evaluates the path, then str() prints it.
	if err := pongo2.RegisterFilter("pk_str", func(in, _ *pongo2.Value) (*pongo2.Value, *pongo2.Error) {
		if in.IsString() {
			return in, nil
		}
		return pongo2.AsValue(pyStr(unwrap(in))), nil
	}); err != nil {
		panic(err)
	}
}

// TestPrintTagMatchesPongo2 prints paths over printValues with the print
// tag and with the translation it replaced ({{ x|pk_str }}): the output
// must be the same, value by value.
func TestPrintTagMatchesPongo2(t *testing.T) {
	paths := []string{"str", "empty", "i64", "int", "f", "fint", "fbig", "t", "f0", "none", "nil", "u64", "i32", "num",
		"list", "strs", "map", "map.s", "map.a", "map.a.b", "map.a.n", "map.a.nil", "map.a.missing", "map.missing.deeper",
		"map.l", "smap", "smap.a", "st.Name", "pst.Name", "ps", "fn", "named", "val", "inner.val", "inner.fn",
		"nil.x", "str.x", "missing", "missing.x", "forloop", "map.s.x"}
	set := newPongoSet()
	vars := printValues()
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			print, err := set.FromString("{% " + rootTag + " %}{% " + printTag + " " + p + " %}{% end" + rootTag + " %}")
			if err != nil {
				t.Fatal(err)
			}
			filter, err := set.FromString("{% " + rootTag + " %}{{ " + p + "|pk_str }}{% end" + rootTag + " %}")
			if err != nil {
				t.Fatal(err)
			}
			got, gerr := print.Execute(pongo2.Context(vars))
			want, werr := filter.Execute(pongo2.Context(vars))
			if got != want || (gerr == nil) != (werr == nil) {
				t.Fatalf("print tag: %q, %v; pongo2 with pk_str: %q, %v", got, gerr, want, werr)
			}
		})
	}
}

const plainPathTestTag = "promptkit_test_plainpath"

var plainPathSeen = map[string][]string{}

func init() {
	// A test-only tag that records what plainPath makes of its arguments.
	if err := pongo2.RegisterTag(plainPathTestTag, func(doc *pongo2.Parser, start *pongo2.Token, args *pongo2.Parser) (pongo2.INodeTag, *pongo2.Error) {
		var src []string
		for i := 0; i < args.Count(); i++ {
			src = append(src, args.Get(i).Val)
		}
		plainPathSeen[strings.Join(src, " ")] = plainPath(args)
		args.ConsumeN(args.Remaining())
		return &guardNode{tok: start}, nil
	}); err != nil {
		panic(err)
	}
}

// TestPlainPath checks which arguments take the direct lookup.
func TestPlainPath(t *testing.T) {
	set := newPongoSet()
	for src, want := range map[string]string{
		"a": "[a]", "a . b": "[a b]", "a . b . c": "[a b c]", "a . 0": "[]", "a [ 0 ]": "[]", "a | pk_upper": "[]",
		`s`: "[s]", "1": "[]", "true": "[]", "a . b ( )": "[]", "( a )": "[]", "_pkf . V ( a )": "[]", "a .": "[]", ". a": "[]",
	} {
		if _, err := set.FromString("{% " + plainPathTestTag + " " + src + " %}"); err != nil {
			t.Fatal(err)
		}
		got, ok := plainPathSeen[src]
		if !ok {
			t.Fatalf("%q: tokens seen: %v", src, plainPathSeen)
		}
		if fmt.Sprint(got) != want || (want == "[]") != (got == nil) {
			t.Errorf("plainPath(%s) = %#v, want %s", src, got, want)
		}
	}
}

// TestRenderMatchesPongo2Execute renders templates through Render (the
// body run directly, with pooled state) and through pongo2's Execute of
// the same compiled template: the outputs must be the same, also when
// renders reuse pooled state one after another.
func TestRenderMatchesPongo2Execute(t *testing.T) {
	templates := map[string]string{
		"scalars":  "你好，{{ name }}！{{ n }} {{ f }} {{ ok }} {{ nothing }}",
		"loop":     "{% for d in docs %}{{ loop.index }}/{{ loop.length }} {{ d.title }}: {{ d.body | upper }}{% if not loop.last %}, {% endif %}{% else %}空{% endfor %}",
		"set":      "{% set greeting = '您好' ~ name %}{{ greeting }} {% for k, v in meta.items() %}{{ k }}={{ v }};{% endfor %}",
		"defined":  "{% if opt is defined %}有 {{ opt }}{% else %}无{% endif %}|{{ opt | default('默认') }}",
		"nested":   "{% for d in docs %}{% for t in d.tags %}{{ d.title }}#{{ t }}{% set last = t %} {% endfor %}{% endfor %}",
		"with":     "{% with x = name %}{{ x }}{% endwith %}{{ meta.k1 }}",
		"exprs":    "{{ n + 1 }} {{ name ~ '!' }} {{ docs | length }} {{ [1, 2] }} {{ {'a': 1} }} {{ none_var }}",
		"brace":    "{ {{ '{' }} {{ name }} %} }}",
		"percent":  "{{ name ~ '%}' }}{{ name | default('50%}') }}",
		"constant": "{{ 'x' }}{{ 1.0 }}{{ none }}{{ true }}",
	}
	vars := map[string]any{
		"name": "李雷", "n": int64(3), "f": 1.5, "ok": true, "nothing": nil, "opt": "o", "none_var": nil,
		"docs": []any{
			map[string]any{"title": "甲", "body": "a &lt;b&gt;", "tags": []any{"x", "y"}},
			map[string]any{"title": "乙", "body": "c", "tags": []any{}},
		},
		"meta": map[string]any{"k2": "v2", "k1": "v1"},
	}
	index := map[string]any{}
	fsys := fstest.MapFS{}
	for name, src := range templates {
		index[name] = map[string]any{"path": name + ".md", "variables": []any{
			map[string]any{"name": "name", "required": false}, map[string]any{"name": "n", "required": false},
			map[string]any{"name": "f", "required": false}, map[string]any{"name": "ok", "required": false},
			map[string]any{"name": "nothing", "required": false}, map[string]any{"name": "opt", "required": false},
			map[string]any{"name": "none_var", "required": false}, map[string]any{"name": "docs", "required": false},
			map[string]any{"name": "meta", "required": false},
		}}
		fsys[name+".md"] = &fstest.MapFile{Data: []byte(src)}
	}
	data, err := json.Marshal(map[string]any{"version": 1, "templates": index})
	if err != nil {
		t.Fatal(err)
	}
	fsys[IndexFile] = &fstest.MapFile{Data: data}
	m, err := New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		for name := range templates {
			c := m.cur.Load().templates[name]
			bound, err := c.bind(vars)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.pt.Execute(pongo2.Context(bound))
			if err != nil {
				t.Fatalf("%s: pongo2: %v", name, err)
			}
			got, err := m.Render(name, vars)
			if err != nil {
				t.Fatalf("%s: Render: %v", name, err)
			}
			if got != want {
				t.Errorf("round %d, %s: Render %q, pongo2 Execute %q", round, name, got, want)
			}
		}
	}
}
