package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Server serves the templates of one manager's set as MCP prompts. Make
// one with New, run it on a transport (Run for stdio, Serve or Handler for
// streamable HTTP) and Close it when done; Close leaves the manager open.
type Server struct {
	m       *manager.Manager
	cfg     config
	srv     *mcp.Server
	renders chan struct{} // a slot per render running (WithMaxRenders)

	mu          sync.Mutex // serializes syncs of the prompt list
	names       []string   // the prompts registered, sorted; under mu
	unsubscribe func()
	closeOnce   sync.Once
}

// New makes a server for the set m serves. Every template becomes a
// prompt at once; every successful reload of m — a watched directory's
// edit, Reload, a fleet follower's update — registers the set again and
// tells every client with notifications/prompts/list_changed.
func New(m *manager.Manager, opts ...Option) (*Server, error) {
	if m == nil {
		return nil, errors.New("mcpserver: nil manager")
	}
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
	}
	s := &Server{m: m, cfg: cfg, renders: make(chan struct{}, cfg.maxRenders)}
	impl := cfg.impl
	if impl == nil {
		impl = &mcp.Implementation{Name: "promptkit", Version: moduleVersion()}
	}
	s.srv = mcp.NewServer(impl, &mcp.ServerOptions{
		Logger:            sdkLogger(cfg.log),
		CompletionHandler: s.complete,
		// Prompts and completions only: no logging capability, and the
		// prompts capability even for a set without templates, so a
		// client listens for the set that comes next.
		Capabilities: &mcp.ServerCapabilities{
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Completions: &mcp.CompletionCapabilities{},
		},
	})
	// The SDK answers a prompt it does not have with a bare "unknown
	// prompt"; promptkit's answer names the prompt it may misspell.
	s.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.GetPromptRequest); ok && r.Params != nil {
				if _, known := s.m.Lookup(r.Params.Name); !known {
					return nil, s.unknownPrompt(r.Params.Name)
				}
			}
			return next(ctx, method, req)
		}
	})
	s.sync()
	s.unsubscribe = m.Subscribe(func(ev manager.ReloadEvent) {
		if ev.Err == nil {
			s.sync()
		}
	})
	return s, nil
}

// moduleVersion is promptkit's version as the binary's build information
// records it: "(devel)", or the pseudo-version go build stamps from a
// checkout's commit.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
			if d.Path == "github.com/seed-e7d2830f/promptkit" && d.Version != "" {
				return d.Version
			}
		}
	}
	return "(devel)"
}

// sync registers the prompts of the set serving now: the templates gone
// are removed, every other one is registered again (its variables or
// description may have changed), and the SDK sends one
// notifications/prompts/list_changed to every session for the lot.
func (s *Server) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := s.m.Templates()
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	var gone []string
	for _, n := range s.names {
		if _, found := slices.BinarySearch(names, n); !found {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		s.srv.RemovePrompts(gone...)
	}
	for _, t := range ts {
		s.srv.AddPrompt(s.prompt(t), s.get)
	}
	s.names = names
	s.cfg.log.Info("promptkit: MCP prompts registered", "prompts", len(names), "removed", len(gone),
		"generation", s.m.Generation(), "digest", s.m.Digest())
}

// MCP returns the SDK's server, for a host that runs it on a transport of
// its own (s.MCP().Connect, an mcp.NewStreamableHTTPHandler of its own) or
// adds tools and resources beside the prompts.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one client over t — &mcp.StdioTransport{} for a server an
// MCP client starts as a command — until the client disconnects or ctx
// ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.srv.Run(ctx, t)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Close stops following the manager's reloads. It does not close the
// manager, nor sessions: end Run's or Serve's context for those.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.unsubscribe() })
	return nil
}

// acquire takes a render slot, waiting at most the queue wait.
func (s *Server) acquire(ctx context.Context) (release func(), err error) {
	select {
	case s.renders <- struct{}{}:
		return func() { <-s.renders }, nil
	default:
	}
	t := time.NewTimer(s.cfg.queueWait)
	defer t.Stop()
	select {
	case s.renders <- struct{}{}:
		return func() { <-s.renders }, nil
	case <-t.C:
		return nil, errOverloaded
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// logger returns l, or a logger that discards.
func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
