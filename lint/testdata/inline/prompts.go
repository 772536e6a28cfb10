// Package inline plants inline prompts for the linter's tests.
package inline

import "fmt"

const systemPrompt = "你是一个助手，请简洁地回答。"

var greeting = "Hello {{ name }}, welcome back."

var loop = "{% for x in xs %}{{ x }}{% endfor %}"

const instructions = `You are a helpful assistant for the weather plugin.
Answer only with facts taken from the tool results.
Never invent numbers.`

func build(intent string) string {
	prompt := "You are a title generator for a task list.\n" +
		"Write a short title of at most fifteen characters.\n"
	placeholder := "（无）"
	return fmt.Sprintf("%s%s<intent>%s</intent>", prompt, placeholder, intent)
}

func lines(title string) []string {
	var out []string
	out = append(out, "- "+title)
	out = append(out, "任务标题："+title)
	return out
}

//promptkit:allow-inline
var unexplained = "请回答"

//promptkit:allow-inline nothing below needs it
var plain = "ok"
