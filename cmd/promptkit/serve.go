package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/server"
	"github.com/seed-e7d2830f/promptkit/service"
)

// tokenEnv names the environment variable that holds serve's bearer token.
const tokenEnv = "PROMPTKIT_TOKEN"

//promptkit:allow-inline CLI help text with an example, not a prompt
const serveUsage = `Usage: promptkit serve [--dir DIR] [--addr HOST:PORT] [--dev] [--save-fixtures] [--mcp]
                       [--debounce D] [--poll D] [--bot-name NAME] [--note-prefix PREFIX]
                       [--max-connections N] [--max-renders N] [--queue-wait D]
                       [--max-response-bytes N] [--max-response-memory N]
                       [--tokenizer NAME=tokenizer.json]...

Serves a template set over HTTP for hosts not written in Go, hot-reloaded
as "promptkit watch" does:

  GET  /v1/templates                   every template and its declaration
  POST /v1/templates/{name}:render     JSON variables in, the prompt as text out
  POST /v1/templates/{name}:messages   the chat messages as JSON
  POST /v1/templates/{name}:request    the request its call contract declares, provider-neutral
                                       (?provider=openai|anthropic is served by the providers
                                       module's promptkit-providers serve, which links the SDKs)
  GET  /v1/builders                    the service's builders
  POST /v1/builders/{name}:build       {"task": {…}, "data": {…}} as "build" reads them
  GET  /v1/status, /v1/events          the set's status, and a stream of it
  GET  /healthz, /metrics              health, and Prometheus metrics

Errors are JSON with kind, template, path, line, column, variables and
message. Every response names the set in the Promptkit-Digest and
Promptkit-Generation headers.

--dev also serves the live preview page at /: pick a template, fill in its
variables, see the prompt the server renders and the set's problems beside
their lines; it follows every edit on disk. Without --dir, --dev serves the
current directory when it holds index.json, else the embedded set. The
page also lists the set's fixtures as samples to fill the form with, and
shows what the last edit did to every fixture's output; --save-fixtures
lets it save the form as a new fixture (and golden file) into the set's
directory.

--mcp serves the set's templates as MCP prompts instead, for agents and
IDEs (the Model Context Protocol: prompts/list, prompts/get with the
strict checks, completion of enum values, and
notifications/prompts/list_changed after every reload): on standard input
and output, as an MCP client starts a server, or with --addr HOST:PORT over
streamable HTTP at http://HOST:PORT/mcp (` + tokenEnv + ` applies there
too). It takes --dir, --debounce, --poll, --max-renders and --queue-wait;
a set that does not load stops it with every problem on stderr (exit 1).

Listens on 127.0.0.1:8080 by default: loopback only. To listen beyond it
give --addr explicitly, set ` + tokenEnv + ` (then every request but
/healthz needs "Authorization: Bearer TOKEN"; open /?token=TOKEN for the
page), and put an authenticating proxy with TLS in front. Ctrl-C or
SIGTERM shuts down gracefully, then exits 130 or 143. If the set in DIR does not load, serve
starts anyway, answers 503 with the problems, and loads it once fixed.

Work in flight is bounded: at most --max-connections connections are open
(one more waits until one closes), --max-renders renders run at once, one
response is at most --max-response-bytes, and the responses being written
hold at most --max-response-memory bytes in all. A request that finds no
render or memory free within --queue-wait is answered 503 with
Retry-After; errors quote at most 2 KiB of any value.

Flags:
  --dir DIR        the template directory (default: the embedded set, fixed)
  --addr HOST:PORT where to listen (default 127.0.0.1:8080; port 0 picks one)
  --dev            serve the preview page and the set's files
  --save-fixtures  let the page save fixtures into the directory (with --dev)
  --mcp            serve MCP prompts: on stdin/stdout, or at /mcp with --addr
  --debounce D     quiet period after a change before reloading (default 100ms)
  --poll D         also poll every D, where the platform reports no changes
  --bot-name NAME, --note-prefix PREFIX   the service's defaults, as for build
  --max-connections N      connections open at once (default ` + maxConnsDefault + `)
  --max-renders N          renders and builds running at once (default ` + maxRendersDefault + `)
  --queue-wait D           how long a request waits for a render or memory (default ` + queueWaitDefault + `)
  --max-response-bytes N   bytes of one response (default ` + maxRespDefault + `, 16 MiB)
  --max-response-memory N  bytes of all responses being written (default ` + maxRespMemDefault + `, 256 MiB)
  --tokenizer NAME=PATH   a model's tokenizer.json that ?tokens=NAME counts with,
                   besides OpenAI's encodings (POST …:render?tokens=o200k_base
                   answers the count in the Promptkit-Tokens header)

Example:
  promptkit serve --dir ./prompts --dev
  promptkit serve --mcp --dir ./prompts          # an MCP client's command
  curl -s localhost:8080/v1/templates/title:render -d '{"intent": "查询明天的天气"}'
`

// The defaults of the limits, as the help prints them.
const (
	maxConnsDefault   = "256"
	maxRendersDefault = "16"
	queueWaitDefault  = "1s"
	maxRespDefault    = "16777216"
	maxRespMemDefault = "268435456"
)

func runServe(c *cli, args []string) error {
	fs := c.newFlags("serve", serveUsage)
	dir := fs.String("dir", "", "template set directory (default: the embedded set)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	dev := fs.Bool("dev", false, "serve the preview page")
	mcpMode := fs.Bool("mcp", false, "serve the set's templates as MCP prompts")
	saveFixtures := fs.Bool("save-fixtures", false, "let the page save fixtures")
	debounce := fs.Duration("debounce", manager.DefaultDebounce, "quiet period")
	poll := fs.Duration("poll", 0, "polling interval")
	botName := fs.String("bot-name", "", "default bot name")
	notePrefix := fs.String("note-prefix", "", "prefix of generated note ids")
	var limits server.Limits
	fs.IntVar(&limits.Connections, "max-connections", server.DefaultMaxConnections, "connections open at once")
	fs.IntVar(&limits.Renders, "max-renders", server.DefaultMaxRenders, "renders running at once")
	fs.DurationVar(&limits.QueueWait, "queue-wait", server.DefaultQueueWait, "wait for a render or memory")
	fs.Int64Var(&limits.ResponseBytes, "max-response-bytes", server.DefaultMaxResponseBytes, "bytes of one response")
	fs.Int64Var(&limits.ResponseMemory, "max-response-memory", server.DefaultMaxResponseMemory, "bytes of all responses being written")
	var tokenizers varFlags
	fs.Var(&tokenizers, "tokenizer", "NAME=PATH of a tokenizer.json (repeatable)")
	pos, err := c.parse(fs, serveUsage, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 0:
		return usagef("serve takes no arguments\n\n%s", serveUsage)
	case *debounce <= 0 || *poll < 0:
		return usagef("--debounce must be positive and --poll not negative\n\n%s", serveUsage)
	case limits.Connections <= 0 || limits.Renders <= 0 || limits.QueueWait <= 0 || limits.ResponseBytes <= 0 || limits.ResponseMemory <= 0:
		return usagef("--max-connections, --max-renders, --queue-wait, --max-response-bytes and --max-response-memory must be positive\n\n%s", serveUsage)
	case limits.ResponseMemory < limits.ResponseBytes:
		return usagef("--max-response-memory %d is below --max-response-bytes %d: no response could be sent", limits.ResponseMemory, limits.ResponseBytes)
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usagef("--addr %q: want HOST:PORT: %v", *addr, err)
	}
	if *mcpMode {
		o := mcpServe{dir: *dir, renders: limits.Renders, queueWait: limits.QueueWait, mopts: []manager.Option{manager.WithDebounce(*debounce)}}
		if *poll > 0 {
			o.mopts = append(o.mopts, manager.WithPollInterval(*poll))
		}
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "addr":
				o.addr = *addr
			case "dev", "save-fixtures", "tokenizer", "bot-name", "note-prefix", "max-connections", "max-response-bytes", "max-response-memory":
				o.httpOnly = append(o.httpOnly, f.Name)
			}
		})
		return runServeMCP(c, o)
	}
	if *dir == "" && *dev {
		if _, err := os.Stat(manager.IndexFile); err == nil {
			*dir = "."
		}
	}
	opts := []server.Option{
		server.WithLogger(slog.New(slog.NewTextHandler(c.stderr, nil))),
		server.WithLimits(limits),
		// The default builders the set has the templates of, as the
		// builders and build commands serve them.
		server.WithService(func(m *manager.Manager) (*service.Service, error) {
			s, err := setBuilders(m, *botName, *notePrefix)
			if err != nil {
				return nil, err
			}
			if s.svc == nil {
				return nil, fmt.Errorf("%w: %s", service.ErrNoBuilders, s.unserved())
			}
			return s.svc, nil
		}),
	}
	if *dev {
		opts = append(opts, server.WithPreview())
	}
	if *saveFixtures {
		if !*dev || *dir == "" {
			return usagef("--save-fixtures writes into a set's directory: give --dev and --dir DIR\n\n%s", serveUsage)
		}
		opts = append(opts, server.WithFixtureWrites())
	}
	topts, err := tokenizerOptions(tokenizers)
	if err != nil {
		return err
	}
	opts = append(opts, topts...)
	if token := os.Getenv(tokenEnv); token != "" {
		opts = append(opts, server.WithToken(token))
	}

	set := server.FS(promptkit.FS())
	where := "the embedded set"
	if *dir != "" {
		if err := checkSetDir(*dir); err != nil {
			return err
		}
		mopts := []manager.Option{manager.WithDebounce(*debounce)}
		if *poll > 0 {
			mopts = append(mopts, manager.WithPollInterval(*poll))
		}
		set, where = server.Dir(*dir, mopts...), *dir
	}
	s, err := server.New(set, opts...)
	if err != nil {
		return err
	}
	defer s.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	if *dev {
		hint := url + "/"
		if os.Getenv(tokenEnv) != "" {
			hint += "?token=$" + tokenEnv
		}
		fmt.Fprintf(c.stderr, "promptkit serve: preview at %s\n", hint)
	}
	if !server.IsLoopback(*addr) {
		if os.Getenv(tokenEnv) == "" {
			fmt.Fprintf(c.stderr, "promptkit serve: warning: listening beyond loopback without %s; put an authenticating proxy in front\n", tokenEnv)
		} else {
			fmt.Fprintf(c.stderr, "promptkit serve: listening beyond loopback; the token travels in clear text without TLS: put a TLS proxy in front\n")
		}
	}
	// The serving line comes last: what starts the server waits for it,
	// and everything said at start is said by then.
	fmt.Fprintf(c.stderr, "promptkit serve: serving %s on %s\n", where, url)
	if err := s.Serve(c.ctx, ln); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	fmt.Fprintln(c.stderr, "promptkit serve: shut down")
	return nil
}
