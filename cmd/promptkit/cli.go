package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/internal/termsafe"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Exit codes, the same for every command.
const (
	exitOK     = 0
	exitPrompt = 1 // a prompt error: unknown template, variables, syntax, index, sandbox; or a registry's
	exitUsage  = 2 // bad usage: unknown command or flag, wrong arguments
)

// cli is what a command runs with: the context (cancelled on Ctrl-C), the
// three standard streams, and the --dir given before the command.
type cli struct {
	ctx    context.Context
	name   string // the command running, for the "promptkit NAME: " prefix
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	dir    string // --dir before the command: the default of the command's --dir
}

// command is one subcommand. run gets the arguments after the command name.
type command struct {
	name    string
	summary string
	dir     bool // takes --dir, so --dir may also come before the command
	run     func(c *cli, args []string) error
}

// commands is the table of subcommands, in the order --help lists them.
func commands() []command {
	return []command{
		{"list", "list the templates of a set", true, runList},
		{"render", "render one template with variables", true, runRender},
		{"request", "render a template into the request its call contract declares, as JSON", true, runRequest},
		{"check", "check a template set and report every problem", true, runCheck},
		{"test", "run the fixtures of a template set: goldens, expected texts and errors", true, runTest},
		{"diff", "compare two template sets: files, the contract (breaking or not), rendered fixtures", false, runDiff},
		{"gen", "generate the typed Go API of a template set", true, runGen},
		{"watch", "keep a template set live and print each reload as JSON", true, runWatch},
		{"serve", "serve a template set over HTTP, with a live preview page (--dev)", true, runServe},
		{"chat-template", "apply a model's chat template to a conversation, as transformers does", false, runChatTemplate},
		{"build", "build a prompt with a builder, as a plugin host does", true, runBuild},
		{"builders", "list the builders the set serves, with their templates and data keys", true, runBuilders},
		{"lint", "find prompts written inline in Go source", false, runLint},
		{"lint-tools", "check tool descriptions: when and why, not parameters or internals", false, runLintTools},
		{"push", "check a template set and push it to an OCI registry", false, runPush},
		{"pull", "pull a template set from an OCI registry, verifying its digest", false, runPull},
		{"tag", "point a label at a pushed set: promote, or roll back", false, runTag},
		{"history", "list where a label has pointed, from the registry", false, runHistory},
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

// exitCode is the one place that maps how a command ended to its exit
// code: 128 + the signal's number when a signal stopped it (130 for
// SIGINT, 143 for SIGTERM), whatever it returned; 2 for bad usage; 1 for
// any other error (a prompt error, a set that cannot be read, a
// registry's); 0 otherwise.
func exitCode(ctx context.Context, err error) int {
	var (
		ue  *usageError
		sig interrupted
	)
	switch {
	case errors.As(context.Cause(ctx), &sig):
		return 128 + int(sig.sig)
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
  promptkit [--dir DIR] COMMAND [ARGUMENTS] [FLAGS]
  promptkit help COMMAND
  promptkit --version

Commands:
%s
Commands that read a template set take --dir DIR (a set on disk; default:
the embedded set; watch requires it), before or after the command. Every
command takes --help, and flags may come before or after arguments.

Example:
  promptkit render title --var intent="查询明天的天气"
  promptkit --dir ./prompts check

Exit codes: 0 ok, 1 a prompt error (or a registry's), 2 bad usage,
130 and 143 stopped by SIGINT (Ctrl-C) and SIGTERM.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	var list strings.Builder
	for _, cmd := range commands() {
		fmt.Fprintf(&list, "  %-16s %s\n", cmd.name, cmd.summary)
	}
	usage := fmt.Sprintf(mainUsage, list.String())
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "promptkit: "+format+"\n\n%s", append(a, usage)...)
		return exitUsage
	}

	// Flags before the command: --dir, --help and --version.
	dirSet := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		switch {
		case name == "h" || name == "help":
			fmt.Fprint(stdout, usage)
			return exitOK
		case name == "version":
			fmt.Fprint(stdout, version())
			return exitOK
		case name == "dir" && hasValue:
			c.dir, args = value, args[1:]
		case name == "dir" && len(args) > 1:
			c.dir, args = args[1], args[2:]
		case name == "dir":
			return fail("--dir needs a value: --dir DIR COMMAND")
		default:
			return fail("unknown flag %s before the command (--dir, --help and --version may come before it)", args[0])
		}
		dirSet = true
	}
	if len(args) == 0 {
		if dirSet {
			return fail("--dir DIR needs a command after it")
		}
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	name, args := args[0], args[1:]
	if name == "help" {
		if len(args) == 0 {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		name, args = args[0], []string{"--help"} // "help render" is "render --help"
	}
	for _, cmd := range commands() {
		if cmd.name != name {
			continue
		}
		if dirSet && !cmd.dir {
			return fail("%s does not read a template set: --dir does not apply", name)
		}
		c.name = cmd.name
		err := cmd.run(c, args)
		var sig interrupted
		switch {
		case errors.As(context.Cause(ctx), &sig):
			// Stopped by a signal (serve and watch stop cleanly): say so once.
			fmt.Fprintf(stderr, "promptkit %s: %v\n", cmd.name, sig)
		case err != nil && !errors.Is(err, errHelp) && !errors.Is(err, errReported):
			c.report(err)
		}
		return exitCode(ctx, err)
	}
	return fail("unknown command %q", name)
}

// report prints err on stderr under the command's prefix, "promptkit
// NAME: ": every problem of a template set on its own line, each with the
// prefix; any other error as it is (a usage error's help text follows its
// first line). An error may quote a registry, a file or a value: nothing
// in it acts on the terminal (termsafe).
func (c *cli) report(err error) {
	if ps := manager.Problems(err); len(ps) > 0 {
		for _, p := range ps {
			fmt.Fprintf(c.stderr, "promptkit %s: %s\n", c.name, termsafe.Text(p.Error()))
		}
		return
	}
	fmt.Fprintf(c.stderr, "promptkit %s: %s\n", c.name, termsafe.Text(err.Error()))
}

// newFlags makes a FlagSet for a command whose help text is usage.
func (c *cli) newFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("promptkit "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	_ = usage
	return fs
}

// dirFlag defines the command's --dir flag, whose default is the --dir
// given before the command (and the embedded set without one).
func (c *cli) dirFlag(fs *flag.FlagSet, help string) *string {
	return fs.String("dir", c.dir, help)
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
			return nil, usagef("%s\n\n%s", flagError(fs, err), usage)
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
	if err := checkSetDir(dir); err != nil {
		return nil, err
	}
	return manager.Open(dir, opts...)
}

// setDirError is a template set directory that cannot be read at all: an
// error of the command (on stderr, exit 1), not a problem of a set.
type setDirError struct {
	dir string
	err error
}

func (e *setDirError) Error() string {
	return fmt.Sprintf("cannot read the template set %s: %v", e.dir, e.err)
}
func (e *setDirError) Unwrap() error { return e.err }

// checkSetDir returns a *setDirError unless dir is a directory.
func checkSetDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &setDirError{dir, err}
	case !fi.IsDir():
		return &setDirError{dir, errors.New("not a directory")}
	}
	return nil
}
