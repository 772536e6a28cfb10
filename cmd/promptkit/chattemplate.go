package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/suggest"
	"github.com/seed-e7d2830f/promptkit/manager"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const chatTemplateUsage = `Usage: promptkit chat-template (--config tokenizer_config.json | --template FILE)
         --messages FILE|- [--tools FILE] [--documents FILE] [--add-generation-prompt]
         [--set KEY=JSON]... [--allow-unused] [--bos TOKEN] [--eos TOKEN] [--variant NAME] [--now TIME]
         [--tokens tokenizer.json]

Applies a model's chat template to a conversation and prints the prompt
string exactly, as Hugging Face transformers' apply_chat_template does:
trim_blocks and lstrip_blocks on, {% break %}/{% continue %},
raise_exception and strftime_now, and a tojson that keeps keys in their
order. --config reads the template and bos_token/eos_token from a
tokenizer_config.json (--variant picks one of several named templates);
--template reads a template file; every special token of the config
(bos_token, eos_token, pad_token, unk_token, sep_token, cls_token,
mask_token, additional_special_tokens) is passed, as transformers passes
them. --messages, --tools and --documents are JSON lists (the order of
keys is kept); --set passes one of the template's own settings as JSON
(--set enable_thinking=false): a name the template never reads is an
error, with the name it may mean, unless --allow-unused; --now fixes
strftime_now's clock (RFC 3339). A template that refuses the conversation
(raise_exception) exits 1 with its message. --tokens counts the prompt
with the model's tokenizer.json (or an encoding) and prints the count on
stderr: the chat's exact size, special tokens included, one id each.

Example:
  promptkit chat-template --config tokenizer_config.json --messages chat.json --add-generation-prompt
`

// maxChatInput bounds each JSON input file: the render's memory budget
// (manager.WithMaxMemory's default), which Apply holds the inputs to.
const maxChatInput = 4 * manager.DefaultMaxOutputBytes

// readBounded reads a file, or standard input for "-", refusing it
// beyond max bytes: a regular file by its size before it is read, a pipe
// by reading no more than max+1 bytes.
func readBounded(flag, name string, stdin io.Reader, max int64) ([]byte, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, usagef("--%s: %v", flag, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
			return nil, usagef("--%s %s: %d bytes, over the limit of %d", flag, name, fi.Size(), max)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, usagef("--%s: %v", flag, err)
	}
	if int64(len(data)) > max {
		return nil, usagef("--%s %s: over the limit of %d bytes", flag, name, max)
	}
	return data, nil
}

func runChatTemplate(c *cli, args []string) error {
	fs := c.newFlags("chat-template", chatTemplateUsage)
	config := fs.String("config", "", "tokenizer_config.json holding chat_template")
	tmplFile := fs.String("template", "", "a chat template file (instead of --config)")
	variant := fs.String("variant", "", "the named template of a config with several")
	msgsFile := fs.String("messages", "", "JSON list of messages, or - for stdin")
	toolsFile := fs.String("tools", "", "JSON list of tools")
	docsFile := fs.String("documents", "", "JSON list of documents")
	genPrompt := fs.Bool("add-generation-prompt", false, "end with the start of the assistant's turn")
	bos := fs.String("bos", "", "bos_token (default: the config's)")
	eos := fs.String("eos", "", "eos_token (default: the config's)")
	now := fs.String("now", "", "strftime_now's time, RFC 3339 (default: now)")
	counter := tokensFlag(fs)
	var sets varFlags
	fs.Var(&sets, "set", "KEY=JSON, a setting of the template (repeatable)")
	allowUnused := fs.Bool("allow-unused", false, "pass a --set the template never reads (as transformers ignores it)")
	pos, err := c.parse(fs, chatTemplateUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("chat-template takes no arguments, only flags\n\n%s", chatTemplateUsage)
	}
	if (*config == "") == (*tmplFile == "") {
		return usagef("chat-template needs --config or --template (one of them)\n\n%s", chatTemplateUsage)
	}
	if *msgsFile == "" {
		return usagef("chat-template needs --messages\n\n%s", chatTemplateUsage)
	}
	tok, err := openCounter(*counter)
	if err != nil {
		return err
	}
	var opts []manager.Option
	if *now != "" {
		t, err := time.Parse(time.RFC3339, *now)
		if err != nil {
			return usagef("--now %q: want an RFC 3339 time such as 2026-01-15T09:30:00Z", *now)
		}
		opts = append(opts, manager.WithClock(func() time.Time { return t }))
	}
	// The config and the template are read as a set's files are (a
	// regular file, within the size limits, refused before it is parsed).
	var ct *manager.ChatTemplate
	from := "--config"
	if *config != "" {
		ct, err = manager.OpenChatTemplateConfig(*config, *variant, opts...)
	} else {
		if *variant != "" {
			return usagef("--variant picks a template of a --config")
		}
		from = "--template"
		ct, err = manager.OpenChatTemplate(*tmplFile, opts...)
	}
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission):
		return usagef("%s: %v", from, err)
	case err != nil:
		printProblems(c.stderr, err)
		return errReported
	}
	in := manager.ChatInput{AddGenerationPrompt: *genPrompt, Vars: map[string]json.RawMessage{}}
	for _, f := range []struct {
		flag, file string
		to         *json.RawMessage
	}{{"messages", *msgsFile, &in.MessagesJSON}, {"tools", *toolsFile, &in.ToolsJSON}, {"documents", *docsFile, &in.Documents}} {
		if f.file == "" {
			continue
		}
		data, err := readBounded(f.flag, f.file, c.stdin, maxChatInput)
		if err != nil {
			return err
		}
		if !json.Valid(data) {
			return usagef("--%s %s: invalid JSON", f.flag, f.file)
		}
		*f.to = data
	}
	reads := ct.Variables()
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || !json.Valid([]byte(v)) {
			return usagef("--set %q: want KEY=JSON, such as enable_thinking=false or date_string='\"26 Jul 2024\"'", s)
		}
		if !*allowUnused && !slices.Contains(reads, k) {
			msg := fmt.Sprintf("--set %s: the template never reads %q", k, k)
			if best := suggest.Closest(k, reads); best != "" {
				msg += fmt.Sprintf("; did you mean %q?", best)
			}
			return usagef("%s (it reads: %s; --allow-unused passes it anyway)", msg, strings.Join(reads, ", "))
		}
		in.Vars[k] = json.RawMessage(v)
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "bos":
			in.BOS = bos
		case "eos":
			in.EOS = eos
		}
	})
	out, err := ct.Apply(c.ctx, in)
	if err != nil {
		return err
	}
	if err := c.writePrompt(out); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if tok != nil {
		printCount(c.stderr, tok, out)
	}
	return nil
}
