package contextstack

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const searchSchema = `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"user_id":{"type":"string"}},"required":["query"]}`

// lintCases are descriptions of a tool whose schema is searchSchema, with
// the rules each must trip. Every pattern of toolrules.json is tripped by
// at least one case (TestLintRulesAreCovered checks).
var lintCases = []struct {
	name  string
	desc  string
	rules []string
}{
	// The surface: when and why, what comes back, how it fails.
	{"surface example: search users", "搜索用户：按昵称/名字/ID 搜索已知用户与群，返回其 user_id（QQ号）、昵称、群信息，用于确定 send_message 的发送目标。", nil},
	{"surface example: recent history", "获取最近聊天历史：拉取指定聊天流的最近消息记录。", nil},
	{"mentions a parameter in prose", "按 query 中的关键词检索知识库；没有命中时返回空列表，这时换一组关键词再试，不要编造结果。", nil},
	{"explains enum meanings and bounds", "在知识库中检索片段。结果按相关度排序，最多返回 50 条；超过时只保留前 50 条。", nil},
	{"english surface", "Search the knowledge base when the user asks about internal policies. Returns matching passages with citation ids; an empty list means nothing matched.", nil},
	{"calls of other tools are not machinery", "在调用 send_message 之前先用它确定发送目标。", nil},
	{"a list and a table that are not machinery", "从候选列表中选出最相关的结果，并以表格形式汇总给用户。", nil},

	// Empty.
	{"empty", "", []string{RuleEmptyDescription}},
	{"blank", " \n\t", []string{RuleEmptyDescription}},

	// Parameter sections.
	{"chinese section with colon", "搜索文档。\n参数：\nquery 为检索词", []string{RuleParameterSection}},
	{"chinese section inline", "搜索文档。参数: 见下", []string{RuleParameterSection}},
	{"markdown heading", "搜索文档。\n\n## 参数说明\n无", []string{RuleParameterSection}},
	{"bold heading", "搜索文档。\n**入参**：无", []string{RuleParameterSection}},
	{"english args", "Search documents.\n\nArgs:\n  see schema", []string{RuleParameterSection}},
	{"english parameters heading alone", "Search documents.\nParameters\nnone", []string{RuleParameterSection}},

	// Parameters listed.
	{"bulleted list", "搜索文档。\n- query: 检索词\n- limit: 最多返回几条", []string{RuleParameterListed}},
	{"numbered list", "搜索文档。\n1. `query`：检索词", []string{RuleParameterListed}},
	{"typed inline", "按 query（string）搜索，limit (integer) 控制条数。", []string{RuleParameterListed}},
	{"required marker", "搜索文档，query 为必填，limit 可选。", []string{RuleParameterListed}},
	{"section and list", "搜索文档。\n参数：\n- query: 检索词", []string{RuleParameterSection, RuleParameterListed}},
	{"english default", "Search documents. user_id, default: the caller.", []string{RuleParameterListed}},

	// The machinery.
	{"machinery example: API endpoint", "调用 MaibaChat API 的 /v1/user/search 端点", []string{RuleImplementation, RuleImplementation}},
	{"machinery example: table", "从 chat_records 表查询最近 N 条消息", []string{RuleImplementation}},
	{"table named first", "chat_records 表中查询最近的消息。", []string{RuleImplementation}},
	{"english api", "Calls the weather API and returns the forecast.", []string{RuleImplementation}},
	{"http method", "Sends POST /messages with the text.", []string{RuleImplementation}},
	{"url", "抓取 https://api.example.com/weather 返回的天气。", []string{RuleImplementation}},
	{"english table", "Reads rows from the messages table.", []string{RuleImplementation}},
	{"database", "从数据库中读取用户资料。", []string{RuleImplementation}},
	{"sql", "Runs SELECT name FROM users for the given id.", []string{RuleImplementation}},
	{"infrastructure", "把消息写入 Redis 队列。", []string{RuleImplementation}},
}

func TestLintTools(t *testing.T) {
	for _, tt := range lintCases {
		t.Run(tt.name, func(t *testing.T) {
			problems, err := LintTools([]ToolSpec{{Name: "search", Description: tt.desc, InputSchema: Schema(searchSchema)}})
			require.NoError(t, err)
			var rules []string
			for _, p := range problems {
				rules = append(rules, p.Rule)
				assert.Equal(t, "search", p.Tool)
				assert.NotEmpty(t, p.Message)
			}
			assert.Equal(t, tt.rules, rules, "%v", problems)
		})
	}
}

func TestLintMessages(t *testing.T) {
	problems, err := LintTools([]ToolSpec{
		{Name: "search", Description: "调用 MaibaChat API 搜索。\n参数：\n- query: 检索词\n- limit (integer)", InputSchema: Schema(searchSchema)},
		{Name: "noop"},
		{Name: "broken", Description: "Use when the user asks for nothing.", InputSchema: Schema(`[1]`)},
		{Name: "props", Description: "Use when the user asks for nothing.", InputSchema: Schema(`{"properties":[]}`)},
		{Name: "null", Description: "Use when the user asks for nothing.", InputSchema: Schema(`null`)},
	})
	require.NoError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	assert.Equal(t, []string{
		`tool "search": description has a parameters section ("参数："); the input schema carries the parameters`,
		`tool "search": description lists parameters already in the input schema: "limit", "query"; keep names, types, required flags and defaults in the schema`,
		`tool "search": description describes implementation (calls an API: "调用 MaibaChat API"); say when and why to use the tool, not how it works`,
		`tool "noop": description is empty; say when and why to use the tool and how it fails`,
		`tool "broken": input schema: not a JSON object`,
		`tool "props": input schema: "properties" is not a JSON object`,
		`tool "null": input schema: not a JSON object`,
	}, got)
}

func TestLintNoSchema(t *testing.T) {
	// Without a schema there are no parameters to repeat.
	problems, err := LintTools([]ToolSpec{{Name: "clock", Description: "- query: 查询当前时间"}})
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestLintRulesAreCovered(t *testing.T) {
	r, err := rules()
	require.NoError(t, err)
	for i, p := range r.impl {
		hit := false
		for _, tt := range lintCases {
			if p.re.MatchString(tt.desc) {
				hit = true
				break
			}
		}
		assert.True(t, hit, "implementation pattern %d (%s) %q has no case in lintCases", i, p.what, p.re)
	}
	for _, w := range []string{"参数", "Args", "Parameters", "入参", "参数说明"} {
		assert.True(t, r.section.MatchString("x\n"+w+":"), "section word %q", w)
	}
	for _, p := range r.listed {
		assert.False(t, strings.Contains(p, "||"), "no empty alternative in %q", p)
		assert.Contains(t, p, "{name}")
	}
}
