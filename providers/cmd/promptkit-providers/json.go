package main

import (
	"bytes"
	"encoding/json"
)

// jsonOf writes v as JSON, indented, HTML left unescaped, as the promptkit
// command prints JSON.
func jsonOf(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
