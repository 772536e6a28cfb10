package server

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// go test ./server -run FixturesInBrowser -screenshots ../docs refreshes
// the README's pictures of the fixtures on the preview page.
var screenshotsTo = flag.String("screenshots", "", "also write the fixtures browser test's screenshots into this directory")

// The preview page's fixtures, schema-driven form and rendered diff, in
// Chromium: a form whose fields follow the variables' schemas (an enum is
// a choice, a list of objects JSON with a skeleton, an explicit empty
// string), saved samples that fill it, saving it as a new fixture, a mark
// on a result that is stale, and what an edit did to every fixture.
func TestFixturesInBrowser(t *testing.T) {
	chromium := chromiumPath()
	if chromium == "" && os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI must run the browser test: .ci/run installs it with apt-get")
	}
	if chromium == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): the browser test of the preview page is not run")
	}
	dir := browserSet(t)
	s, err := New(Dir(dir, manager.WithDebounce(50*time.Millisecond)), WithPreview(), WithFixtureWrites())
	require.NoError(t, err)
	defer s.Close()
	url, _ := listen(t, s)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // root in CI
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1100),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	shots := t.TempDir()
	shot := func(name string) {
		b, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(shots, name), b, 0o644))
		if *screenshotsTo != "" {
			require.NoError(t, os.WriteFile(filepath.Join(*screenshotsTo, name), b, 0o644))
		}
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, steps...), what)
	}
	waitFor := func(what, fn string, args ...any) {
		t.Helper()
		err := chromedp.Do(bctx, chromedp.PollFunction[chromedp.Void](fn,
			chromedp.WithPollingArgs(args...), chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(20*time.Millisecond)))
		if err != nil {
			shot("failure.png")
			text, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waiting for %s: %v\nscreenshot %s\npage:\n%s", what, err, filepath.Join(shots, "failure.png"), text)
		}
	}
	eval := func(fn string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[string](fn))
		require.NoError(t, err)
		return v
	}
	render := func(name string, vars map[string]any) string {
		t.Helper()
		m, err := manager.Open(dir)
		require.NoError(t, err)
		defer m.Close()
		out, err := m.Render(name, vars)
		require.NoError(t, err)
		return out
	}
	const outputIs = `(want) => { const o = document.getElementById("output"); return !o.hidden && o.textContent === want; }`
	// choose sets a <select> as a person would, firing its change event.
	choose := func(id, value string) {
		t.Helper()
		do("choose "+value, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById(`+jsString(id)+`);
			s.value = `+jsString(value)+`; s.dispatchEvent(new Event("change")); })()`))
	}

	// An enum is a choice of its values; the saved samples fill the form.
	do("open context_note", chromedp.Navigate(url+"/#context_note"), chromedp.WaitVisible(chromedp.ID("var-kind")))
	assert.Equal(t, "SELECT", eval(`document.getElementById("var-kind").tagName`))
	assert.Equal(t, `["","\"sent-message\"","\"task-reply\"","\"task-waiting-input\""]`,
		eval(`JSON.stringify([...document.getElementById("var-kind").options].map((o) => o.value))`))
	waitFor("the samples", `() => document.querySelectorAll("#sample-pick option").length === 4`)
	choose("sample-pick", "context_note/task-reply")
	waitFor("the sample's prompt", outputIs, render("context_note", map[string]any{
		"kind": "task-reply", "content": "明天北京有小雨，记得带伞。", "note_id": "note-1", "bot_name": "麦麦"}))
	assert.Equal(t, `"task-reply"`, eval(`document.getElementById("var-kind").value`))
	assert.Contains(t, eval(`document.getElementById("sample-note").textContent`), "From fixtures/context_note.json:4.")
	shot("preview-fixtures.png")

	// A list of objects is JSON, filled in with a skeleton of its schema.
	do("open polish", chromedp.Click(chromedp.CSS(`#templates li[data-name="polish"]`)), chromedp.WaitVisible(chromedp.ID("var-jargon")))
	var skeleton any
	require.NoError(t, json.Unmarshal([]byte(eval(`document.getElementById("var-jargon").value`)), &skeleton))
	assert.Equal(t, []any{map[string]any{"content": "", "meaning": ""}}, skeleton)

	// An empty field is not passed; "empty string" passes "".
	do("open agent_system", chromedp.Click(chromedp.CSS(`#templates li[data-name="agent_system"]`)), chromedp.WaitVisible(chromedp.ID("var-intent")))
	do("fill it", chromedp.SendKeys(chromedp.ID("var-intent"), "查明天北京的天气"), chromedp.SendKeys(chromedp.ID("var-bot_name"), "麦麦"))
	waitFor("title is missing", `() => { const e = document.getElementById("render-error");
		return !e.hidden && e.textContent.includes("missing_variables") && e.textContent.includes("title"); }`)
	do("pass an empty title", chromedp.Click(chromedp.CSS(`.field[data-var="title"] input[data-role="empty"]`)))
	waitFor("the prompt without a title", outputIs, render("agent_system", map[string]any{"title": "", "intent": "查明天北京的天气", "bot_name": "麦麦"}))

	// A field that is not JSON: the last render stays, marked stale.
	do("open polish again", chromedp.Click(chromedp.CSS(`#templates li[data-name="polish"]`)), chromedp.WaitVisible(chromedp.ID("var-jargon")))
	do("break the JSON", chromedp.SendKeys(chromedp.ID("var-jargon"), "{"))
	waitFor("the stale mark", `() => document.body.dataset.stale === "input" && !document.getElementById("stale").hidden &&
		document.querySelector('.field[data-var="jargon"] .field-error').textContent.startsWith("not JSON")`)

	// Save the form as a new fixture, with its output as its golden file.
	do("open title", chromedp.Click(chromedp.CSS(`#templates li[data-name="title"]`)), chromedp.WaitVisible(chromedp.ID("var-intent")))
	const intent = "提醒我周五交周报"
	do("fill title", chromedp.SendKeys(chromedp.ID("var-intent"), intent))
	waitFor("the title prompt", outputIs, render("title", map[string]any{"intent": intent}))
	do("name the fixture", chromedp.SendKeys(chromedp.ID("save-name"), "weekly-report"), chromedp.Click(chromedp.ID("save-btn")))
	waitFor("saved", `() => document.getElementById("save-result").textContent.startsWith("saved to fixtures/title.json")`)
	b, err := os.ReadFile(filepath.Join(dir, "fixtures", "title.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `{"name": "weekly-report", "template": "title", "vars": {"intent": "提醒我周五交周报"}, "golden": "golden/title/weekly-report.txt"}`)
	golden, err := os.ReadFile(filepath.Join(dir, "fixtures", "golden", "title", "weekly-report.txt"))
	require.NoError(t, err)
	assert.Equal(t, render("title", map[string]any{"intent": intent}), string(golden))
	waitFor("the new sample", `() => document.getElementById("sample-pick").value === "title/weekly-report"`)

	// Edit the template: every fixture's output before and after.
	titleFile := filepath.Join(dir, "templates", "title.md")
	original, err := os.ReadFile(titleFile)
	require.NoError(t, err)
	edited := strings.Replace(string(original), "不超过 15 个字", "不超过 12 个字", 1)
	require.NotEqual(t, string(original), edited)
	gen := s.Status().Generation
	require.NoError(t, os.WriteFile(titleFile, []byte(edited), 0o644))
	waitFor("the rendered diff", `(gen) => Number(document.body.dataset.changes) > gen &&
		document.querySelector('.change[data-fixture="title/weather"] .diff .del') !== null &&
		document.querySelector('.change[data-fixture="title/weekly-report"]') !== null`, gen)
	assert.Contains(t, eval(`document.querySelector('.change[data-fixture="title/weather"] .diff').textContent`), "+- 不超过 12 个字（含标点）。")
	assert.Empty(t, eval(`document.querySelector('.change[data-fixture="context_note/task-reply"]') === null ? "" : "shown"`), "an unchanged fixture is not listed")
	assert.Equal(t, "title/weekly-report", eval(`document.getElementById("sample-pick").value`), "the chosen sample stays chosen across a reload")
	shot("preview-fixtures-diff.png")

	// Break the set: what shows was rendered by the last good set.
	require.NoError(t, os.WriteFile(titleFile, []byte("{% if %}\n"+edited), 0o644))
	waitFor("the set's stale mark", `() => document.body.dataset.stale === "set" &&
		document.getElementById("stale").textContent.includes("the files do not load")`)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
