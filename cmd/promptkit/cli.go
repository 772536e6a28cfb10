package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Exit codes, the same for every command.
const (
	exitOK     = 0
	exitPrompt = 1 // a prompt error: unknown template, variables, syntax, index, sandbox
	exitUsage  = 2 // bad usage: unknown command or flag, wrong arguments
)

// cli is what a command runs with: the context (cancelled on Ctrl-C) and
// the three standard streams.
type cli struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand. run gets the arguments after the command name.
type command struct {
	name    string
	summary string
	run     func(c *cli, args []string) error
}

// commands is the table of subcommands, in the order --help lists them.
func commands() []command {
	return []command{
		{"list", "list the templates of a set", runList},
		{"render", "render one template with variables", runRender},
		{"check", "check a template set and report every problem", runCheck},
		{"watch", "keep a template set live and print each reload as JSON", runWatch},
		{"serve", "serve a template set over HTTP, with a live preview page (--dev)", runServe},
		{"build", "build a prompt with a builder, as a plugin host does", runBuild},
		{"builders", "list the builders with their templates and data keys", runBuilders},
		{"lint", "find prompts written inline in Go source", runLint},
		{"lint-tools", "check tool descriptions: when and why, not parameters or internals", runLintTools},
	}
}

// usageError marks bad usage (exit 2), as opposed to a prompt error (exit 1).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errHelp is returned when --help was asked for and printed: exit 0.
var errHelp = errors.New("help requested")

// errReported is returned by a command that already printed its problems.
var errReported = errors.New("problems reported")

// exitCode is the one place that maps errors to exit codes.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	default:
		return exitPrompt
	}
}

//promptkit:allow-inline CLI help text with an example, not a prompt
const mainUsage = `promptkit keeps LLM prompts in reviewed template files and renders them strictly.

Usage:
  promptkit COMMAND [ARGUMENTS] [FLAGS]

Commands:
%s
Commands that read a template set take --dir DIR (a set on disk; default:
the embedded set; watch requires it). Every command takes --help, and
flags may come before or after arguments.

Example:
  promptkit render title --var intent="查询明天的天气"

Exit codes: 0 ok, 1 a prompt error, 2 bad usage.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	var list strings.Builder
	for _, cmd := range commands() {
		fmt.Fprintf(&list, "  %-16s %s\n", cmd.name, cmd.summary)
	}
	if len(args) == 0 {
		fmt.Fprintf(stderr, mainUsage, list.String())
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help" {
		fmt.Fprintf(stdout, mainUsage, list.String())
		return exitOK
	}
	for _, cmd := range commands() {
		if cmd.name == args[0] {
			err := cmd.run(c, args[1:])
			if err != nil && !errors.Is(err, errHelp) && !errors.Is(err, errReported) {
				fmt.Fprintf(stderr, "promptkit %s: %v\n", cmd.name, err)
			}
			return exitCode(err)
		}
	}
	fmt.Fprintf(stderr, "promptkit: unknown command %q\n\n", args[0])
	fmt.Fprintf(stderr, mainUsage, list.String())
	return exitUsage
}

// newFlags makes a FlagSet for a command whose help text is usage.
func (c *cli) newFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("promptkit "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	_ = usage
	return fs
}

// parse parses flags that may come before or after positional arguments
// (flag stops at the first non-flag, so parse again after each one) and
// returns the positional arguments. "--" ends the flags.
func (c *cli) parse(fs *flag.FlagSet, usage string, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(c.stdout, usage)
				return nil, errHelp
			}
			return nil, usagef("%v\n\n%s", err, usage)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" if it saw one: everything after is positional.
		if consumedTerminator(args, rest) {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// consumedTerminator reports whether the flag parse stopped because of "--".
func consumedTerminator(args, rest []string) bool {
	n := len(args) - len(rest)
	return n > 0 && args[n-1] == "--"
}

// openSet loads the template set: dir on disk, or the embedded default set.
func openSet(dir string, opts ...manager.Option) (*manager.Manager, error) {
	if dir == "" {
		return manager.New(promptkit.FS(), opts...)
	}
	return manager.Open(dir, opts...)
}
