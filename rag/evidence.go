package rag

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/seed-e7d2830f/promptkit/builders"
)

// This file turns evidence into template values. Every string that comes
// from a document or a tool goes through builders.EscapeXML, so it cannot
// close the tag around it, forge another or end an attribute.

// toolVar returns the template value of one tool result: {name, data,
// error, empty}, every string escaped. key names the result in errors.
func toolVar(key string, t ToolResult) (map[string]any, error) {
	v := map[string]any{"name": builders.EscapeXML(strings.TrimSpace(t.Tool)), "data": "", "error": "", "empty": false}
	if e := strings.TrimSpace(t.Error); e != "" {
		v["error"] = builders.EscapeXML(e)
		return v, nil
	}
	data, empty, err := toolData(t.Data)
	if err != nil {
		return nil, fail(key+".data", builders.ErrInvalidValue, "cannot encode as JSON", err)
	}
	v["data"], v["empty"] = data, empty
	return v, nil
}

// toolData renders a tool's data as compact JSON in which every string,
// object keys included, is XML-escaped; a string result is rendered as its
// escaped text. Numbers keep their exact form; object keys come out
// sorted. empty reports a result with nothing in it: null, "", [] or {}.
func toolData(data any) (text string, empty bool, err error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return "", false, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return "", false, err
	}
	switch t := tree.(type) {
	case nil:
		return "", true, nil
	case string:
		t = strings.TrimSpace(t)
		return builders.EscapeXML(t), t == "", nil
	case []any:
		empty = len(t) == 0
	case map[string]any:
		empty = len(t) == 0
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // nothing left to escape: no string holds <, > or & unescaped
	if err := enc.Encode(escapeTree(tree)); err != nil {
		return "", false, err
	}
	return strings.TrimSuffix(buf.String(), "\n"), empty, nil
}

// escapeTree returns a copy of a decoded JSON value with every string and
// object key XML-escaped.
func escapeTree(v any) any {
	switch v := v.(type) {
	case string:
		return builders.EscapeXML(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = escapeTree(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[builders.EscapeXML(k)] = escapeTree(x)
		}
		return out
	default: // json.Number, bool, nil
		return v
	}
}

// documentVars returns the template values of the document blocks:
// {intent, chunks: [{source, text}]}, with the intent's name (empty when
// it has none) and every string escaped.
func documentVars(docs []Retrieved, names map[string]string) []map[string]any {
	out := make([]map[string]any, len(docs))
	for i, g := range docs {
		chunks := make([]map[string]any, len(g.Chunks))
		for j, c := range g.Chunks {
			chunks[j] = map[string]any{"source": builders.EscapeXML(c.Source), "text": builders.EscapeXML(c.Text)}
		}
		out[i] = map[string]any{"intent": builders.EscapeXML(strings.TrimSpace(names[g.Intent])), "chunks": chunks}
	}
	return out
}

// escapeAll returns the strings of ss, escaped.
func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = builders.EscapeXML(s)
	}
	return out
}
