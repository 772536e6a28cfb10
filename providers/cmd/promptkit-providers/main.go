// Command promptkit-providers is the part of promptkit that needs the
// providers' SDKs, which the promptkit command does not link:
//
//	promptkit request weather --var city=北京 | promptkit-providers convert --provider openai
//	promptkit-providers serve --dir prompts    # promptkit serve, with ?provider= on :request
//
// Run it with "go run github.com/seed-e7d2830f/promptkit/providers/cmd/promptkit-providers".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers"
	"github.com/seed-e7d2830f/promptkit/server"
)

//promptkit:allow-inline CLI help text with an example, not a prompt
const usage = `Usage: promptkit-providers convert --provider NAME [FILE|-]
       promptkit-providers serve [--dir DIR] [--addr HOST:PORT]

convert reads a provider-neutral request — what "promptkit request" prints
and promptkit serve's :request answers — from FILE (default: standard
input) and prints the request of the provider's API (openai: Chat
Completions; anthropic: Messages), as the provider's official Go SDK
sends it.

serve serves the template set in DIR (default: the current directory) as
"promptkit serve" does, hot-reloaded, and answers
POST /v1/templates/{name}:request?provider=openai|anthropic with the
provider's request. It listens on 127.0.0.1:8080 by default; beyond
loopback, set PROMPTKIT_TOKEN and put a TLS proxy in front.

Exit codes: 0 ok, 1 a request the provider cannot take or a set that
does not load, 2 bad usage, 130 or 143 when SIGINT or SIGTERM stopped it.

Example:
  promptkit request weather --dir prompts --var city=北京 | promptkit-providers convert --provider anthropic
`

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() { cancel(signalled{(<-ch).(syscall.Signal)}) }()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if s, ok := context.Cause(ctx).(signalled); ok {
		code = 128 + int(s.sig) // serve stopped cleanly, as SIGINT or SIGTERM asked
	}
	os.Exit(code)
}

// signalled is the cause of a context a signal cancelled.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return "interrupted by " + s.sig.String() }

// errUsage is bad usage (exit 2).
var errUsage = errors.New("bad usage")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	var err error
	switch args[0] {
	case "convert":
		err = convert(args[1:], stdin, stdout)
	case "serve":
		err = serve(ctx, args[1:], stderr)
	default:
		err = fmt.Errorf("%w: unknown command %q (commands: convert, serve)", errUsage, args[0])
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "promptkit-providers %s: %v\n", args[0], err)
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

// flags parses a command's flags, before or after its arguments.
func flags(name string, args []string, define func(*flag.FlagSet)) ([]string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	define(fs)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

func convert(args []string, stdin io.Reader, stdout io.Writer) error {
	var provider string
	pos, err := flags("convert", args, func(fs *flag.FlagSet) { fs.StringVar(&provider, "provider", "", "openai or anthropic") })
	if err != nil {
		return err
	}
	if provider == "" || len(pos) > 1 {
		return fmt.Errorf("%w: want --provider NAME (%s) and at most one FILE", errUsage, strings.Join(providers.Names(), ", "))
	}
	var data []byte
	if len(pos) == 0 || pos[0] == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	req, err := message.DecodeRequest(data)
	if err != nil {
		return fmt.Errorf("%w: not a request: %v", errUsage, err)
	}
	params, err := providers.Convert(provider, req)
	if err != nil {
		if strings.HasPrefix(err.Error(), "providers: unknown provider") {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return err
	}
	out, err := jsonOf(params)
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// serverOptions are serve's: ?provider= for every provider the module has.
func serverOptions() []server.Option {
	var opts []server.Option
	for _, name := range providers.Names() {
		opts = append(opts, server.WithProvider(name, func(r message.Request) (any, error) { return providers.Convert(name, r) }))
	}
	if token := os.Getenv("PROMPTKIT_TOKEN"); token != "" {
		opts = append(opts, server.WithToken(token))
	}
	return opts
}

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	dir, addr := ".", "127.0.0.1:8080"
	pos, err := flags("serve", args, func(fs *flag.FlagSet) {
		fs.StringVar(&dir, "dir", dir, "template set directory")
		fs.StringVar(&addr, "addr", addr, "listen address")
	})
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: serve takes no arguments", errUsage)
	}
	s, err := server.New(server.Dir(dir, manager.WithWatch()), serverOptions()...)
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "promptkit-providers serve: %s on http://%s (?provider=%s)\n", dir, ln.Addr(), strings.Join(providers.Names(), "|"))
	return s.Serve(ctx, ln)
}
