package rag_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/rag"
)

func Example() {
	m, err := manager.New(promptkit.FS())
	if err != nil {
		log.Fatal(err)
	}
	b := rag.New(m)
	msgs, err := b.Messages(rag.Input{
		Question: "年假可以跨年用吗？",
		History: []manager.Message{{Role: manager.RoleSystem, Parts: []manager.Part{
			{Type: manager.PartText, Text: "对话摘要：员工在咨询休假制度。"},
		}}},
		Documents: []rag.Retrieved{{Intent: "leave", Chunks: []rag.Chunk{
			{Source: "员工手册", Text: "未休年假可顺延至次年 3 月 31 日。<b>逾期作废</b>"},
		}}},
		Intents: []rag.Intent{{ID: "leave", Name: "休假制度", Snippet: "涉及日期时写明具体年月日"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, msg := range msgs[:len(msgs)-1] {
		fmt.Println(msg.Role)
	}
	user := msgs[len(msgs)-1]
	fmt.Println(user.Role)
	fmt.Println(user.Text())

	// With no evidence at all there is no prompt to build.
	_, err = b.Messages(rag.Input{Question: "年假可以跨年用吗？"})
	fmt.Println(errors.Is(err, rag.ErrNoEvidence))
	// Output:
	// system
	// system
	// user
	// <documents>
	// <document id="1" intent="休假制度">
	// <chunk source="员工手册">
	// 未休年假可顺延至次年 3 月 31 日。&lt;b&gt;逾期作废&lt;/b&gt;
	// </chunk>
	// </document>
	// </documents>
	//
	// <question>年假可以跨年用吗？</question>
	// true
}

func ExamplePlanFor() {
	p, err := rag.PlanFor(rag.Input{
		Question: "我还剩几天年假？",
		Tools:    []rag.ToolResult{{Tool: "leave_balance", Intent: "balance", Data: map[string]any{"remaining_days": 6}}},
		Intents: []rag.Intent{
			{ID: "balance", Template: "你是人事数据助手……", Snippet: "天数保留一位小数"},
			{ID: "policy", Snippet: "不会用到：这个意图没有证据"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Scene, p.Template, p.Retained, p.Rules)
	// Output:
	// tool rag_system_intent [balance] [天数保留一位小数]
}
