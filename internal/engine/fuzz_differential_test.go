package engine_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seed-e7d2830f/promptkit/internal/jinjaoracle"
)

// FuzzDifferential generates a template and its values from the fuzzer's
// bytes (fuzz_gen_test.go: expressions over variables of mixed types,
// filters with arguments, tests, methods, loops with loop.*, conditionals,
// set and set blocks, macros and call blocks, filter blocks, namespaces,
// whitespace control; in Jinja's stock environment or, for one input in
// four, Hugging Face's), renders it with promptkit and with Python's
// Jinja2, and fails on any difference: other bytes, or an error on one
// side only. A case both refuse is fine; so is one that shows a
// documented difference (docs/jinja-differences.md), recognised by
// documented.
func FuzzDifferential(f *testing.F) {
	for _, seed := range []string{
		"",
		"\x00\x03\x05\x01\x02",
		"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10",
		"\x03\x07\x06\x07\x00\x02\x05\x04\x03\x02\x01\x00\x09\x08",
		"\x00\x00\x00\x00\x06\x07\x07\x01\x04\x05\x0b\x02\x03\x01\x0e\x00",
		"\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b",
		"\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x0e\x0d\x0c\x0b\x0a\x09\x08\x07\x06",
		"\x0e\x03\x05\x08\x0c\x02\x01\x06\x0a\x04\x09\x07\x0b\x0d",
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0",
	} {
		f.Add([]byte(seed))
	}
	// The answers to the seeds and the corpus in testdata/fuzz are
	// recorded, so go test checks them without Python; new inputs of a
	// fuzzing run ask the live oracle.
	rec := jinjaoracle.Record(f, "testdata/oracle/differential.json")
	rec.Optional = true
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		tpl, vars, hf := generate(data)
		// A template of the stock environment runs in both of promptkit's
		// modes: lenient, and strict (StrictUndefined) as sets are by
		// default. Hugging Face's environment is lenient only.
		for _, strict := range []bool{false, true} {
			if strict && hf {
				continue
			}
			var got string
			var err error
			// A short timeout: a generated template that makes Python work for
			// seconds (a large power, a long repetition) is skipped.
			env := jinjaoracle.Env{HuggingFace: hf, Strict: strict, Now: oracleNow, Timeout: 2 * time.Second}
			ans := rec.RenderEnv(t, env, tpl, vars)
			want, jerr := ans.Out, ans.Err
			if hf {
				got, err = renderHFValues(tpl, vars)
			} else {
				got, err = renderSet(tpl, vars, strict)
			}
			if jinjaoracle.IsOracleFailure(jerr) {
				t.Skipf("the oracle could not answer: %s", jerr)
			}
			var perr string
			if err != nil {
				perr = err.Error()
			}
			if why := documented(tpl, want, jerr, got, perr); why != "" {
				t.Skipf("a documented difference (%s)", why)
			}
			envName := "stock"
			switch {
			case hf:
				envName = "Hugging Face"
			case strict:
				envName = "stock, StrictUndefined (a strict set)"
			}
			switch {
			case jerr != "" && err == nil:
				t.Fatalf("environment: %s\ntemplate: %q\nvalues: %#v\nJinja2 raised %s\npromptkit rendered %q", envName, tpl, vars, jerr, got)
			case jerr == "" && err != nil:
				t.Fatalf("environment: %s\ntemplate: %q\nvalues: %#v\nJinja2 rendered %q\npromptkit failed: %v", envName, tpl, vars, want, err)
			case jerr == "" && !ans.Matches(got):
				t.Fatalf("environment: %s\ntemplate: %q\nvalues: %#v\nJinja2:    %q\npromptkit: %q", envName, tpl, vars, want, got)
			}
		}
	})
}

// pythonObject is how Python prints the lazy objects and functions that
// promptkit prints as lists or without an address (documented).
var pythonObject = regexp.MustCompile(`range\(\d|<generator object|_iterator object|<reversed object|dict_(items|keys|values)\(|<built-in method| at 0x[0-9a-f]+>`)

// documented reports which documented difference a result shows, or "".
func documented(tpl, want, jerr, got, perr string) string {
	switch {
	case jerr == "" && pythonObject.MatchString(want):
		return "lazy values and functions print otherwise"
	case strings.Contains(perr, "templates cannot change the values"):
		return "values are never changed"
	case jerr == "" && (strings.Contains(perr, "is not supported; supported filters") || strings.Contains(perr, "is not supported; supported tests") ||
		strings.Contains(perr, "is not supported; did you mean") ||
		strings.Contains(perr, "unexpected not in expression") || strings.Contains(perr, "unexpected in in expression")):
		return "every branch is checked at load"
	case jerr == "" && (strings.Contains(perr, "slice: index must be an integer") || strings.Contains(perr, "cannot be sliced")):
		return "constant slices are not folded leniently"
	}
	return ""
}
