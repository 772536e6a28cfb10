// Package clean holds Go code that the linter must not report.
package clean

import (
	"errors"
	"fmt"
	"log/slog"
)

// ErrEmpty is an error message: English and short.
var ErrEmpty = errors.New("clean: empty input")

type record struct {
	Name string `json:"name" desc:"名字"`
}

func check(name string) error {
	if name == "" {
		return fmt.Errorf("check %q: %w", name, ErrEmpty)
	}
	slog.Info("checked record", "name", name, "size", len(name))
	fmt.Printf("%s: %d bytes\n", name, len(name))
	return nil
}

// A usage text is prose, and says why it is allowed.
//
//promptkit:allow-inline CLI help text, not a prompt
const usage = `Usage: clean NAME

Checks that NAME is not empty and prints its size in bytes.
`

//promptkit:allow-inline a table of display names, shown to people
var (
	names = map[string]string{
		"zh": "中文",
		"ja": "日本語",
	}
)

func defaults() string {
	//promptkit:allow-inline the default bot name is configuration
	return fmt.Sprint(
		"麦麦",
	)
}

var _ = record{}
