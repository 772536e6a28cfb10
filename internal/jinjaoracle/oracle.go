// Package jinjaoracle runs Python's Jinja2 — the reference implementation
// of the syntax promptkit renders — as an oracle for tests: a Python
// process (oracle.py, standard library and jinja2 only) started once per
// test binary, which renders one template per request and answers with its
// output or the exception Jinja2 raised.
//
// Tests call Require, which skips the test with a clear message where no
// python3 with Jinja2 is found, and fails it instead when CI=true (CI
// installs Debian's python3-jinja2, so the differential tests never skip
// there):
//
//	o := jinjaoracle.Require(t)
//	out, jerr := o.Render("{{ name[0] }}", map[string]any{"name": "Ann"})
//	// out == "A", jerr == ""; or out == "", jerr == "UndefinedError: …"
//
// The interpreter is $JINJA_ORACLE_PYTHON if set, else the first of
// /usr/bin/python3 (Debian's, with python3-jinja2: the reference, which CI
// runs) and python3 on PATH that imports jinja2.
//
// Values cross to Python as JSON, with two care points: a float stays a
// float (1.0 is sent as 1.0, not 1, so Jinja2 prints "1.0" as promptkit
// does), and every mapping reaches Jinja2 with its keys sorted — the order in
// which promptkit iterates a Go map, which has none — unless the request
// asks to keep the order of an order-keeping value (Env.KeepOrder with
// json.RawMessage values).
package jinjaoracle

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

//go:embed oracle.py
var script string

// Env selects the Jinja2 environment of a render. The zero value is a
// stock jinja2.Environment(): autoescape off, default Undefined, one
// trailing newline of the template dropped; Strict makes it StrictUndefined.
type Env struct {
	// HuggingFace renders in the environment transformers' chat templates
	// run in: ImmutableSandboxedEnvironment(trim_blocks=True,
	// lstrip_blocks=True, extensions=[AssistantTracker,
	// "jinja2.ext.loopcontrols"]: {% generation %} and the loop controls), tojson
	// as json.dumps(ensure_ascii=False) with its keys in order, and the
	// globals raise_exception and strftime_now.
	HuggingFace bool
	// Now is strftime_now's clock (HuggingFace only); zero is
	// 2024-07-26T09:30:00.
	Now time.Time
	// Strict makes undefined values jinja2.StrictUndefined, as promptkit's
	// template sets have them: an undefined value may be tested (is
	// defined), defaulted and probed, and anything else done with it raises.
	Strict bool
	// KeepOrder passes mappings in the order of their JSON text instead of
	// sorted: for json.RawMessage values that promptkit decodes into
	// order-keeping dicts.
	KeepOrder bool
	// Timeout bounds one render in Python (default 5 s); a render that
	// takes longer answers with a "Timeout" error.
	Timeout time.Duration
}

// Oracle is one Python process rendering with Jinja2. It is safe for
// concurrent use; requests are answered one at a time.
type Oracle struct {
	// Python is the interpreter; Jinja2 and PythonVersion are the versions
	// it reported.
	Python, Jinja2, PythonVersion string

	mu    sync.Mutex
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
	dead  chan struct{}
}

// ErrUnavailable is returned by Find and Start when no python3 with
// Jinja2 is found.
var ErrUnavailable = errors.New("jinjaoracle: no python3 with jinja2")

// Find returns the interpreter to run: $JINJA_ORACLE_PYTHON, else the first
// of /usr/bin/python3 and python3 that imports jinja2.
func Find() (string, error) {
	if p := os.Getenv("JINJA_ORACLE_PYTHON"); p != "" {
		if err := exec.Command(p, "-c", "import jinja2").Run(); err != nil {
			return "", fmt.Errorf("%w: $JINJA_ORACLE_PYTHON=%s cannot import jinja2: %v", ErrUnavailable, p, err)
		}
		return p, nil
	}
	var tried []string
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			tried = append(tried, p+" (absent)")
			continue
		}
		if err := exec.Command(path, "-c", "import jinja2").Run(); err != nil {
			tried = append(tried, path+" (no jinja2)")
			continue
		}
		return path, nil
	}
	return "", fmt.Errorf("%w: tried %v", ErrUnavailable, tried)
}

// Start starts an oracle with the interpreter python ("" finds one).
func Start(python string) (*Oracle, error) {
	if python == "" {
		p, err := Find()
		if err != nil {
			return nil, err
		}
		python = p
	}
	o := &Oracle{Python: python}
	if err := o.start(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Oracle) start() error {
	cmd := exec.Command(o.Python, "-c", script)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("jinjaoracle: start %s: %w", o.Python, err)
	}
	lines, dead := make(chan []byte), make(chan struct{})
	go func() {
		defer close(dead)
		r := bufio.NewReaderSize(out, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	o.cmd, o.in, o.lines, o.dead = cmd, in, lines, dead
	var hello struct {
		Ready  bool   `json:"ready"`
		Jinja2 string `json:"jinja2"`
		Python string `json:"python"`
	}
	select {
	case line := <-lines:
		if err := json.Unmarshal(line, &hello); err != nil || !hello.Ready {
			o.kill()
			return fmt.Errorf("jinjaoracle: %s did not start the oracle: %q", o.Python, line)
		}
	case <-dead:
		o.kill()
		return fmt.Errorf("jinjaoracle: %s exited before it was ready", o.Python)
	case <-time.After(30 * time.Second):
		o.kill()
		return fmt.Errorf("jinjaoracle: %s did not start within 30s", o.Python)
	}
	o.Jinja2, o.PythonVersion = hello.Jinja2, hello.Python
	return nil
}

func (o *Oracle) kill() {
	if o.cmd == nil {
		return
	}
	o.in.Close()
	o.cmd.Process.Kill()
	o.cmd.Wait()
	o.cmd = nil
}

// Close ends the Python process.
func (o *Oracle) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.kill()
	return nil
}

// Render renders template with vars in a stock Jinja2 environment. It
// returns Jinja2's output, or (when Jinja2 raised) "" and the exception as
// "<ExceptionType>: message".
func (o *Oracle) Render(template string, vars map[string]any) (output, jinjaErr string) {
	return o.RenderEnv(Env{}, template, vars)
}

// RenderEnv renders template with vars in the environment env.
func (o *Oracle) RenderEnv(env Env, template string, vars map[string]any) (output, jinjaErr string) {
	req, err := request(env, template, vars)
	if err != nil {
		return "", "OracleError: " + err.Error()
	}
	timeout := env.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cmd == nil {
		if err := o.start(); err != nil {
			return "", "OracleError: " + err.Error()
		}
	}
	if _, err := o.in.Write(req); err != nil {
		o.kill()
		return "", "OracleError: writing to the oracle: " + err.Error()
	}
	var line []byte
	select {
	case line = <-o.lines:
	case <-o.dead:
		o.kill()
		return "", "OracleError: the oracle exited"
	case <-time.After(2*timeout + time.Second):
		// Python's alarm could not interrupt it (a long computation in C,
		// such as a huge power): start afresh on the next request.
		o.kill()
		return "", "Timeout: the render did not finish"
	}
	var ans struct {
		Output *string `json:"output"`
		Error  string  `json:"error"`
	}
	if err := json.Unmarshal(line, &ans); err != nil {
		return "", "OracleError: bad answer " + strconv.Quote(string(line))
	}
	if ans.Output == nil {
		if ans.Error == "" {
			ans.Error = "OracleError: empty answer"
		}
		return "", ans.Error
	}
	return *ans.Output, ""
}

// IsTimeout reports whether a render's error is the oracle's timeout.
func IsTimeout(jinjaErr string) bool {
	return strings.HasPrefix(jinjaErr, "Timeout:") || strings.HasPrefix(jinjaErr, "RenderTimeout:")
}

// IsOracleFailure reports whether an error says that the oracle could not
// answer (a timeout, its memory bound, a failure of its own) rather than
// what Jinja2 makes of the template.
func IsOracleFailure(jinjaErr string) bool {
	return IsTimeout(jinjaErr) || strings.HasPrefix(jinjaErr, "OracleError:") || strings.HasPrefix(jinjaErr, "MemoryError:")
}

func request(env Env, template string, vars map[string]any) ([]byte, error) {
	if !utf8.ValidString(template) {
		return nil, errors.New("the template is not valid UTF-8")
	}
	b := []byte(`{"template":`)
	b = appendString(b, template)
	b = append(b, `,"vars":`...)
	var err error
	if vars == nil {
		b = append(b, "{}"...)
	} else if b, err = appendValue(b, vars, 0); err != nil {
		return nil, err
	}
	e := map[string]any{"sort_keys": !env.KeepOrder}
	if env.HuggingFace {
		e["hf"] = true
		if !env.Now.IsZero() {
			e["now"] = env.Now.Format("2006-01-02T15:04:05.000000")
		}
	}
	if env.Strict {
		e["strict"] = true
	}
	if env.Timeout > 0 {
		e["timeout"] = env.Timeout.Seconds()
	}
	eb, _ := json.Marshal(e)
	b = append(b, `,"env":`...)
	b = append(b, eb...)
	return append(b, "}\n"...), nil
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// appendValue encodes v as JSON for Python: floats keep a fraction (or are
// NaN, Infinity), so Python decodes them as floats.
func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > 500 {
		return nil, errors.New("value nested too deep")
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case json.RawMessage:
		// Compacted: the request is one line.
		var c bytes.Buffer
		if err := json.Compact(&c, x); err != nil {
			return nil, fmt.Errorf("invalid json.RawMessage: %w", err)
		}
		return append(b, c.Bytes()...), nil
	case string:
		if !utf8.ValidString(x) {
			return nil, errors.New("a string value is not valid UTF-8")
		}
		return appendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case float64:
		return appendFloat(b, x), nil
	case float32:
		return appendFloat(b, float64(x)), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case json.Number:
		return append(b, x...), nil
	case []any:
		b = append(b, '[')
		for i, it := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, it, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			if !utf8.ValidString(k) {
				return nil, errors.New("a key is not valid UTF-8")
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, rv.Uint(), 10), nil
	case reflect.Slice, reflect.Array:
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
		return appendValue(b, items, depth)
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			m := make(map[string]any, rv.Len())
			for it := rv.MapRange(); it.Next(); {
				m[it.Key().String()] = it.Value().Interface()
			}
			return appendValue(b, m, depth)
		}
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	for _, c := range s {
		if c == '.' || c == 'e' || c == 'n' || c == 'N' {
			return append(b, s...)
		}
	}
	return append(append(b, s...), ".0"...)
}

var shared struct {
	once sync.Once
	o    *Oracle
	err  error
}

// Shared returns the oracle of this test binary, started at its first
// use; it stays up until the binary exits (Python ends when its standard
// input closes).
func Shared() (*Oracle, error) {
	shared.once.Do(func() { shared.o, shared.err = Start("") })
	return shared.o, shared.err
}

// Require returns the shared oracle, or skips tb with a clear message
// when there is none — and fails it when the environment variable CI is
// "true", since CI installs Python's Jinja2 and must not skip.
func Require(tb testing.TB) *Oracle {
	tb.Helper()
	o, err := Shared()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("jinjaoracle: Python's Jinja2 is needed on CI (apt-get install -y python3-jinja2): %v", err)
		}
		tb.Skipf("no oracle: %v (install Python's Jinja2: apt-get install -y python3-jinja2, or pip install jinja2; or set JINJA_ORACLE_PYTHON)", err)
	}
	return o
}
