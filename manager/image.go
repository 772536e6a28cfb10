package manager

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
)

// imageURL turns the value given to {{ x | image }} into the URL of an
// image part. It accepts an http(s) URL, a data:image/…;base64, URL, or
// raw bytes (a PNG, JPEG, GIF or WebP image, which becomes a data URL).
// It never reads a file: a string that is neither kind of URL — a file
// name, a path, a file: URL — is an error.
func imageURL(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return imageString(x)
	case []byte:
		mime := sniffImage(x)
		if mime == "" {
			return "", fmt.Errorf("image: the %d bytes are not a PNG, JPEG, GIF or WebP image", len(x))
		}
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(x), nil
	}
	return "", fmt.Errorf("image: want an http(s) URL, a data:image/…;base64, URL or bytes, not %s", kindName(v))
}

func imageString(s string) (string, error) {
	lower := strings.ToLower(s[:min(len(s), len("https://"))])
	switch {
	case strings.HasPrefix(lower, "https://"), strings.HasPrefix(lower, "http://"):
		u, err := url.Parse(s)
		if err != nil {
			return "", fmt.Errorf("image: invalid URL %s: %v", quoteShort(s), unwrapURLErr(err))
		}
		if u.Host == "" {
			return "", fmt.Errorf("image: URL %s has no host", quoteShort(s))
		}
		return s, nil
	case strings.HasPrefix(lower, "data:"):
		return dataURL(s)
	}
	return "", fmt.Errorf("image: %s is not an http(s) or data:image URL (promptkit never reads files; pass the image's bytes instead)", quoteShort(s))
}

// dataURL checks a data:image/<type>;base64,<payload> URL.
func dataURL(s string) (string, error) {
	head, payload, ok := strings.Cut(s, ",")
	if !ok {
		return "", fmt.Errorf("image: data URL %s has no comma", quoteShort(s))
	}
	mime, isB64 := strings.CutSuffix(strings.ToLower(head[len("data:"):]), ";base64")
	sub, isImage := strings.CutPrefix(mime, "image/")
	if !isImage || !isB64 || sub == "" || strings.ContainsFunc(sub, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '+' || r == '-')
	}) {
		return "", fmt.Errorf("image: data URL %s is not data:image/<type>;base64,…", quoteShort(s))
	}
	if _, err := base64.StdEncoding.DecodeString(payload); err != nil {
		return "", fmt.Errorf("image: data URL %s has invalid base64: %v", quoteShort(s), err)
	}
	return s, nil
}

// sniffImage returns the MIME type of an image by its signature, or "".
func sniffImage(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// quoteShort quotes s for an error message, cut to a readable length.
func quoteShort(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

func unwrapURLErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
