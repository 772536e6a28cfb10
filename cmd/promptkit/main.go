// Command promptkit lists, renders, builds, checks, lints and watches
// promptkit template sets. Run "promptkit --help" for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signalContext(context.Background())
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// signalContext is cancelled by the first SIGINT or SIGTERM, with the
// signal as its cause: a command stops what it does (a render too), and
// exits 128 + the signal's number, as shells expect of an interrupted
// program. A command that cannot stop at once — blocked reading standard
// input, say — is ended after a grace period, with the same code.
func signalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			sig := s.(syscall.Signal)
			cancel(interrupted{sig})
			select {
			case <-done:
				return // the command stopped, and run reported it
			case <-ch:
			case <-time.After(time.Second):
			}
			fmt.Fprintf(os.Stderr, "promptkit: %v\n", interrupted{sig})
			os.Exit(128 + int(sig))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// interrupted is the cause of a context a signal cancelled.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }
