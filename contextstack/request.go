package contextstack

import (
	"slices"
	"time"

	"github.com/seed-e7d2830f/promptkit/message"
)

// Message is one message of the conversation history: promptkit's one
// chat message type, so a history read from a request can go to a chat
// template or a model API unchanged. Roles are message.RoleSystem and the
// others of package message.
type Message = message.Message

// Request is what one model call receives: a system prompt, the history,
// the tools offered this turn and the documents. A Request is a snapshot:
// the stack is the truth, and DeriveRequest makes a fresh Request from it
// before every call.
type Request struct {
	System     string     `json:"system,omitempty"`
	Messages   []Message  `json:"messages,omitempty"`
	Tools      []ToolSpec `json:"tools,omitempty"`
	ToolChoice ToolChoice `json:"tool_choice,omitzero"`
	Documents  []Document `json:"documents,omitempty"`
	Bundles    []Bundle   `json:"bundles,omitempty"`
	// Time is when DeriveRequest made the snapshot; zero on an incoming
	// request.
	Time time.Time `json:"time,omitzero"`
}

// FromRequest builds the initial stack of a run from an incoming request:
// its system prompt as a UserInstructions layer, its tools as one
// ToolDefinitions layer, each document as a Document layer, its bundles
// as one ContentBundles layer — all with source SourceRequest, and only
// for what the request has. Messages stay in the request.
//
// The stack is not validated; DeriveRequest validates it, and so reports
// a request that brought two tools with one name.
func FromRequest(req Request) Stack {
	var layers []Layer
	add := func(c Content) { layers = append(layers, Layer{Source: SourceRequest, Content: c}) }
	if req.System != "" {
		add(UserInstructions{Text: req.System})
	}
	if len(req.Tools) > 0 {
		add(ToolDefinitions{Tools: req.Tools})
	}
	for _, d := range req.Documents {
		add(d)
	}
	if len(req.Bundles) > 0 {
		add(ContentBundles{Bundles: req.Bundles})
	}
	return NewStack(layers...)
}

// DeriveOption configures DeriveRequest.
type DeriveOption func(*deriveConfig)

type deriveConfig struct {
	clock Clock
}

// WithClock stamps the derived request's Time with c instead of
// SystemClock.
func WithClock(c Clock) DeriveOption {
	return func(cfg *deriveConfig) {
		if c != nil {
			cfg.clock = c
		}
	}
}

// DeriveRequest makes the request for the next model call from base and
// the current stack:
//
//   - System is the stack's system prompt, rendered through r afresh;
//   - Messages are base's, without any system message, so no stale system
//     text survives from an earlier turn;
//   - Tools are the stack's tools that base.ToolChoice offers, after the
//     stack is validated (a tool name conflict is an error);
//   - Documents and Bundles are the stack's;
//   - ToolChoice is base's, and Time is the clock's now.
//
// base is not changed. Whatever base had in System, Tools, Documents and
// Bundles is replaced: the stack is the truth.
func (s Stack) DeriveRequest(base Request, r Renderer, opts ...DeriveOption) (Request, error) {
	cfg := deriveConfig{clock: SystemClock}
	for _, o := range opts {
		o(&cfg)
	}
	tools, err := s.SelectTools(base.ToolChoice)
	if err != nil {
		return Request{}, err
	}
	system, err := s.SystemPromptText(r)
	if err != nil {
		return Request{}, err
	}
	msgs := make([]Message, 0, len(base.Messages))
	for _, m := range base.Messages {
		if m.Role != message.RoleSystem {
			msgs = append(msgs, m)
		}
	}
	return Request{
		System:     system,
		Messages:   slices.Clip(msgs),
		Tools:      tools,
		ToolChoice: base.ToolChoice,
		Documents:  s.AllDocuments(),
		Bundles:    s.AllBundles(),
		Time:       cfg.clock.Now(),
	}, nil
}
