package jinjaoracle_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jinjaoracle"
)

func TestRender(t *testing.T) {
	o := jinjaoracle.Require(t)
	for _, c := range []struct {
		name, template string
		vars           map[string]any
		out, err       string
	}{
		{"text", "Hello {{ name }}!\n", map[string]any{"name": "Ann"}, "Hello Ann!", ""},
		{"float stays float", "{{ a }} {{ b }} {{ c }}", map[string]any{"a": 1.0, "b": int64(1), "c": math.Copysign(0, -1)}, "1.0 1 -0.0", ""},
		{"inf", "{{ a }} {{ b }}", map[string]any{"a": math.Inf(1), "b": math.Inf(-1)}, "inf -inf", ""},
		{"maps sorted", "{{ d }} {{ d.keys()|list }}", map[string]any{"d": map[string]any{"b": 1, "a": []any{map[string]any{"z": 1, "y": 2}}}},
			"{'a': [{'y': 2, 'z': 1}], 'b': 1} ['a', 'b']", ""},
		{"typed map and slice", "{{ m }} {{ s }}", map[string]any{"m": map[string]int{"b": 2, "a": 1}, "s": []string{"x"}}, "{'a': 1, 'b': 2} ['x']", ""},
		{"code points", "{{ s[0] }}{{ s|length }}", map[string]any{"s": "查询天气"}, "查4", ""},
		{"undefined attribute", "{{ x.y.z }}", nil, "", "UndefinedError: 'x' is undefined"},
		{"syntax", "{% if %}", nil, "", "TemplateSyntaxError: Expected an expression, got 'end of statement block'"},
		{"no loop controls", "{% for x in [1] %}{% break %}{% endfor %}", nil, "", "TemplateSyntaxError"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, jerr := o.Render(c.template, c.vars)
			if c.err != "" {
				assert.Contains(t, jerr, c.err)
				assert.Empty(t, out)
				return
			}
			require.Empty(t, jerr)
			assert.Equal(t, c.out, out)
		})
	}
}

func TestHuggingFace(t *testing.T) {
	o := jinjaoracle.Require(t)
	env := jinjaoracle.Env{HuggingFace: true, KeepOrder: true, Now: time.Date(2025, 3, 1, 8, 5, 0, 0, time.UTC)}
	vars := map[string]any{"messages": json.RawMessage("[{\"role\": \"user\",\n \"content\": \"é\", \"b\": 1, \"a\": 2}]")}
	out, jerr := o.RenderEnv(env, "{% for m in messages %}\n  {{ m|tojson }}\n{% endfor %}\n{{ strftime_now('%d %b %Y') }}", vars)
	require.Empty(t, jerr)
	assert.Equal(t, `  {"role": "user", "content": "é", "b": 1, "a": 2}`+"\n01 Mar 2025", out)

	_, jerr = o.RenderEnv(env, "{{ raise_exception('roles must alternate') }}", nil)
	assert.Equal(t, "TemplateError: roles must alternate", jerr)

	_, jerr = o.RenderEnv(env, "{% set l = [] %}{{ l.append(1) }}", nil)
	assert.Contains(t, jerr, "SecurityError")

	out, jerr = o.RenderEnv(env, "{% for x in [1, 2, 3] %}{% if x == 2 %}{% break %}{% endif %}{{ x }}{% endfor %}", nil)
	require.Empty(t, jerr)
	assert.Equal(t, "1", out)
}

// TestTimeout: a render that runs too long answers with a timeout, and the
// oracle answers the next request.
func TestTimeout(t *testing.T) {
	o := jinjaoracle.Require(t)
	_, jerr := o.RenderEnv(jinjaoracle.Env{Timeout: 200 * time.Millisecond}, "{% for i in range(10**9) %}{% endfor %}", nil)
	assert.True(t, jinjaoracle.IsTimeout(jerr), jerr)
	assert.True(t, jinjaoracle.IsOracleFailure(jerr), jerr)
	out, jerr := o.Render("{{ 1 + 1 }}", nil)
	require.Empty(t, jerr)
	assert.Equal(t, "2", out)
}

// TestMemory: a value too large for the oracle's memory bound is an
// oracle failure, not Jinja2's answer, and the oracle keeps serving.
func TestMemory(t *testing.T) {
	o := jinjaoracle.Require(t)
	_, jerr := o.Render("{{ 'x' * 10**11 }}", nil)
	assert.True(t, jinjaoracle.IsOracleFailure(jerr), jerr)
	out, jerr := o.Render("{{ 'ok' }}", nil)
	require.Empty(t, jerr)
	assert.Equal(t, "ok", out)
}

func TestBadInput(t *testing.T) {
	o := jinjaoracle.Require(t)
	_, jerr := o.Render("\xff", nil)
	assert.True(t, jinjaoracle.IsOracleFailure(jerr), jerr)
	_, jerr = o.Render("{{ a }}", map[string]any{"a": "\xff"})
	assert.True(t, jinjaoracle.IsOracleFailure(jerr), jerr)
}

// Env.Strict renders with StrictUndefined: an undefined value may be asked
// about, and raises when it is used.
func TestStrict(t *testing.T) {
	o := jinjaoracle.Require(t)
	vars := map[string]any{"d": map[string]any{"name": "A"}}
	for _, env := range []jinjaoracle.Env{{Strict: true}, {Strict: true, HuggingFace: true}} {
		out, jerr := o.RenderEnv(env, "{{ d.nmae is defined }} {{ d.nmae | default('x') }} {{ d.get('nmae', 'g') }}", vars)
		require.Empty(t, jerr)
		assert.Equal(t, "False x g", out)
		_, jerr = o.RenderEnv(env, "{{ d.nmae }}", vars)
		assert.Equal(t, "UndefinedError: 'dict object' has no attribute 'nmae'", jerr)
	}
	out, jerr := o.Render("{{ d.nmae }}|", vars)
	require.Empty(t, jerr, "the stock environment stays lenient")
	assert.Equal(t, "|", out)
}
