package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/tokens"
	"github.com/stretchr/testify/require"
)

// go test ./server -run Browser -screenshot ../docs/preview.png refreshes
// the README's picture from a real run.
var screenshotTo = flag.String("screenshot", "", "also write the browser test's screenshot of a problem to this file")

// chromiumPath finds Debian's Chromium (PROMPTKIT_CHROMIUM overrides).
func chromiumPath() string {
	if p := os.Getenv("PROMPTKIT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// picture is a small PNG made here, as a data URL: an image part that
// needs no network.
func picture(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for y := range 64 {
		for x := range 96 {
			img.Set(x, y, color.RGBA{R: uint8(40 + x), G: uint8(90 + y), B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// browserSet copies the embedded set to a directory and adds a chat
// template, so the page is tried on the prompts authors really edit.
func browserSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, promptkit.FS()))
	// CopyFS keeps embed's read-only modes; the test edits the files.
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	}))
	var index map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &index))
	index["templates"].(map[string]any)["preview_chat"] = map[string]any{
		"path":        "templates/preview_chat.md",
		"description": "客服对话：system 与 user 两条消息，user 可带一张图片",
		"variables": []any{"bot_name", "question",
			map[string]any{"name": "photo", "required": false, "default": picture(t), "description": "图片地址"}},
		"model":  map[string]any{"name": "gpt-4o-mini", "temperature": 0.3},
		"output": map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}},
	}
	index["templates"].(map[string]any)["preview_typo"] = map[string]any{
		"path": "templates/preview_typo.md", "description": "一个拼错的方法名", "variables": []any{"word"},
	}
	b, err = json.MarshalIndent(index, "", "  ")
	require.NoError(t, err)
	writeSet(t, dir, map[string]string{
		"index.json": string(b),
		"templates/preview_chat.md": `{% chat role="system" %}你是{{ bot_name }}，负责回答售后问题。{% endchat %}
{% chat role="user" %}{{ question }}{% if photo %}{{ photo | image }}{% endif %}{% endchat %}`,
		"templates/preview_typo.md": "大写：{{ word.uper }}",
	})
	return dir
}

func TestPreviewInBrowser(t *testing.T) {
	chromium := chromiumPath()
	if chromium == "" && os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI must run the browser test: .ci/run installs it with apt-get")
	}
	if chromium == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): the browser test of the preview page is not run")
	}
	dir := browserSet(t)
	s, err := New(Dir(dir, manager.WithDebounce(50*time.Millisecond)), WithPreview())
	require.NoError(t, err)
	defer s.Close()
	url, _ := listen(t, s) // through Serve: timeouts, loopback host check

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // root in CI
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	shots := t.TempDir()
	shot := func(name string) string {
		b, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		p := filepath.Join(shots, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		t.Logf("screenshot: %s", p)
		return p
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, steps...), what)
	}
	// waitFor polls a predicate in the page until it holds; on a timeout
	// it saves a screenshot and reports what the page showed.
	waitFor := func(what, fn string, args ...any) {
		t.Helper()
		err := chromedp.Do(bctx, chromedp.PollFunction[chromedp.Void](fn,
			chromedp.WithPollingArgs(args...), chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(20*time.Millisecond)))
		if err != nil {
			text, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waiting for %s: %v\nscreenshot %s\npage:\n%s", what, err, shot("failure.png"), text)
		}
	}
	text := func(fn string) string {
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
	titleFile := filepath.Join(dir, "templates", "title.md")
	original, err := os.ReadFile(titleFile)
	require.NoError(t, err)

	// Open the page on the title template: a required variable left empty
	// is the server's missing_variables, shown in place of the prompt.
	do("open the page", chromedp.Navigate(url+"/#title"), chromedp.WaitVisible(chromedp.ID("var-intent")))
	waitFor("the missing variable", `() => { const e = document.getElementById("render-error");
		return !e.hidden && e.textContent.includes("missing_variables") && e.textContent.includes("intent"); }`)

	// Fill the form: the page shows exactly what the server renders.
	const intent = "查询明天北京的天气"
	do("type the intent", chromedp.SendKeys(chromedp.ID("var-intent"), intent))
	first := render("title", map[string]any{"intent": intent})
	waitFor("the rendered prompt", outputIs, first)
	// Tokens beside bytes, counted by the server (o200k_base first, then
	// the tokenizer picked).
	const metaEnds = `(want) => document.getElementById("result-meta").textContent.endsWith(want)`
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		tok, err := tokens.Encoding(enc)
		require.NoError(t, err)
		if enc != "o200k_base" {
			do("pick "+enc, chromedp.SetValue(chromedp.ID("tokenizer"), enc),
				chromedp.Evaluate[chromedp.Void](`document.getElementById("tokenizer").dispatchEvent(new Event("change"))`))
		}
		waitFor("the "+enc+" count beside the bytes", metaEnds, fmt.Sprintf("%d bytes · %d tokens (%s)", len(first), tok.Count(first), enc))
	}
	require.Contains(t, text(`document.getElementById("source").innerText`), "<intent>{{ intent }}</intent>", "the source pane shows the file")
	require.Equal(t, "true", text(`String(document.getElementById("contract").hidden)`), "title declares no call contract")

	// Edit the file on disk: the page follows by itself and keeps the value typed.
	edited := strings.Replace(string(original), "任务标题生成器", "标题助手", 1)
	require.NotEqual(t, string(original), edited)
	require.NoError(t, os.WriteFile(titleFile, []byte(edited), 0o644))
	want := render("title", map[string]any{"intent": intent})
	waitFor("the edited prompt", outputIs, want)
	require.Equal(t, intent, text(`document.getElementById("var-intent").value`), "the form keeps its values")
	require.Equal(t, "2", text(`document.body.dataset.generation`))

	// Break it: the problem shows beside its line, the last good set keeps serving.
	lines := strings.SplitAfter(edited, "\n")
	broken := strings.Join(lines[:2], "") + "{% if %}\n" + strings.Join(lines[2:], "")
	require.NoError(t, os.WriteFile(titleFile, []byte(broken), 0o644))
	waitFor("the problem beside line 3", `() => { const p = document.querySelector('#source .problem-inline[data-line="3"]');
		return p !== null && p.textContent.includes("line 3") && p.previousElementSibling.dataset.line === "3"; }`)
	waitFor("the set's problem list", `() => !document.getElementById("set-problems-box").hidden &&
		document.getElementById("set-problems").textContent.includes("templates/title.md:3")`)
	require.Contains(t, text(`document.querySelector('#source .line[data-line="3"]').innerText`), "{% if %}")
	require.Equal(t, want, text(`document.getElementById("output").textContent`), "the last good set renders")
	require.Equal(t, "false", text(`document.body.dataset.ok`))
	p := shot("preview-problem.png")
	if *screenshotTo != "" {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(*screenshotTo, b, 0o644))
	}

	// Fix it: the problem goes, and the new prompt shows.
	fixed := strings.Replace(edited, "标题助手", "任务标题助手", 1)
	require.NoError(t, os.WriteFile(titleFile, []byte(fixed), 0o644))
	want = render("title", map[string]any{"intent": intent})
	waitFor("the fixed prompt", outputIs, want)
	waitFor("no problem left", `() => document.querySelectorAll(".problem-inline").length === 0 &&
		document.getElementById("set-problems-box").hidden && document.body.dataset.ok === "true"`)
	require.Equal(t, "3", text(`document.body.dataset.generation`))

	// A chat template: messages role by role, the image as a thumbnail.
	do("choose the chat template", chromedp.Click(chromedp.CSS(`#templates li[data-name="preview_chat"]`)),
		chromedp.WaitVisible(chromedp.ID("var-question")))
	waitFor("the call contract", `() => { const c = document.getElementById("contract");
		return !c.hidden && c.textContent.includes("gpt-4o-mini · temperature 0.3") && c.textContent.includes("the answer matches the schema \"preview_chat\""); }`)
	do("fill the chat form",
		chromedp.SendKeys(chromedp.ID("var-bot_name"), "麦麦"),
		chromedp.SendKeys(chromedp.ID("var-question"), "耳机坏了能换吗？"))
	m, err := manager.Open(dir)
	require.NoError(t, err)
	msgs, err := m.RenderMessages("preview_chat", map[string]any{"bot_name": "麦麦", "question": "耳机坏了能换吗？"})
	require.NoError(t, m.Close())
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	waitFor("the messages", `(sys, user) => {
		const ms = document.querySelectorAll("#messages .message");
		return !document.getElementById("messages").hidden && ms.length === 2 &&
			ms[0].querySelector(".role").textContent === "system" && ms[0].querySelector("pre").textContent === sys &&
			ms[1].querySelector(".role").textContent === "user" && ms[1].querySelector("pre").textContent === user &&
			ms[1].querySelector("img.thumb") !== null && ms[1].querySelector("img.thumb").complete &&
			ms[1].querySelector("img.thumb").naturalWidth === 96; }`, msgs[0].Text(), msgs[1].Text())
	if *screenshotTo != "" {
		b, err := os.ReadFile(shot("preview-messages.png"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(strings.TrimSuffix(*screenshotTo, ".png")+"-messages.png", b, 0o644))
	} else {
		shot("preview-messages.png")
	}

	// An undefined value used: the error shows the expression, what it
	// looked into and the name it may mean.
	do("choose the template with a typo", chromedp.Click(chromedp.CSS(`#templates li[data-name="preview_typo"]`)),
		chromedp.WaitVisible(chromedp.ID("var-word")))
	do("fill its form", chromedp.SendKeys(chromedp.ID("var-word"), "hi"))
	waitFor("the undefined value's error", `() => { const e = document.getElementById("render-error");
		return !e.hidden && e.textContent.includes("undefined") && e.querySelector(".expression").textContent === "expression: word.uper" &&
			e.querySelector(".value").textContent === "looked into: a string ('hi')" &&
			e.querySelector(".suggestion").textContent === "did you mean upper?"; }`)
}
