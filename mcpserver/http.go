package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where Serve answers MCP's streamable HTTP transport.
const Path = "/mcp"

// The bounds of the HTTP transport (Handler, Serve).
const (
	// MaxBodyBytes bounds a request's body: a JSON-RPC message of
	// arguments, never large.
	MaxBodyBytes = 1 << 20
	// SessionIdle closes a session that sent no request for this long; a
	// client that comes back starts a new one.
	SessionIdle = 30 * time.Minute
	// ShutdownGrace is how long Serve waits, once its context ends, for
	// requests in flight before it closes every connection.
	ShutdownGrace = 2 * time.Second
)

// Handler is the streamable HTTP transport of MCP: mount it where clients
// connect (Serve mounts it at Path). Sessions are kept, so each client
// gets notifications/prompts/list_changed on its stream. It refuses a
// request that reached a loopback address with a Host that is not a
// loopback name (DNS rebinding: the SDK's protection), a browser's
// cross-origin request (http.CrossOriginProtection), a body over
// MaxBodyBytes and, with WithToken, a request without the bearer token.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Logger:              sdkLogger(s.cfg.log),
		SessionTimeout:      SessionIdle,
		MaxRequestBodyBytes: MaxBodyBytes,
	})
	protected := http.NewCrossOriginProtection().Handler(h)
	if s.cfg.token == "" {
		return protected
	}
	want := []byte("Bearer " + s.cfg.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="promptkit"`)
			http.Error(w, "unauthorized: send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// Serve serves the streamable HTTP transport at Path on ln until ctx
// ends, then closes every session and shuts down. Connections have header
// and idle timeouts but no write timeout: a session's event stream stays
// open for the notifications.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle(Path, s.Handler())
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcpserver: %w", err)
	case <-ctx.Done():
	}
	for ss := range s.srv.Sessions() {
		_ = ss.Close() // ends its event stream, so Shutdown need not wait for it
	}
	// A connection a client opened and never sent a request on is not
	// idle to Shutdown for its first 5 seconds: after a grace period
	// whatever is left is closed.
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
		s.cfg.log.Warn("promptkit: MCP connections still open after the grace period; closing them", "grace", ShutdownGrace)
		_ = hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcpserver: %w", err)
	}
	return nil
}
