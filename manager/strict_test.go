package manager_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// A set is strict by default: a missing key, attribute or item is an
// undefined value a template may ask about, and an error wherever it is
// used, naming the file, line and column, the expression as written, what
// the value it looked into is, and a suggestion from its keys.
func TestStrictUndefined(t *testing.T) {
	vars := map[string]any{"d": map[string]any{"name": "阿明", "tags": []any{"x"}}, "n": 5, "l": []any{1}}
	for _, tc := range []struct {
		src, out, err string
	}{
		{"{{ d.nmae }}", "", `t.md:1:4: template "t": d.nmae is undefined, so it cannot be printed: d is a dict with keys name, tags; did you mean "name"?`},
		{"{% if d.nmae %}yes{% else %}no{% endif %}", "", `t.md:1:7: template "t": d.nmae is undefined, so it cannot be tested for truth: d is a dict with keys name, tags; did you mean "name"?`},
		{"{{ n[0] }}", "", `t.md:1:4: template "t": n[0] is undefined, so it cannot be printed: n is an integer (5)`},
		{"x\n  {{ l[5] }}", "", `t.md:2:6: template "t": l[5] is undefined, so it cannot be printed: l is a list of 1 item`},
		{"{{ 'a' ~ d.nmae }}", "", `t.md:1:10: template "t": d.nmae is undefined, so it cannot be converted to text: d is a dict with keys name, tags; did you mean "name"?`},
		{"{{ d.nmae | length }}", "", `t.md:1:4: template "t": d.nmae is undefined, so it cannot be given to length: d is a dict with keys name, tags; did you mean "name"?`},
		{"{{ d.nmae == 'x' }}", "", `t.md:1:4: template "t": d.nmae is undefined, so it cannot be compared: d is a dict with keys name, tags; did you mean "name"?`},
		{"{% for t in d.tgas %}{% endfor %}", "", `t.md:1:13: template "t": d.tgas is undefined, so it cannot be iterated: d is a dict with keys name, tags; did you mean "tags"?`},
		{"{{ d.nmae | default('无') }} {{ d.nmae is defined }} {{ d.get('nmae', 'g') }} {{ 'nmae' in d }} {{ d.nmae is undefined }}", "无 False g False True", ""},
		{"{% set x = d.nmae %}{{ x | d('-') }}{{ [d.nmae] }}", "-[Undefined]", ""},
		{"{{ 'c' if false }}|", "|", ""}, // an inline if without else is lenient, as in Jinja2
	} {
		m, err := oneTemplate(t, tc.src, []string{"d", "n", "l"})
		require.NoError(t, err)
		out, err := m.Render("t", vars)
		if tc.err == "" {
			require.NoError(t, err, tc.src)
			assert.Equal(t, tc.out, out, tc.src)
			continue
		}
		require.ErrorIs(t, err, manager.ErrUndefined, tc.src)
		require.ErrorIs(t, err, manager.ErrTemplate, tc.src)
		assert.Equal(t, tc.err, err.Error(), tc.src)
		assert.Equal(t, "undefined", manager.ErrorKind(err))
	}

	m, err := oneTemplate(t, "{{ d.nmae }}", []string{"d"})
	require.NoError(t, err)
	_, err = m.Render("t", map[string]any{"d": vars["d"]})
	var e *manager.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "d.nmae", e.Expr)
	assert.Equal(t, "a dict with keys name, tags", e.Value)
	assert.Equal(t, "name", e.Suggestion)
	assert.Equal(t, [2]int{1, 4}, [2]int{e.Line, e.Col})
}

// An optional variable without a default is undefined when not passed: a
// template asks before it uses it.
func TestStrictOptionalVariable(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{
		"guarded":{"path":"g.md","variables":[{"name":"who","required":false}]},
		"bare":{"path":"b.md","variables":[{"name":"who","required":false}]}}}`,
		map[string]string{"g.md": "{% if who is defined %}[{{ who }}]{% endif %}{{ who | default('-') }}", "b.md": "\n{{ who }}"}))
	require.NoError(t, err)
	out, err := m.Render("guarded", nil)
	require.NoError(t, err)
	assert.Equal(t, "-", out)
	out, err = m.Render("guarded", map[string]any{"who": "麦"})
	require.NoError(t, err)
	assert.Equal(t, "[麦]麦", out)
	_, err = m.Render("bare", nil)
	require.ErrorIs(t, err, manager.ErrUndefined)
	assert.Equal(t, `b.md:2:4: template "bare": who is undefined, so it cannot be printed: the variable "who" was not passed, and has no default`, err.Error())
}

// "undefined": "lenient" in index.json keeps Jinja2's default Undefined,
// for the whole set or one entry; anything but strict or lenient is
// refused.
func TestLenientUndefined(t *testing.T) {
	files := map[string]string{"t.md": "[{{ d.nmae }}]{% if d.nmae %}yes{% endif %}{{ 'a' ~ d.nmae }}{{ d.nmae | length }}{{ d.nmae == 'x' }}"}
	vars := map[string]any{"d": map[string]any{"name": "阿明"}}
	for _, index := range []string{
		`{"version":1,"undefined":"lenient","templates":{"t":{"path":"t.md","variables":["d"]}}}`,
		`{"version":1,"templates":{"t":{"path":"t.md","variables":["d"],"undefined":"lenient"}}}`,
		`{"version":1,"undefined":"strict","templates":{"t":{"path":"t.md","variables":["d"],"undefined":"lenient"}}}`,
	} {
		m, err := manager.New(set(index, files))
		require.NoError(t, err, index)
		out, err := m.Render("t", vars)
		require.NoError(t, err, index)
		assert.Equal(t, "[]a0False", out, index)
		assert.True(t, m.Templates()[0].Lenient)
	}
	m, err := manager.New(set(`{"version":1,"undefined":"lenient","templates":{"t":{"path":"t.md","variables":["d"],"undefined":"strict"}}}`, files))
	require.NoError(t, err)
	_, err = m.Render("t", vars)
	require.ErrorIs(t, err, manager.ErrUndefined, "an entry's own setting wins")

	_, err = manager.New(set(`{"version":1,"undefined":"loose","templates":{"t":{"path":"t.md","variables":["d"],"undefined":true}}}`, files))
	require.ErrorIs(t, err, manager.ErrIndex)
	assert.Contains(t, err.Error(), `index.json: "undefined" is "strict" or "lenient", not "loose"`)
	assert.Contains(t, err.Error(), `index.json: template "t": "undefined" is "strict" or "lenient", not true`)
}

// Chat templates of models keep transformers' environment: default
// Undefined, which real templates rely on.
func TestChatTemplateStaysLenient(t *testing.T) {
	ct, err := manager.ParseChatTemplate("t.jinja", "{% for m in messages %}{% if m.tool_calls %}T{% endif %}{{ m.content }}{{ m.name }};{% endfor %}")
	require.NoError(t, err)
	out, err := ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: json.RawMessage(`[{"role":"user","content":"hi"}]`)})
	require.NoError(t, err)
	assert.Equal(t, "hi;", out)
}

// A config's special tokens reach the template as transformers'
// special_tokens_map passes them: each that is set and not empty, a
// token object by its content, additional_special_tokens as a list; a
// setting of the same name wins.
func TestChatTemplateSpecialTokens(t *testing.T) {
	config := `{"chat_template": "{{ bos_token }}|{{ pad_token }}|{{ unk_token }}|{{ mask_token }}|{{ additional_special_tokens | join(',') }}|{{ sep_token is defined }}|{{ cls_token is defined }}",
		"bos_token": "<s>", "pad_token": "<pad>", "unk_token": {"content": "<unk>", "lstrip": false, "__type": "AddedToken"},
		"mask_token": "<mask>", "sep_token": "", "additional_special_tokens": ["<a>", {"content": "<b>"}]}`
	ct, err := manager.ParseChatTemplateConfig("tokenizer_config.json", []byte(config), "")
	require.NoError(t, err)
	out, err := ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: json.RawMessage(`[]`)})
	require.NoError(t, err)
	assert.Equal(t, "<s>|<pad>|<unk>|<mask>|<a>,<b>|False|False", out)
	out, err = ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: json.RawMessage(`[]`), Vars: map[string]json.RawMessage{"pad_token": json.RawMessage(`"[PAD]"`)}})
	require.NoError(t, err)
	assert.Equal(t, "<s>|[PAD]|<unk>|<mask>|<a>,<b>|False|False", out)

	_, err = manager.ParseChatTemplateConfig("c.json", []byte(`{"chat_template": "x", "additional_special_tokens": [1]}`), "")
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "additional_special_tokens[0]")
}
