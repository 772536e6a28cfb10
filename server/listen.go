package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Serve serves s on ln until ctx ends, then shuts down gracefully: it stops
// accepting, ends the event streams, lets requests in flight finish (for at
// most Timeouts.Shutdown) and returns nil. Every connection is bounded by
// the timeouts (see WithTimeouts) and request headers by 64 KiB; at most
// Limits.Connections are open at once (see WithLimits).
//
// On a loopback listener, requests must name a loopback host (localhost,
// 127.0.0.1, [::1]): a web page elsewhere cannot reach the server through
// a DNS name it points at 127.0.0.1 (DNS rebinding).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	var h http.Handler = s
	if IsLoopback(ln.Addr().String()) {
		h = s.loopbackHosts(h)
	}
	t := s.cfg.timeouts
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.cfg.log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(s.events.closeAll)
	ln = limitConnections(ln, s.cfg.limits.Connections, &s.inflight.conns)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), t.Shutdown)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		_ = hs.Close()
		return fmt.Errorf("server: shutdown: %w", err)
	}
	return nil
}

// IsLoopback reports whether addr ("host:port", as --addr takes it) binds
// only the loopback interface. An empty host ("":8080) binds every
// interface; "localhost" counts as loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// loopbackHosts refuses requests whose Host header is not a loopback name.
func (s *Server) loopbackHosts(next http.Handler) http.Handler {
	refuse := s.count(s.setHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, requestProblem(kindHost, fmt.Sprintf("host %q is not a loopback name; this server listens on loopback only", r.Host)), nil)
	})))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !loopbackHost(host) {
			refuse.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
