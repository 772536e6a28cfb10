package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/mcpserver"
	"github.com/seed-e7d2830f/promptkit/server"
)

// mcpServe is what "serve --mcp" was given.
type mcpServe struct {
	dir       string
	addr      string // "" for stdio
	mopts     []manager.Option
	renders   int
	queueWait time.Duration
	httpOnly  []string // flags given that only the HTTP API takes
}

// runServeMCP serves the set over MCP: on standard input and output, or
// over streamable HTTP at /mcp when --addr was given. A set that does not
// load is the command's error (exit 1): an MCP client that starts the
// command sees it end with the problems on stderr.
func runServeMCP(c *cli, o mcpServe) error {
	if len(o.httpOnly) > 0 {
		return usagef("--mcp serves prompts over MCP; %s belong to the HTTP API\n\n%s", joinFlags(o.httpOnly), serveUsage)
	}
	log := slog.New(slog.NewTextHandler(c.stderr, nil)) // never stdout: the protocol's channel
	mopts := []manager.Option{manager.WithLogger(log)}
	where := "the embedded set"
	if o.dir != "" { // watched: --debounce and --poll apply
		mopts, where = append(append(mopts, manager.WithWatch()), o.mopts...), o.dir
	}
	m, err := openSet(o.dir, mopts...)
	if err != nil {
		return err
	}
	defer m.Close()
	opts := []mcpserver.Option{mcpserver.WithLogger(log), mcpserver.WithMaxRenders(o.renders, o.queueWait)}
	token := os.Getenv(tokenEnv)
	if token != "" && o.addr != "" {
		opts = append(opts, mcpserver.WithToken(token))
	}
	s, err := mcpserver.New(m, opts...)
	if err != nil {
		return err
	}
	defer s.Close()

	if o.addr == "" {
		fmt.Fprintf(c.stderr, "promptkit serve: serving %s over MCP on standard input and output\n", where)
		if err := s.RunIO(c.ctx, c.stdin, c.stdout); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	if !server.IsLoopback(o.addr) {
		if token == "" {
			fmt.Fprintf(c.stderr, "promptkit serve: warning: listening beyond loopback without %s; put an authenticating proxy in front\n", tokenEnv)
		} else {
			fmt.Fprintf(c.stderr, "promptkit serve: listening beyond loopback; the token travels in clear text without TLS: put a TLS proxy in front\n")
		}
	}
	// The serving line comes last, when everything said at start is said.
	fmt.Fprintf(c.stderr, "promptkit serve: serving %s over MCP (streamable HTTP) at http://%s%s\n", where, ln.Addr(), mcpserver.Path)
	if err := s.Serve(c.ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(c.stderr, "promptkit serve: shut down")
	return nil
}

func joinFlags(names []string) string {
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " and "
		default:
			s += ", "
		}
		s += "--" + n
	}
	return s
}
