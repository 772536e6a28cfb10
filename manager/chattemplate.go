package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/message"
)

// Chat templates of models. A model's tokenizer_config.json carries a
// Jinja chat_template that turns a conversation into the exact prompt
// string the model was trained on. ChatTemplate applies one as Hugging
// Face's transformers does (apply_chat_template): with trim_blocks and
// lstrip_blocks on, {% break %} and {% continue %}, raise_exception and
// strftime_now as globals, and a tojson that keeps keys in their order and
// does not escape HTML; the conversation, tools and documents are read
// from JSON with the order of their keys kept.

// ChatTemplate is a model's chat template, checked and compiled: safe for
// concurrent use.
type ChatTemplate struct {
	name     string
	tmpl     *engine.Template
	vars     []string // every name the template reads
	bos, eos *string  // the config's special tokens, if it has them
	// special are the config's other special tokens, as transformers'
	// special_tokens_map has them (see ParseChatTemplateConfig).
	special []namedToken
	cfg     *config
}

// namedToken is one special token of a config: a string, or for
// additional_special_tokens a list of strings.
type namedToken struct {
	name  string
	value any
}

// otherSpecialTokens are the special tokens of a tokenizer config beyond
// bos_token and eos_token, in the order of transformers'
// SPECIAL_TOKENS_ATTRIBUTES.
var otherSpecialTokens = []string{"unk_token", "sep_token", "pad_token", "cls_token", "mask_token", "additional_special_tokens"}

// chatVars are the variables transformers passes to every chat template.
var chatVars = []string{"messages", "tools", "documents", "add_generation_prompt", "bos_token", "eos_token"}

// hfOptions is how transformers reads a chat template, and hfCatalog the
// builtins of its environment (made when a chat template is first parsed).
var (
	hfOptions = jinja.Options{TrimBlocks: true, LStripBlocks: true}
	hfCatalog = sync.OnceValue(func() jinja.Catalog { return engine.Catalog(engine.Options{HuggingFace: true}) })
)

// ParseChatTemplate checks and compiles a chat template's source. name
// names it in errors (a file name, say). Options are the manager's
// (limits, clock); WithWatch and the watch options do not apply. A source
// longer than a set's template may be (WithMaxInlined, 4 MiB) is refused
// before it is parsed.
func ParseChatTemplate(name, source string, opts ...Option) (*ChatTemplate, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return parseChatTemplate(name, source, cfg)
}

func parseChatTemplate(name, source string, cfg *config) (*ChatTemplate, error) {
	if cfg.watch {
		return nil, fmt.Errorf("%w: WithWatch does not apply to a chat template", ErrTemplate)
	}
	if len(source) > cfg.maxInlined {
		return nil, &Error{Kind: ErrTemplate, Template: name, Path: name,
			Msg: fmt.Sprintf("the chat template is %d bytes of source, over the limit of %d (WithMaxInlined)", len(source), cfg.maxInlined)}
	}
	l := newLoader(nil, cfg)
	tree, err := jinja.Parse(name, source, hfOptions)
	if err != nil {
		l.frontProblems(name, err)
		return nil, l.loadError()
	}
	// The template's own settings (enable_thinking, date_string, …) are
	// the names it reads beyond the conventional ones: optional variables,
	// undefined unless passed, as in transformers.
	declared := slices.Clone(chatVars)
	var prog *jinja.Program
	for range 2 {
		prog, err = jinja.Check(tree, &jinja.Config{Catalog: hfCatalog(), Declared: declared, Lenient: true,
			Load: func(string) (*jinja.Tree, error) {
				return nil, &jinja.LoadError{Kind: jinja.Include, Msg: "a chat template includes no file"}
			}})
		var list jinja.ErrorList
		if err == nil || !errors.As(err, &list) {
			break
		}
		more := false
		for _, e := range list {
			if e.Kind == jinja.Undeclared && !slices.Contains(declared, e.Name) && e.Name != "loop" &&
				e.Name != "caller" && e.Name != "varargs" && e.Name != "kwargs" && e.Name != "super" {
				declared, more = append(declared, e.Name), true
			}
		}
		if !more {
			break
		}
	}
	if err != nil {
		l.frontProblems(name, err)
		return nil, l.loadError()
	}
	t, err := engine.Compile(prog, engine.Options{HuggingFace: true})
	if err != nil {
		return nil, &Error{Kind: ErrTemplate, Template: name, Path: name, Msg: err.Error()}
	}
	ct := &ChatTemplate{name: name, tmpl: t, cfg: cfg}
	for n := range prog.Used {
		ct.vars = append(ct.vars, n)
	}
	sort.Strings(ct.vars)
	return ct, nil
}

// ParseChatTemplateConfig reads a tokenizer_config.json: its chat_template
// (a string, or a list of {"name", "template"} of which "default" is
// taken unless variant names another) and its special tokens — bos_token,
// eos_token, unk_token, sep_token, pad_token, cls_token and mask_token (a
// string or {"content": …}) and additional_special_tokens (a list of
// them) — which Apply passes as transformers' apply_chat_template passes
// its special_tokens_map: each that is set and not empty. A config larger
// than a file of a set may be (WithMaxFileBytes, 16 MiB) is refused before
// it is read, and its template as ParseChatTemplate refuses one.
func ParseChatTemplateConfig(name string, config []byte, variant string, opts ...Option) (*ChatTemplate, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if int64(len(config)) > cfg.maxFileBytes {
		return nil, &Error{Kind: ErrTemplate, Path: name,
			Msg: fmt.Sprintf("the config is %d bytes, over the limit of %d (WithMaxFileBytes)", len(config), cfg.maxFileBytes)}
	}
	return parseChatTemplateConfig(name, config, variant, cfg)
}

// OpenChatTemplateConfig is ParseChatTemplateConfig of the file at path,
// read as a set's files are: only a regular file (checked before it is
// opened, so a FIFO cannot block), only up to WithMaxFileBytes (checked
// before it is read).
func OpenChatTemplateConfig(path, variant string, opts ...Option) (*ChatTemplate, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	data, err := readLocalFile(path, cfg.maxFileBytes)
	if err != nil {
		return nil, &Error{Kind: ErrTemplate, Path: path, Msg: "cannot read the config: " + cleanFSErr(err).Error(), Err: err, causeInMsg: true}
	}
	return parseChatTemplateConfig(path, data, variant, cfg)
}

// OpenChatTemplate is ParseChatTemplate of the file at path, read as
// OpenChatTemplateConfig reads one, up to WithMaxInlined.
func OpenChatTemplate(path string, opts ...Option) (*ChatTemplate, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	data, err := readLocalFile(path, int64(cfg.maxInlined))
	if err != nil {
		return nil, &Error{Kind: ErrTemplate, Template: path, Path: path, Msg: "cannot read the template: " + cleanFSErr(err).Error(), Err: err, causeInMsg: true}
	}
	return parseChatTemplate(path, string(data), cfg)
}

// readLocalFile reads a file of the host's (a path as the user gives it,
// not confined to a set) with readSetFile's discipline.
func readLocalFile(path string, max int64) ([]byte, error) {
	dir, file := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	data, _, err := readSetFile(os.DirFS(dir), file, max)
	return data, err
}

func parseChatTemplateConfig(name string, config []byte, variant string, cfg *config) (*ChatTemplate, error) {
	var c struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOS          json.RawMessage `json:"bos_token"`
		EOS          json.RawMessage `json:"eos_token"`
	}
	var tokens map[string]json.RawMessage
	bad := func(format string, args ...any) error {
		return &Error{Kind: ErrTemplate, Path: name, Msg: fmt.Sprintf(format, args...)}
	}
	if err := json.Unmarshal(config, &c); err != nil {
		return nil, bad("not a tokenizer config: %v", cleanJSONErr(err))
	}
	_ = json.Unmarshal(config, &tokens)
	var src string
	switch {
	case len(c.ChatTemplate) == 0 || string(c.ChatTemplate) == "null":
		return nil, bad("the config has no chat_template")
	case c.ChatTemplate[0] == '"':
		if variant != "" && variant != "default" {
			return nil, bad("the config has one chat template; it has no variant %q", variant)
		}
		_ = json.Unmarshal(c.ChatTemplate, &src)
	default:
		var list []struct {
			Name     string `json:"name"`
			Template string `json:"template"`
		}
		if err := json.Unmarshal(c.ChatTemplate, &list); err != nil {
			return nil, bad("chat_template is neither a string nor a list of {name, template}: %v", cleanJSONErr(err))
		}
		if variant == "" {
			variant = "default"
		}
		var names []string
		for _, t := range list {
			names = append(names, t.Name)
			if t.Name == variant {
				src = t.Template
			}
		}
		if src == "" {
			return nil, bad("the config has no chat template %q (it has: %s)", variant, strings.Join(names, ", "))
		}
	}
	ct, err := parseChatTemplate(name, src, cfg)
	if err != nil {
		return nil, err
	}
	if ct.bos, err = specialToken(c.BOS); err != nil {
		return nil, bad("bos_token: %v", err)
	}
	if ct.eos, err = specialToken(c.EOS); err != nil {
		return nil, bad("eos_token: %v", err)
	}
	for _, n := range otherSpecialTokens {
		raw := tokens[n]
		if n != "additional_special_tokens" {
			tok, err := specialToken(raw)
			if err != nil {
				return nil, bad("%s: %v", n, err)
			}
			if tok != nil && *tok != "" {
				ct.special = append(ct.special, namedToken{name: n, value: *tok})
			}
			continue
		}
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, bad("%s: want a list of tokens", n)
		}
		var toks []any
		for i, r := range list {
			tok, err := specialToken(r)
			if err != nil || tok == nil {
				return nil, bad("%s[%d]: want a string or {\"content\": …}", n, i)
			}
			toks = append(toks, *tok)
		}
		if len(toks) > 0 {
			ct.special = append(ct.special, namedToken{name: n, value: toks})
		}
	}
	return ct, nil
}

// specialToken reads a token as a config writes it: a string, or an
// object with its content; absent or null is no token.
func specialToken(raw json.RawMessage) (*string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return &s, nil
	}
	var o struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &o); err != nil || o.Content == nil {
		return nil, fmt.Errorf("want a string or {\"content\": …}")
	}
	return o.Content, nil
}

// Variables returns the names the template reads, sorted: the
// conventional ones it uses and its own settings.
func (t *ChatTemplate) Variables() []string { return slices.Clone(t.vars) }

// ChatInput is what a chat template is applied to, as transformers'
// apply_chat_template takes it. The conversation and the tools come in one
// of three forms each: as Go values (Messages, Tools), as JSON
// (MessagesJSON, ToolsJSON: the form the CLI and promptkit serve read), or
// as JSON decoded beforehand (MessagesValue, ToolsValue: see ChatValue); the
// template gets the same values whichever form, so the same conversation
// renders the same prompt. Each message reaches the template as its JSON
// has it (message.Message's Chat Completions shape: tool_calls,
// function.arguments as a string or, with ObjectArguments, a dict), and
// JSON is read with the order of object keys kept, so a tool's parameters
// reach tojson in the order they were written. Absent Tools and Documents
// are None. Vars are the template's own settings, each JSON (e.g.
// "enable_thinking": false).
type ChatInput struct {
	Messages     []message.Message
	Tools        []message.Tool
	MessagesJSON json.RawMessage // a list of messages
	ToolsJSON    json.RawMessage // a list of tools
	Documents    json.RawMessage // a list of documents, as JSON
	// MessagesValue, ToolsValue and DocumentsValue are the same lists
	// decoded once beforehand (DecodeChatValue).
	MessagesValue, ToolsValue, DocumentsValue ChatValue
	// AddGenerationPrompt ends the prompt where the model's answer starts.
	AddGenerationPrompt bool
	Vars                map[string]json.RawMessage
	// BOS and EOS replace the config's tokens when not nil.
	BOS, EOS *string
}

// ChatValue is JSON decoded once for chat templates (DecodeChatValue): the
// tools a server offers with every request, say, decoded when it starts
// rather than on each request, or a whole request, whose members Get
// picks. It holds what its JSON holds as the template reads it (keys in
// their order, integers apart from floats) and never changes, so any
// number of applications may share it at once. The zero ChatValue is not
// given.
type ChatValue struct{ v engine.Value }

// DecodeChatValue decodes one JSON value for ChatInput. Invalid JSON is an
// error naming its line and column; so is an integer beyond 64 bits.
func DecodeChatValue(data []byte) (ChatValue, error) {
	v, err := engine.DecodeJSON(data)
	if err != nil {
		return ChatValue{}, err
	}
	return ChatValue{v}, nil
}

// Get returns the member key of an object, and whether the value is an
// object that has it. The member shares the memory of the whole decoded
// value (its strings are parts of one copy of the JSON text).
func (c ChatValue) Get(key string) (ChatValue, bool) {
	v, ok := engine.Member(c.v, key)
	return ChatValue{v}, ok
}

func (c ChatValue) given() bool { return c.v.Kind() != engine.Undefined }

// Apply renders the conversation into the model's prompt string, as
// transformers' apply_chat_template(…, tokenize=False) does. A template
// that refuses the conversation (raise_exception) is an *Error wrapping
// ErrRaised with the template's message. A setting the template does not
// read is ignored (Variables lists those it reads). The messages or the
// tools given in more than one form is an error; a message or tool that
// has no JSON form is an error naming its path. The input given as JSON
// is at most the render's memory budget (WithMaxMemory), checked before
// it is decoded: ErrOutputLimit beyond (typed and decoded inputs are
// already in the host's memory). Tools or documents the template never
// reads (Variables) are checked, with the errors decoding them would
// give, and not decoded.
func (t *ChatTemplate) Apply(ctx context.Context, in ChatInput) (string, error) {
	vars := map[string]any{"add_generation_prompt": in.AddGenerationPrompt}
	size := len(in.MessagesJSON) + len(in.ToolsJSON) + len(in.Documents)
	for _, raw := range in.Vars {
		size += len(raw)
	}
	if size > t.cfg.limits.MaxMemory {
		return "", &Error{Kind: ErrOutputLimit, Template: t.name, Path: t.name,
			Msg: fmt.Sprintf("the input is %d bytes of JSON, over the render's memory limit of %d (WithMaxMemory)", size, t.cfg.limits.MaxMemory)}
	}
	var typedMessages, typedTools func(message.TokenWriter) error
	if in.Messages != nil {
		typedMessages = func(w message.TokenWriter) error { return message.WriteMessages(w, in.Messages) }
	}
	if in.Tools != nil {
		typedTools = func(w message.TokenWriter) error { return message.WriteTools(w, in.Tools) }
	}
	for _, x := range []struct {
		what  string
		typed func(message.TokenWriter) error
		raw   json.RawMessage
		value ChatValue
	}{
		{"messages", typedMessages, in.MessagesJSON, in.MessagesValue},
		{"tools", typedTools, in.ToolsJSON, in.ToolsValue},
		{"documents", nil, in.Documents, in.DocumentsValue},
	} {
		v, err := t.input(x.what, x.typed, x.raw, x.value)
		if err != nil {
			return "", err
		}
		vars[x.what] = v
	}
	for _, tok := range []struct {
		name      string
		given, of *string
	}{{"bos_token", in.BOS, t.bos}, {"eos_token", in.EOS, t.eos}} {
		switch {
		case tok.given != nil:
			vars[tok.name] = *tok.given
		case tok.of != nil:
			vars[tok.name] = *tok.of
		}
	}
	for _, tok := range t.special {
		if slices.Contains(t.vars, tok.name) {
			vars[tok.name] = tok.value // a setting of the same name wins, as in transformers
		}
	}
	for k, raw := range in.Vars {
		if slices.Contains(chatVars, k) {
			return "", &Error{Kind: ErrExtraVariables, Template: t.name, Variables: []string{k},
				Msg: fmt.Sprintf("%s is a field of the input, not a setting", k)}
		}
		// A setting the template does not read is ignored, as transformers
		// ignores it: hosts pass the same settings (enable_thinking) to the
		// templates of every model they serve.
		if !slices.Contains(t.vars, k) {
			continue
		}
		v, err := t.input(k, nil, raw, ChatValue{})
		if err != nil {
			return "", err
		}
		vars[k] = v
	}
	ctx, cancel := t.cfg.renderContext(ctx)
	if cancel != nil {
		defer cancel()
	}
	out, err := t.tmpl.Render(ctx, vars, &t.cfg.limits)
	if err != nil {
		c := &compiled{info: Template{Name: t.name, Path: t.name}}
		return "", c.renderError(err)
	}
	return out, nil
}

// input is the value of one of the input's lists (or a setting), given
// as Go values written as their JSON (typed), as JSON (raw) or decoded
// (value), at most one of them; none is None. An input the template does
// not read (Phi-3.5 reads no tools) is checked as it would be decoded,
// with the same errors, and not built: its value is nil.
func (t *ChatTemplate) input(what string, typed func(message.TokenWriter) error, raw json.RawMessage, value ChatValue) (any, error) {
	read := slices.Contains(t.vars, what)
	var forms []string
	for _, f := range []struct {
		given bool
		name  string
	}{{typed != nil, "Go values"}, {len(raw) > 0, "JSON"}, {value.given(), "a decoded ChatValue"}} {
		if f.given {
			forms = append(forms, f.name)
		}
	}
	switch {
	case len(forms) > 1:
		return nil, &Error{Kind: ErrTemplate, Template: t.name, Variables: []string{what},
			Msg: fmt.Sprintf("%s given twice: as %s", what, strings.Join(forms, " and as "))}
	case typed != nil:
		var v any
		var err error
		if read {
			var w engine.ValueWriter
			if err = typed(&w); err == nil {
				v = w.Value()
			}
		} else {
			err = typed(&engine.CheckWriter{})
		}
		if err != nil {
			return nil, &Error{Kind: ErrTemplate, Template: t.name, Variables: []string{what}, Msg: err.Error(), Err: err, causeInMsg: true}
		}
		return v, nil
	case len(raw) > 0:
		var err error
		var v any
		if read {
			v, err = engine.DecodeJSON(raw)
		} else {
			err = engine.CheckJSON(raw)
		}
		if err != nil {
			return nil, &Error{Kind: ErrTemplate, Template: t.name, Variables: []string{what}, Msg: fmt.Sprintf("%s: invalid JSON: %v", what, err)}
		}
		return v, nil
	case value.given():
		return value.v, nil
	}
	return nil, nil
}
