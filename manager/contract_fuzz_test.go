package manager_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// FuzzContract loads a set whose index.json's entry declares any call
// contract, beside a tools file, schema files and a chat template. A load
// never panics; every problem is a kind of ErrTemplate with a file of the
// set and a line inside it; a set that loads makes a request whose cache
// mark is on a message it has.
func FuzzContract(f *testing.F) {
	for _, s := range []string{
		`"model": {"name": "gpt-4o", "temperature": 0.2, "openai": {"seed": 1}}, "tools": [{"$ref": "tools.json"}], "output": {"$ref": "answer.json"}, "cache": {"message": 0}`,
		`"tools": [{"name": "f", "description": "查询天气；城市不存在时返回错误。", "parameters": {"type": "object", "properties": {"c": {"$ref": "answer.json#/properties/city"}}}}]`,
		`"cache": {"message": 1, "ttl": "1h"}, "model": {"tool_choice": "g"}`,
		`"tools": [{"$ref": "tools.json"}, {"$ref": "tools.json"}], "output": {"$ref": "#/x"}`,
		`"model": {"$ref": "../m.json"}, "cache": {"message": -1}, "output": true`,
		`"tools": {}, "model": [], "cache": "0"`,
	} {
		f.Add(s)
	}
	files := map[string]string{
		"t.md":        `{% chat role="system" %}固定的说明。{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`,
		"tools.json":  `[{"name": "g", "description": "查询城市此刻的当地时间；城市不存在时返回错误。", "parameters": {"type": "object", "properties": {"city": {"$ref": "answer.json#/properties/city"}}}}]`,
		"answer.json": `{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}`,
	}
	f.Fuzz(func(t *testing.T, contract string) {
		index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["q"], ` + contract + `}}}`
		set := fstest.MapFS{"index.json": {Data: []byte(index)}}
		for p, s := range files {
			set[p] = &fstest.MapFile{Data: []byte(s)}
		}
		m, err := manager.New(set)
		if err != nil {
			for _, p := range manager.Problems(err) {
				require.True(t, errors.Is(p, manager.ErrTemplate), "kind %v: %s", p.Kind, p)
				require.NotEmpty(t, p.Path, p.Error())
				if src, ok := set[p.Path]; ok && p.Line > 0 {
					assert.LessOrEqual(t, p.Line, strings.Count(string(src.Data), "\n")+1, p.Error())
				}
			}
			return
		}
		req, err := m.Request(context.Background(), "t", map[string]any{"q": "x"})
		require.NoError(t, err)
		tpl, _ := m.Lookup("t")
		if c := tpl.Contract.Cache; c != nil {
			require.Less(t, c.Message, len(req.Messages))
			assert.NotNil(t, req.Messages[c.Message].CacheControl)
		}
	})
}
