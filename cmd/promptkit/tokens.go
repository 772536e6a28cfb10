package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/server"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// --tokens ENC: the commands that show a prompt count its tokens with an
// encoding (o200k_base, cl100k_base, …) or a model's tokenizer.json, and
// say the count on stderr, so that stdout stays the prompt, byte for byte.

const tokensFlagHelp = "count tokens with ENC (o200k_base, cl100k_base, p50k_base, r50k_base, or a tokenizer.json path) and print the count on stderr"

func tokensFlag(fs *flag.FlagSet) *string {
	return fs.String("tokens", "", tokensFlagHelp)
}

// openCounter opens --tokens' value; a name or file it cannot use is bad
// usage (exit 2).
func openCounter(spec string) (*tokens.Tokenizer, error) {
	if spec == "" {
		return nil, nil
	}
	tok, err := tokens.Open(spec)
	if err != nil {
		return nil, usagef("--tokens %s: %v", spec, err)
	}
	return tok, nil
}

// countWith is tok's count in the form fixtures and diffs take.
func countWith(tok *tokens.Tokenizer) func(string) (int, error) {
	return func(text string) (int, error) { return tok.Count(text), nil }
}

// tokenizerOptions opens serve's --tokenizer NAME=PATH flags.
func tokenizerOptions(pairs varFlags) ([]server.Option, error) {
	var opts []server.Option
	for _, p := range pairs {
		name, path, ok := strings.Cut(p, "=")
		if !ok || name == "" || path == "" {
			return nil, usagef("--tokenizer %q: want NAME=PATH of a tokenizer.json", p)
		}
		tok, err := tokens.Open(path)
		if err != nil {
			return nil, usagef("--tokenizer %s: %v", p, err)
		}
		opts = append(opts, server.WithTokenizer(name, tok))
	}
	return opts, nil
}

// printCount writes "N tokens (NAME), M bytes" for text.
func printCount(w io.Writer, tok *tokens.Tokenizer, text string) {
	fmt.Fprintf(w, "%d tokens (%s), %d bytes\n", tok.Count(text), tok.Name(), len(text))
}

// printMessagesCount writes the tokens of each message's text and their
// sum: the contents only, which is what a template's author controls; the
// chat format of a model adds its own tokens around them (chat-template
// --tokens counts those with the model's template).
func printMessagesCount(w io.Writer, tok *tokens.Tokenizer, msgs []message.Message) {
	total := 0
	for i, m := range msgs {
		n := 0
		for _, p := range m.Parts {
			if p.Type == message.PartText {
				n += tok.Count(p.Text)
			}
		}
		total += n
		fmt.Fprintf(w, "message %d (%s): %d tokens\n", i+1, m.Role, n)
	}
	fmt.Fprintf(w, "%d tokens (%s) in the messages' text, without the tokens a model's chat format adds\n", total, tok.Name())
}

// worstCaseText says the most a render of the template prints
// (manager.WorstCase): in tokens for an OpenAI encoding, whose tokens are
// at least a byte each, in bytes for another tokenizer, or what leaves it
// unbounded.
func worstCaseText(m *manager.Manager, name string, tok *tokens.Tokenizer) string {
	w, ok := m.WorstCase(name)
	switch {
	case !ok:
		return "no bound computed"
	case !w.Bounded():
		places := w.Unbounded
		if len(places) > 3 {
			places = append(places[:3:3], fmt.Sprintf("and %d more", len(w.Unbounded)-3))
		}
		return "no bound on a render: " + strings.Join(places, "; ")
	case slices.Contains(tokens.Encodings(), tok.Name()):
		return fmt.Sprintf("a render prints at most %d tokens after every allowed cut (a bound in bytes)", w.Bytes)
	}
	return fmt.Sprintf("a render prints at most %d bytes after every allowed cut", w.Bytes)
}

// printFixedText writes, for each template of the set, the tokens of its
// fixed text: the literal text of its file outside tags (as Jinja's
// default environment reads it, whitespace control applied), each piece
// counted once wherever it stands — in a branch, a loop or a macro too —,
// and of that the part at the top level, which every render prints. A
// render adds its values, its repetitions and its includes on top.
func printFixedText(w io.Writer, dir string, m *manager.Manager, tok *tokens.Tokenizer) error {
	fsys := promptkit.FS()
	if dir != "" {
		fsys = os.DirFS(dir)
	}
	for _, t := range m.Templates() {
		src, err := fs.ReadFile(fsys, t.Path)
		if err != nil {
			return err
		}
		tree, err := jinja.Parse(t.Path, string(src), jinja.Options{})
		if err != nil {
			return err // the set loaded, so its files parse
		}
		var all, top strings.Builder
		jinja.InspectAll(tree.Root, func(n jinja.Node) bool {
			if tn, ok := n.(*jinja.TextNode); ok {
				all.WriteString(tn.Text)
			}
			return true
		})
		for _, n := range tree.Root {
			if tn, ok := n.(*jinja.TextNode); ok {
				top.WriteString(tn.Text)
			}
		}
		fmt.Fprintf(w, "%s: template %q: %d tokens (%s) of fixed text, %d of them printed by every render; %s\n",
			t.Path, t.Name, tok.Count(all.String()), tok.Name(), tok.Count(top.String()), worstCaseText(m, t.Name, tok))
	}
	return nil
}
