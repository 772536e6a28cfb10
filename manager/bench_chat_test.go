package manager_test

import (
	"testing"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// The four messages of a typical few-shot chat prompt, and the same text
// without chat blocks: RenderMessages of the first is compared with
// Render of the second (target: at most 1.3×).
const (
	benchSystem = `You are {{ bot_name }}, a support assistant for {{ product }}.
Answer in {{ language }}, in at most {{ max_sentences }} sentences. Use only the
documents below; when they do not answer the question, say so and stop.
{% for doc in docs %}
<document id="{{ doc.id }}" title="{{ doc.title }}">
{{ doc.body }}
</document>
{% endfor %}`
	benchExampleQ = `How do I reset my password on {{ product }}?`
	benchExampleA = `Open Settings, choose Account, then "Reset password"; a link arrives by email within five minutes.`
	benchUser     = `{{ question }}`
)

var benchChatSource = `{% chat role="system" %}` + benchSystem + `{% endchat %}
{% chat role="user" %}` + benchExampleQ + `{% endchat %}
{% chat role="assistant" %}` + benchExampleA + `{% endchat %}
{% chat role="user" %}` + benchUser + `{% endchat %}
`

var benchTextSource = benchSystem + "\n" + benchExampleQ + "\n" + benchExampleA + "\n" + benchUser + "\n"

func benchChatManager(b *testing.B) *manager.Manager {
	b.Helper()
	const vars = `["bot_name","product","language","max_sentences","docs","question"]`
	m, err := manager.New(set(`{"version":1,"templates":{
		"chat":{"path":"chat.md","variables":`+vars+`},
		"text":{"path":"text.md","variables":`+vars+`}}}`,
		map[string]string{"chat.md": benchChatSource, "text.md": benchTextSource}))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func benchChatVars() map[string]any {
	return map[string]any{
		"bot_name": "Mai", "product": "Acme Cloud", "language": "English", "max_sentences": 4,
		"docs": []any{
			map[string]any{"id": "kb-1", "title": "Passwords", "body": "Passwords are reset from Settings > Account. Reset links expire after one hour."},
			map[string]any{"id": "kb-2", "title": "Two-factor", "body": "Two-factor codes are sent by SMS or an authenticator app; backup codes work once."},
			map[string]any{"id": "kb-3", "title": "Billing", "body": "Invoices are issued on the first day of the month and can be downloaded as PDF."},
		},
		"question": "I lost my phone: how do I log in without my two-factor code?",
	}
}

func BenchmarkRenderMessagesFourMessages(b *testing.B) {
	m := benchChatManager(b)
	vars := benchChatVars()
	msgs, err := m.RenderMessages("chat", vars)
	if err != nil || len(msgs) != 4 {
		b.Fatal(len(msgs), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.RenderMessages("chat", vars); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderSameTextWithoutChat(b *testing.B) {
	m := benchChatManager(b)
	vars := benchChatVars()
	if _, err := m.Render("text", vars); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Render("text", vars); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderOneLine is a one-line template beside the same line as
// one chat message: RenderMessages' fixed cost over Render (target: at
// most 1.5×). The text is Chinese, as the default set's is: trimming a
// message must not decode every rune at its ends.
func BenchmarkRenderOneLine(b *testing.B) {
	const line = `你好，{{ name }}！请用{{ language }}回答下面的问题。`
	m, err := manager.New(set(`{"version":1,"templates":{
		"text":{"path":"text.md","variables":["name","language"]},
		"chat":{"path":"chat.md","variables":["name","language"]}}}`,
		map[string]string{"text.md": line, "chat.md": `{% chat role="user" %}` + line + `{% endchat %}`}))
	if err != nil {
		b.Fatal(err)
	}
	vars := map[string]any{"name": "小明", "language": "中文"}
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.Render("text", vars); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("messages", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.RenderMessages("chat", vars); err != nil {
				b.Fatal(err)
			}
		}
	})
}
