package jinjaoracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Recorded answers. A test that asks the oracle through a Golden file runs
// without Python: each answer is recorded in testdata, keyed by a digest
// of the request, so `go test ./internal/...` checks Jinja's semantics on
// any machine. Where the live oracle is there (always on CI, which
// installs python3-jinja2), every recorded answer is asked again and a
// difference fails the test: a golden file cannot drift from Jinja2.
//
// To record, run the tests with JINJA_ORACLE_RECORD=1 where Debian's
// python3-jinja2 (the reference CI runs) is installed: missing and stale
// answers are written back.

// RecordEnv is the environment variable that makes a Golden record.
const RecordEnv = "JINJA_ORACLE_RECORD"

// largeAnswer is the size beyond which only an output's digest is kept.
const largeAnswer = 8 << 10

// Answer is one recorded answer of the oracle.
type Answer struct {
	// Out is the output, when it was not too large to keep (see Digest).
	Out string `json:"out,omitempty"`
	// Err is the exception the oracle answered, "" when it rendered.
	Err string `json:"err,omitempty"`
	// Digest is the SHA-256 of the output, hex.
	Digest string `json:"sha256,omitempty"`
}

// Matches reports whether out is the answer's output.
func (a Answer) Matches(out string) bool { return a.Err == "" && digest(out) == a.Digest }

// Kept reports whether the answer holds its output (else only its digest).
func (a Answer) Kept() bool { return a.Out != "" || a.Digest == digest("") }

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// answerOf is the whole answer of a live render.
func answerOf(out, jerr string) Answer {
	if jerr != "" {
		return Answer{Err: jerr}
	}
	return Answer{Out: out, Digest: digest(out)}
}

// recorded is the answer as a golden file keeps it: a large output by its
// digest alone.
func (a Answer) recorded() Answer {
	if len(a.Out) > largeAnswer {
		a.Out = ""
	}
	return a
}

// Golden is a file of recorded answers, shared by the tests of one
// package that open it. Open it with OpenGolden.
type Golden struct {
	path    string
	record  bool
	mu      sync.Mutex
	answers map[string]Answer
	dirty   bool
	users   int
}

var goldens sync.Map // path → *Golden

// goldenFile is the file's form: the reference that answered, and the
// answers by request digest.
type goldenFile struct {
	Oracle  string            `json:"oracle"`
	Answers map[string]Answer `json:"answers"`
}

// OpenGolden opens the golden file at path (relative to the test's
// directory) for tb. When tb ends, a recording run writes the file back.
func OpenGolden(tb testing.TB, path string) *Golden {
	tb.Helper()
	v, _ := goldens.LoadOrStore(path, &Golden{path: path})
	g := v.(*Golden)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.answers == nil {
		g.record = os.Getenv(RecordEnv) == "1"
		g.answers = map[string]Answer{}
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			tb.Fatalf("jinjaoracle: reading %s: %v", path, err)
		default:
			var f goldenFile
			if err := json.Unmarshal(data, &f); err != nil {
				tb.Fatalf("jinjaoracle: %s: %v", path, err)
			}
			g.answers = f.Answers
		}
	}
	g.users++
	tb.Cleanup(g.close)
	return g
}

// close writes a recording's answers when the last test using them ends.
func (g *Golden) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users--; g.users > 0 || !g.record || !g.dirty {
		return
	}
	o, _ := Shared()
	f := goldenFile{Answers: g.answers}
	if o != nil {
		f.Oracle = fmt.Sprintf("Jinja2 %s, Python %s (%s)", o.Jinja2, o.PythonVersion, o.Python)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err == nil {
		_ = os.MkdirAll(filepath.Dir(g.path), 0o755)
		_ = os.WriteFile(g.path, b.Bytes(), 0o644)
	}
	g.dirty = false
}

// Ask answers a request: live (the oracle's answer to it) is asked
// when there is an oracle, and its answer must equal the recorded one;
// without an oracle the recorded answer serves (a large output by its
// digest alone: see Answer.Kept). A request with no recorded answer fails the test unless
// optional (fuzzing asks new questions); a recording run records it.
func (g *Golden) Ask(tb testing.TB, request []byte, optional bool, live func(*Oracle) (out, jinjaErr string)) Answer {
	tb.Helper()
	key := digest(string(request))[:32]
	g.mu.Lock()
	rec, ok := g.answers[key]
	g.mu.Unlock()
	o := liveOracle(tb, ok && !g.record)
	if o == nil {
		return rec
	}
	a := answerOf(live(o))
	if IsOracleFailure(a.Err) {
		return a
	}
	switch r := a.recorded(); {
	case g.record:
		if !ok || r != rec {
			g.mu.Lock()
			g.answers[key], g.dirty = r, true
			g.mu.Unlock()
		}
	case !ok && !optional:
		tb.Errorf("jinjaoracle: no answer recorded in %s for this request; record with %s=1 (where Debian's python3-jinja2 is installed)", g.path, RecordEnv)
	case ok && r != rec:
		tb.Errorf("jinjaoracle: the answer recorded in %s differs from Jinja2 %s's: %s; record again with %s=1",
			g.path, o.Jinja2, describe(rec, r), RecordEnv)
	}
	return a
}

// describe says how two answers differ.
func describe(rec, live Answer) string {
	switch {
	case rec.Err != live.Err:
		return fmt.Sprintf("recorded error %q, live error %q", rec.Err, live.Err)
	case rec.Kept() && live.Kept():
		return fmt.Sprintf("recorded %q, live %q", rec.Out, live.Out)
	}
	return "the outputs' digests differ"
}

// liveOracle returns the shared oracle, nil when there is none. A test
// that has a recorded answer runs without one; one that needs one skips
// (or, on CI, fails) as Require does.
func liveOracle(tb testing.TB, recorded bool) *Oracle {
	tb.Helper()
	o, err := Shared()
	if err == nil {
		return o
	}
	if recorded && os.Getenv("CI") != "true" {
		return nil
	}
	Require(tb)
	return nil
}

// Recorder renders through a golden file: the oracle's renders, recorded.
type Recorder struct {
	g *Golden
	// Optional lets a request have no recorded answer (fuzzing).
	Optional bool
}

// Record opens the golden file at path for renders.
func Record(tb testing.TB, path string) *Recorder {
	tb.Helper()
	return &Recorder{g: OpenGolden(tb, path)}
}

// Render renders template with vars in a stock Jinja2 environment.
func (r *Recorder) Render(tb testing.TB, template string, vars map[string]any) Answer {
	tb.Helper()
	return r.RenderEnv(tb, Env{}, template, vars)
}

// RenderEnv renders template with vars in the environment env.
func (r *Recorder) RenderEnv(tb testing.TB, env Env, template string, vars map[string]any) Answer {
	tb.Helper()
	req, err := request(env, template, vars)
	if err != nil {
		return Answer{Err: "OracleError: " + err.Error()}
	}
	return r.g.Ask(tb, req, r.Optional, func(o *Oracle) (string, string) {
		return o.RenderEnv(env, template, vars)
	})
}
