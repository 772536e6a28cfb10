package main

import (
	"flag"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// The errors of package flag, which spell a flag with one dash ("-dir")
// whatever the user typed; flagError says them again as users type
// flags here, with two. They are compiled when a flag is wrong, not at
// every start.
var flagErrorREs = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`^flag provided but not defined: -+(.+)$`),
		regexp.MustCompile(`^flag needs an argument: -+(.+)$`),
		regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`),
	}
})

// flagError rewrites an error of fs.Parse for people: flags spelt
// "--name", and an example for a flag that takes a duration.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	res := flagErrorREs()
	flagUndefined, flagNoValue, flagBadValue := res[0], res[1], res[2]
	if m := flagUndefined.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := flagNoValue.FindStringSubmatch(msg); m != nil {
		if ex := durationExample(fs, m[1]); ex != "" {
			return fmt.Sprintf("--%s needs a duration, e.g. %s", m[1], ex)
		}
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		if ex := durationExample(fs, m[2]); ex != "" {
			return fmt.Sprintf("--%s %q: not a duration; write one such as %s (units: ms, s, m, h)", m[2], m[1], ex)
		}
		return fmt.Sprintf("--%s %q: %s", m[2], m[1], m[3])
	}
	return msg
}

// durationExample returns an example of the duration flag name
// ("--debounce 150ms"), or "" when name does not take a duration.
func durationExample(fs *flag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, ok := g.Get().(time.Duration); ok {
			return "--" + name + " 150ms"
		}
	}
	return ""
}
