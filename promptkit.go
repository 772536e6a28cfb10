// Package promptkit keeps the prompts of an LLM program in reviewed
// template files and assembles them, strictly and safely, into what a model
// receives. This root package only carries the default template set; the
// work is done by the packages below it:
//
//   - manager: loads index.json and templates, renders under strict checks;
//   - builders: one Builder per prompt scene, XML-escaping untrusted values;
//   - service: the registry of builders that plugin hosts inject;
//   - cmd/promptkit: the CLI for template authors and CI.
package promptkit

import (
	"embed"
	"io/fs"
)

//go:embed index.json templates
var defaultSet embed.FS

// FS returns the default template set: index.json at its root and the
// templates it declares. Pass it to manager.New.
func FS() fs.FS { return defaultSet }
