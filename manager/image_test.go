package manager_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

const imageTemplate = `{% chat role="user" %}
Here is the page:
{{ img | image }}
What does it say?
{% endchat %}`

func renderImage(t *testing.T, img any) ([]manager.Message, error) {
	t.Helper()
	m := chatSet(t, imageTemplate, "img")
	return m.RenderMessages("t", map[string]any{"img": img})
}

func TestImageSplitsText(t *testing.T) {
	msgs, err := renderImage(t, "https://example.com/page1.png")
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, manager.Message{Role: "user", Parts: []manager.Part{
		{Type: manager.PartText, Text: "Here is the page:"},
		{Type: manager.PartImage, URL: "https://example.com/page1.png"},
		{Type: manager.PartText, Text: "What does it say?"},
	}}, msgs[0])
	assert.Equal(t, "Here is the page:\nWhat does it say?", msgs[0].Text())

	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"role":"user","content":[
		{"type":"text","text":"Here is the page:"},
		{"type":"image_url","image_url":{"url":"https://example.com/page1.png"}},
		{"type":"text","text":"What does it say?"}]}]`, string(data))
}

func TestImageURLWithSpecialCharactersKeptExactly(t *testing.T) {
	url := `https://img.example.com/a.png?x=1&y=<2>&z="3"`
	msgs, err := renderImage(t, url)
	require.NoError(t, err)
	require.Len(t, msgs[0].Parts, 3)
	assert.Equal(t, url, msgs[0].Parts[1].URL, "no escaping of any kind")

	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	var raw []map[string]any
	require.NoError(t, json.Unmarshal(data, &raw))
	content := raw[0]["content"].([]any)
	assert.Equal(t, url, content[1].(map[string]any)["image_url"].(map[string]any)["url"])
	var back []manager.Message
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, msgs, back)
}

func TestImageBytesSniffed(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), 0, 0, 0, 13, 'I', 'H', 'D', 'R')
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	gif := []byte("GIF89a\x01\x00\x01\x00")
	webp := []byte("RIFF\x24\x00\x00\x00WEBPVP8 ")
	for _, tc := range []struct {
		name string
		data []byte
		mime string
	}{{"png", png, "image/png"}, {"jpeg", jpeg, "image/jpeg"}, {"gif", gif, "image/gif"}, {"webp", webp, "image/webp"}} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := renderImage(t, tc.data)
			require.NoError(t, err)
			want := "data:" + tc.mime + ";base64," + base64.StdEncoding.EncodeToString(tc.data)
			assert.Equal(t, want, msgs[0].Parts[1].URL)
		})
	}
}

func TestImageDataURL(t *testing.T) {
	ok := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nrest"))
	msgs, err := renderImage(t, ok)
	require.NoError(t, err)
	assert.Equal(t, ok, msgs[0].Parts[1].URL)

	msgs, err = renderImage(t, "data:image/svg+xml;base64,PHN2Zy8+")
	require.NoError(t, err)
	assert.Equal(t, "data:image/svg+xml;base64,PHN2Zy8+", msgs[0].Parts[1].URL)
}

func TestImageRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"file name", "page_1.png", `image: "page_1.png" is not an http(s) or data:image URL (promptkit never reads files`},
		{"absolute path", "/etc/passwd", `"/etc/passwd" is not an http(s) or data:image URL`},
		{"file URL", "file:///etc/passwd", `"file:///etc/passwd" is not an http(s) or data:image URL`},
		{"ftp", "ftp://example.com/a.png", "is not an http(s) or data:image URL"},
		{"no host", "https:///a.png", "has no host"},
		{"bad URL", "https://exa mple.com/a.png", "invalid URL"},
		{"data not image", "data:text/plain;base64,aGk=", "is not data:image/<type>;base64"},
		{"data not base64", "data:image/png,rawbytes", "is not data:image/<type>;base64"},
		{"data bad base64", "data:image/png;base64,***", "invalid base64"},
		{"unknown bytes", []byte("plain text, not an image"), "the 24 bytes are not a PNG, JPEG, GIF or WebP image"},
		{"empty bytes", []byte{}, "the 0 bytes are not"},
		{"integer", 42, "not integer"},
		{"list", []any{"https://example.com/a.png"}, "not list"},
		{"mapping", map[string]any{"url": "https://example.com/a.png"}, "not mapping"},
		{"None", nil, "not None"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := renderImage(t, tc.v)
			require.ErrorIs(t, err, manager.ErrTemplate)
			assert.Contains(t, err.Error(), tc.want)
			var e *manager.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, 3, e.Line, "the error points at the image")
		})
	}
}

func TestImageErrorShortensLongValues(t *testing.T) {
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'a'
	}
	_, err := renderImage(t, string(long))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 300)
}

func TestImageFirstAndConsecutive(t *testing.T) {
	m := chatSet(t, `{% chat role="user" %}{{ a | image }}{{ b | image }}  caption {% endchat %}`, "a", "b")
	msgs, err := m.RenderMessages("t", map[string]any{"a": "http://example.com/a.png", "b": "https://example.com/b.png"})
	require.NoError(t, err)
	assert.Equal(t, []manager.Part{
		{Type: manager.PartImage, URL: "http://example.com/a.png"},
		{Type: manager.PartImage, URL: "https://example.com/b.png"},
		{Type: manager.PartText, Text: "caption"},
	}, msgs[0].Parts)
}

// The seed's multimodal example: a loop of text and images in one message.
func TestImagesInALoop(t *testing.T) {
	m := chatSet(t, `
{% chat role="system" %}
Given a list of images and text from each image, please answer the question.
{% endchat %}

{% chat role="user" %}
{% for page in pages %}
Here is some text: {{ page.text }}
And here is an image:
{{ page.image | image }}
{% endfor %}
{% endchat %}
`, "pages")
	msgs, err := m.RenderMessages("t", map[string]any{"pages": []any{
		map[string]any{"image": "https://example.com/p1.png", "text": "first page"},
		map[string]any{"image": "https://example.com/p2.png", "text": "second page"},
	}})
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	assert.Equal(t, "system", msgs[0].Role)
	assert.Equal(t, []manager.Part{
		{Type: manager.PartText, Text: "Here is some text: first page\nAnd here is an image:"},
		{Type: manager.PartImage, URL: "https://example.com/p1.png"},
		{Type: manager.PartText, Text: "Here is some text: second page\nAnd here is an image:"},
		{Type: manager.PartImage, URL: "https://example.com/p2.png"},
	}, msgs[1].Parts)
}
