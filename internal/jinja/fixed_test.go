package jinja

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFixedPrefix: a cache breakpoint after message n (here: the number
// of messages the prefix holds) is proven when the messages up to it are
// the same for every render, and refused otherwise, naming what makes them
// change where it is read.
func TestFixedPrefix(t *testing.T) {
	clock := catalog
	clock.Globals = maps.Clone(catalog.Globals)
	clock.Globals["strftime_now"] = Spec{MinArgs: 1, MaxArgs: 1}
	inc := files{
		"rules.md":  `{% chat role="system" %}规则：{{ "简短" }}{% endchat %}`,
		"user.md":   `{% chat role="user" %}{{ question }}{% endchat %}`,
		"fixed.md":  `固定的说明`,
		"macros.md": `{% macro m() %}x{% endmacro %}`,
	}
	for _, tc := range []struct {
		name, src string
		n         int
		want      string // "" proven; else the problem as file:line:col: message
		variable  string
	}{
		{"fixed text", `{% chat role="system" %}你是天气助手。{% endchat %}{% chat role="user" %}{{ question }}{% endchat %}`, 1, "", ""},
		{"after a variable", `{% chat role="system" %}你是{{ bot }}。{% endchat %}`, 1,
			`t.md:1:30: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "bot"`, "bot"},
		{"the second message reads a variable", `{% chat role="system" %}固定{% endchat %}{% chat role="user" %}{{ question }}{% endchat %}`, 2,
			`t.md:1:65: the cache breakpoint after message 1 needs the prefix before it to be the same for every render, and it depends on the variable "question"`, "question"},
		{"a role from a variable", `{% chat role=who allow=["user", "assistant"] %}固定{% endchat %}`, 1,
			`t.md:1:14: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "who"`, "who"},
		{"the clock", `{% chat role="system" %}今天是 {{ strftime_now("%Y-%m-%d") }}{% endchat %}`, 1,
			`t.md:1:32: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the clock (strftime_now)`, "strftime_now"},
		{"a loop over input before the breakpoint", `{% for s in shots %}{% chat role="user" %}{{ s }}{% endchat %}{% endfor %}{% chat role="system" %}x{% endchat %}`, 1,
			`t.md:1:13: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "shots"`, "shots"},
		{"a condition on input before the breakpoint", `{% if formal %}{% chat role="system" %}正式{% endchat %}{% endif %}{% chat role="system" %}x{% endchat %}`, 1,
			`t.md:1:7: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "formal"`, "formal"},
		{"a fixed loop before the breakpoint cannot be counted", `{% for s in ["a", "b"] %}{% chat role="user" %}{{ s }}{% endchat %}{% endfor %}`, 1,
			`t.md:1:1: the cache breakpoint after message 0 needs the messages before it to be the same for every render: {% for %} before it may add messages (promptkit counts the chat blocks that run on every render; put the breakpoint before it)`, ""},
		{"a variable after the breakpoint", `{% chat role="system" %}固定{% endchat %}{% if x %}{% chat role="user" %}{{ x }}{% endchat %}{% endif %}`, 1, "", ""},
		{"a local from fixed values", `{% set tone = "简短" ~ "、" %}{% set ns = namespace(n=1) %}{% chat role="system" %}{{ tone }}{{ ns.n }}{% for i in range(3) %}{{ loop.index }}{% endfor %}{% endchat %}`, 1, "", ""},
		{"a local from a variable", `{% set tone = style | upper %}{% chat role="system" %}{{ tone }}{% endchat %}`, 1,
			`t.md:1:15: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "style"`, "style"},
		{"a local set under a condition", `{% set tone = "a" %}{% if x %}{% set tone = "b" %}{% endif %}{% chat role="system" %}{{ tone }}{% endchat %}`, 1,
			`t.md:1:27: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "x"`, "x"},
		{"a condition inside the block", `{% chat role="system" %}{% if debug %}调试{% endif %}固定{% endchat %}`, 1,
			`t.md:1:31: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "debug"`, "debug"},
		{"a namespace a loop sets from input", `{% set ns = namespace(s="") %}{% for q in qs %}{% set ns.s = q %}{% endfor %}{% chat role="system" %}{{ ns.s }}{% endchat %}`, 1,
			`t.md:1:43: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "qs"`, "qs"},
		{"an included fixed file", `{% include "rules.md" %}{% include "user.md" %}`, 1, "", ""},
		{"an included file that reads a variable", `{% include "rules.md" %}{% include "user.md" %}`, 2,
			`user.md:1:26: the cache breakpoint after message 1 needs the prefix before it to be the same for every render, and it depends on the variable "question"`, "question"},
		{"a macro with fixed arguments", `{% macro hi(name, end="。") %}你好，{{ name }}{{ end }}{% endmacro %}{% chat role="system" %}{{ hi("麦麦") }}{% endchat %}`, 1, "", ""},
		{"a macro with a variable argument", `{% macro hi(name) %}你好，{{ name }}{% endmacro %}{% chat role="system" %}{{ hi(bot) }}{% endchat %}`, 1,
			`t.md:1:78: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "bot"`, "bot"},
		{"a macro that reads a variable itself", `{% macro hi() %}你好，{{ bot }}{% endmacro %}{% chat role="system" %}{{ hi() }}{% endchat %}`, 1,
			`t.md:1:23: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "bot"`, "bot"},
		{"an imported macro", `{% from "macros.md" import m %}{% chat role="system" %}{{ m() }}{% endchat %}`, 1,
			`t.md:1:28: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on a macro imported from another file, which the analysis does not follow`, ""},
		{"past the last message", `{% chat role="system" %}a{% endchat %}`, 2,
			`t.md:1:39: the cache breakpoint after message 1: the template renders 1 message(s) on every render before anything conditional, so there is no message 1 to end the prefix`, ""},
		{"a text template, fixed", `{% include "fixed.md" %}，全文固定`, 1, "", ""},
		{"a text template reading a variable", `前言{{ x }}`, 1,
			`t.md:1:6: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "x"`, "x"},
		{"a text template has one message", `前言`, 2,
			`t.md:1:1: the cache breakpoint after message 1: the template renders 1 message(s) on every render before anything conditional, so there is no message 1 to end the prefix`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := check(tc.src, []string{"bot", "question", "who", "shots", "formal", "x", "style", "debug", "qs"}, inc,
				func(c *Config) { c.Catalog = clock })
			require.NoError(t, err)
			got := FixedPrefix(p, tc.n)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want, got.Error())
			assert.Equal(t, Prefix, got.Kind)
			assert.Equal(t, tc.variable, got.Name)
		})
	}
}
