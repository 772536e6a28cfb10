package builders

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type point struct {
	Tags []string
	Next *point
}

func TestNewContextCopiesData(t *testing.T) {
	list := []any{"a", map[string]any{"k": "v"}}
	nested := map[string]any{"list": list}
	typed := []Jargon{
		{Content: "c", Meaning: "m"},
	}
	ptr := &point{Tags: []string{"x"}}
	data := map[string]any{"nested": nested, "typed": typed, "ptr": ptr, "s": "str", "n": 3}

	ctx := NewContext(Task{ID: "1", Title: "t", Intent: "i"}, data)

	// The caller changes everything it passed.
	list[0] = "changed"
	list[1].(map[string]any)["k"] = "changed"
	nested["added"] = true
	typed[0].Content = "changed"
	ptr.Tags[0] = "changed"
	data["s"] = "changed"
	data["new"] = 1

	assert.Equal(t, []string{"n", "nested", "ptr", "s", "typed"}, ctx.Keys())
	v, ok := ctx.Value("nested")
	require.True(t, ok)
	assert.Equal(t, map[string]any{"list": []any{"a", map[string]any{"k": "v"}}}, v)
	v, _ = ctx.Value("typed")
	assert.Equal(t, []Jargon{
		{Content: "c", Meaning: "m"},
	}, v)
	v, _ = ctx.Value("ptr")
	assert.Equal(t, []string{"x"}, v.(*point).Tags)
	v, _ = ctx.Value("s")
	assert.Equal(t, "str", v)
	v, _ = ctx.Value("n")
	assert.Equal(t, 3, v)
	assert.Equal(t, Task{ID: "1", Title: "t", Intent: "i"}, ctx.Task())
}

func TestContextValueIsACopy(t *testing.T) {
	ctx := NewContext(Task{}, map[string]any{"list": []any{"a"}, "m": map[string]any{"k": "v"}})

	// A builder that changes what Value returned changes nothing.
	v, _ := ctx.Value("list")
	v.([]any)[0] = "changed"
	m, _ := ctx.Value("m")
	m.(map[string]any)["k"] = "changed"

	v, _ = ctx.Value("list")
	assert.Equal(t, []any{"a"}, v)
	m, _ = ctx.Value("m")
	assert.Equal(t, map[string]any{"k": "v"}, m)

	_, ok := ctx.Value("absent")
	assert.False(t, ok)
}

func TestNewContextCycles(t *testing.T) {
	p := &point{Tags: []string{"loop"}}
	p.Next = p
	m := map[string]any{}
	m["self"] = m

	ctx := NewContext(Task{}, map[string]any{"p": p, "m": m})

	v, _ := ctx.Value("p")
	cp := v.(*point)
	assert.NotSame(t, p, cp)
	assert.Same(t, cp, cp.Next, "a cycle stays a cycle")
	v, _ = ctx.Value("m")
	cm := v.(map[string]any)
	cm["x"] = 1
	_, shared := m["x"]
	assert.False(t, shared)
	assert.Equal(t, 1, cm["self"].(map[string]any)["x"], "the copy's cycle points at the copy")
}

func TestNewContextEmpty(t *testing.T) {
	for _, data := range []map[string]any{nil, {}} {
		ctx := NewContext(Task{ID: "x"}, data)
		assert.Empty(t, ctx.Keys())
		assert.Equal(t, "x", ctx.Task().ID)
	}
	var zero Context
	assert.Empty(t, zero.Keys())
}

// TestContextConcurrentUse runs concurrent readers and a writer of the
// caller's map under the race detector.
func TestContextConcurrentUse(t *testing.T) {
	data := map[string]any{"list": []any{"a", "b"}}
	ctx := NewContext(Task{}, data)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				v, _ := ctx.Value("list")
				v.([]any)[0] = "mine"
			}
		})
	}
	wg.Go(func() {
		for range 100 {
			data["list"].([]any)[1] = "theirs"
		}
	})
	wg.Wait()
	v, _ := ctx.Value("list")
	assert.Equal(t, []any{"a", "b"}, v)
}

func TestContextUnknown(t *testing.T) {
	ctx := NewContext(Task{}, map[string]any{"b": 1, "a": 2, "c": 3})
	tests := []struct {
		keys    []string
		want    string
		unknown bool
	}{
		{[]string{"a", "b", "c", "d"}, "", false},
		{[]string{"c", "b"}, "a", true},
		{[]string{"a", "b"}, "c", true},
		{nil, "a", true},
	}
	for _, tt := range tests {
		k, unknown := ctx.Unknown(tt.keys)
		assert.Equal(t, tt.want, k, tt.keys)
		assert.Equal(t, tt.unknown, unknown, tt.keys)
	}
	k, unknown := NewContext(Task{}, map[string]any{"": 1}).Unknown([]string{"a"})
	assert.True(t, unknown, "an empty key is a key too")
	assert.Empty(t, k)
	_, unknown = NewContext(Task{}, nil).Unknown(nil)
	assert.False(t, unknown)
	assert.Zero(t, testing.AllocsPerRun(10, func() { ctx.Unknown([]string{"a", "b", "c"}) }))
}
