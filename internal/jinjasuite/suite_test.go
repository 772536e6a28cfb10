package jinjasuite_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	update = flag.Bool("update", false, "rewrite the suite's figures in README.md and testdata/jinja2suite/README.md")
	pytest = flag.String("pytest", "", "extra pytest arguments, such as -k urlize (the figures are then not checked)")
)

const (
	suiteDir    = "../../testdata/jinja2suite"
	suiteReadme = suiteDir + "/README.md"
	rootReadme  = "../../README.md"
	docsFile    = "../../docs/jinja-differences.md"
	diffsFile   = "testdata/differences.md"
	// jinja2Version is the tag of the vendored suite, and the Jinja2 it
	// runs against (Debian bookworm's python3-jinja2, what CI installs).
	jinja2Version = "3.1.2"
)

// modules are the suite's modules that run, in the order the figures list
// them (testdata/jinja2suite/README.md says why the others do not).
var modules = []string{
	"test_api", "test_core_tags", "test_filters", "test_imports", "test_inheritance",
	"test_lexnparse", "test_loader", "test_regression", "test_runtime", "test_security",
	"test_tests", "test_utils",
}

// result is one test's record, as the shim writes it.
type result struct {
	Test     string `json:"test"`
	Rendered bool   `json:"rendered"`
	// NotApplicable are why the test needs what promptkit cannot be
	// given, each as [category, detail].
	NotApplicable [][2]string `json:"not_applicable"`
	Outcome       string      `json:"outcome"`
	Message       string      `json:"message"`
}

// TestJinjaSuite runs Jinja2's own test suite (testdata/jinja2suite, the
// tests of Jinja2 3.1.2) with every render done by promptkit
// (promptkit_shim.py, server.go), and holds each test to what
// testdata/differences.md says of it: a test that renders passes, unless it
// is listed there as a documented difference (with the section of
// docs/jinja-differences.md that explains it), or the shim finds it needs
// what promptkit cannot be given (not applicable, with the reason). A test
// that fails without being listed — a regression, or a new undocumented
// difference — fails this test, and so does a listed test that passes. The
// figures in the READMEs must be this run's (-update rewrites them).
func TestJinjaSuite(t *testing.T) {
	python := requirePython(t)
	res := runSuite(t, python)
	diffs := readDifferences(t)
	checkSections(t, diffs)

	byTest := map[string]result{}
	for _, r := range res {
		byTest[r.Test] = r
	}
	for id := range diffs {
		if _, ok := byTest[id]; !ok && *pytest == "" {
			t.Errorf("%s lists %s, which the suite does not have", diffsFile, id)
		}
	}
	var fig figures
	for _, r := range res {
		d, listed := diffs[r.Test]
		c := class(r, listed)
		fig.add(module(r), c, r)
		switch {
		case c == failing:
			t.Errorf("%s fails, and %s does not list it as a difference:\n\t%s", r.Test, diffsFile, firstLine(r.Message))
		case c == passing && listed:
			t.Errorf("%s passes now: remove it from %s (%s)", r.Test, diffsFile, d.section)
		case (c == notApplicable || c == noRender) && listed:
			t.Errorf("%s is no longer a difference (%v): remove it from %s (%s)", r.Test, r.NotApplicable, diffsFile, d.section)
		case c == broken:
			t.Errorf("%s renders nothing, yet fails under the shim: %s", r.Test, firstLine(r.Message))
		}
	}
	t.Log(fig.summary())
	if *pytest != "" {
		return
	}
	checkFigure(t, rootReadme, "jinja2suite-figure", fig.summary()+"\n\n```sh\ngo test ./internal/jinjasuite -run TestJinjaSuite -v\n```")
	checkFigure(t, suiteReadme, "jinja2suite-figures", fig.table())
}

func module(r result) string {
	m := strings.TrimPrefix(strings.SplitN(r.Test, "::", 2)[0], "tests/")
	return strings.TrimSuffix(m, ".py")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// requirePython finds Debian's python3 with Jinja2 3.1.2 and pytest (CI
// installs python3-jinja2 and python3-pytest), or $JINJASUITE_PYTHON. It
// skips the test where there is none, and fails it on CI.
func requirePython(t *testing.T) string {
	t.Helper()
	candidates := []string{"/usr/bin/python3", "python3"}
	if p := os.Getenv("JINJASUITE_PYTHON"); p != "" {
		candidates = []string{p}
	}
	var tried []string
	for _, c := range candidates {
		out, err := exec.Command(c, "-c", "import jinja2, pytest; print(jinja2.__version__)").Output()
		switch v := strings.TrimSpace(string(out)); {
		case err != nil:
			tried = append(tried, c+": no jinja2 or pytest")
		case v != jinja2Version:
			tried = append(tried, fmt.Sprintf("%s: Jinja2 %s", c, v))
		default:
			return c
		}
	}
	msg := fmt.Sprintf("Jinja2's test suite needs a python3 with Jinja2 %s and pytest "+
		"(apt-get install python3-jinja2 python3-pytest on Debian bookworm, or set $JINJASUITE_PYTHON); tried: %s",
		jinja2Version, strings.Join(tried, "; "))
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// runSuite runs pytest over the suite's modules with the shim, this test
// binary serving the renders, and returns each test's record.
func runSuite(t *testing.T, python string) []result {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	server, err := json.Marshal([]string{self})
	require.NoError(t, err)
	dir, err := filepath.Abs(suiteDir)
	require.NoError(t, err)
	shimDir, err := filepath.Abs(".")
	require.NoError(t, err)
	results := filepath.Join(t.TempDir(), "results.json")
	// pytest reads the suite and the plugin, not this process: reading
	// them here puts them in go test's cache key, so that a change to one
	// runs the suite again.
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(p)
		return err
	}))
	_, err = os.ReadFile(filepath.Join(shimDir, "promptkit_shim.py"))
	require.NoError(t, err)

	args := []string{"-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "promptkit_shim", "--tb=line", "-c", "pytest.ini"}
	if *pytest != "" {
		args = append(args, strings.Fields(*pytest)...)
	}
	for _, m := range modules {
		args = append(args, "tests/"+m+".py")
	}
	cmd := exec.Command(python, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PYTHONPATH="+shimDir,
		"PYTHONDONTWRITEBYTECODE=1",
		"PROMPTKIT_JINJASUITE_SERVER="+string(server),
		serverEnv+"=1",
		"PROMPTKIT_JINJASUITE_RESULTS="+results,
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	// pytest exits 1 when tests fail, which the differences make usual.
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		t.Fatalf("pytest: %v\n%s", err, out.String())
	}
	if testing.Verbose() && *pytest != "" {
		t.Log(out.String())
	}
	data, err := os.ReadFile(results)
	require.NoError(t, err, "pytest wrote no results:\n%s", out.String())
	var doc struct {
		Jinja2 string   `json:"jinja2"`
		Tests  []result `json:"tests"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Equal(t, jinja2Version, doc.Jinja2)
	require.NotEmpty(t, doc.Tests)
	return doc.Tests
}

// A test's class.
type testClass int

const (
	passing       testClass = iota
	documented              // fails, listed in differences.md
	notApplicable           // needs what promptkit cannot be given
	noRender                // renders nothing: not in the figure
	failing                 // fails, not listed: an error
	broken                  // renders nothing, yet fails: the shim broke it
)

func class(r result, listed bool) testClass {
	switch {
	case !r.Rendered && r.Outcome == "failed":
		return broken
	case !r.Rendered:
		return noRender
	case len(r.NotApplicable) > 0:
		return notApplicable
	case r.Outcome == "passed":
		return passing
	case listed:
		return documented
	}
	return failing
}

// figures counts the classes, by module and in all, and the reasons tests
// are not applicable.
type figures struct {
	byModule map[string]*[6]int
	reasons  map[string]int
}

func (f *figures) add(m string, c testClass, r result) {
	if f.byModule == nil {
		f.byModule, f.reasons = map[string]*[6]int{}, map[string]int{}
	}
	if f.byModule[m] == nil {
		f.byModule[m] = new([6]int)
	}
	f.byModule[m][c]++
	if c == notApplicable {
		f.reasons[r.NotApplicable[0][0]]++
	}
}

func (f *figures) total() [6]int {
	var t [6]int
	for _, n := range f.byModule {
		for i := range t {
			t[i] += n[i]
		}
	}
	return t
}

// summary is the figure the root README states.
func (f *figures) summary() string {
	t := f.total()
	applicable := t[passing] + t[documented] + t[failing]
	rendering := applicable + t[notApplicable]
	return fmt.Sprintf("Of the %d tests of Jinja2 %s's own suite that render templates, %d (%d%%) apply to promptkit; "+
		"**%d of those %d pass**, and the other %d are documented differences.",
		rendering, jinja2Version, applicable, percent(applicable, rendering), t[passing], applicable, t[documented]+t[failing])
}

func percent(a, b int) int {
	if b == 0 {
		return 0
	}
	return a * 100 / b
}

// table is the suite README's: each module's figures, then the reasons
// tests are not applicable.
func (f *figures) table() string {
	var b strings.Builder
	b.WriteString("| module | pass | documented difference | not applicable | renders nothing |\n|---|---:|---:|---:|---:|\n")
	for _, m := range modules {
		n := f.byModule[m]
		if n == nil {
			n = new([6]int)
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d |\n", m, n[passing], n[documented]+n[failing], n[notApplicable], n[noRender]+n[broken])
	}
	t := f.total()
	fmt.Fprintf(&b, "| all | %d | %d | %d | %d |\n", t[passing], t[documented]+t[failing], t[notApplicable], t[noRender]+t[broken])
	b.WriteString("\n| not applicable because | tests |\n|---|---:|\n")
	reasons := make([]string, 0, len(f.reasons))
	for r := range f.reasons {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if f.reasons[reasons[i]] != f.reasons[reasons[j]] {
			return f.reasons[reasons[i]] > f.reasons[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		fmt.Fprintf(&b, "| %s | %d |\n", strings.ReplaceAll(r, "|", `\|`), f.reasons[r])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// checkFigure holds the text between <!-- name --> and <!-- end of name -->
// in file to want, or rewrites it with -update.
func checkFigure(t *testing.T, file, name, want string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	open, end := "<!-- "+name+" -->", "<!-- end of "+name+" -->"
	s := string(data)
	i, j := strings.Index(s, open), strings.Index(s, end)
	require.True(t, i >= 0 && j > i, "%s has no %q … %q region", file, open, end)
	i += len(open)
	got, want := s[i:j], "\n"+want+"\n"
	if got == want {
		return
	}
	if *update {
		require.NoError(t, os.WriteFile(file, []byte(s[:i]+want+s[j:]), 0o644))
		return
	}
	t.Errorf("%s: the suite's figures are not this run's (go test ./internal/jinjasuite -run TestJinjaSuite -update rewrites them):\n--- %s\n%s\n--- this run\n%s", file, file, got, want)
}

// difference is an entry of differences.md.
type difference struct {
	section string // a heading of docs/jinja-differences.md
	reason  string
}

var (
	sectionRE = regexp.MustCompile(`^## (.+)$`)
	entryRE   = regexp.MustCompile("^- `([^`]+)`: (.+)$")
)

// readDifferences reads differences.md: "## <heading of
// docs/jinja-differences.md>" sections of "- `<test id>`: <how it differs>"
// lines.
func readDifferences(t *testing.T) map[string]difference {
	t.Helper()
	f, err := os.Open(diffsFile)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]difference{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := sectionRE.FindStringSubmatch(line); m != nil {
			section = m[1]
			continue
		}
		m := entryRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		require.NotEmpty(t, section, "%s:%d: an entry before any section", diffsFile, n)
		_, dup := out[m[1]]
		require.False(t, dup, "%s:%d: %s is listed twice", diffsFile, n, m[1])
		out[m[1]] = difference{section: section, reason: m[2]}
	}
	require.NoError(t, sc.Err())
	return out
}

// checkSections: every section differences.md files a test under is a
// heading of docs/jinja-differences.md, where the difference is explained.
func checkSections(t *testing.T, diffs map[string]difference) {
	t.Helper()
	data, err := os.ReadFile(docsFile)
	require.NoError(t, err)
	var headings []string
	for _, line := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			headings = append(headings, h)
		}
	}
	seen := map[string]bool{}
	for _, d := range diffs {
		if !seen[d.section] && !slices.Contains(headings, d.section) {
			t.Errorf("%s files tests under %q, which is not a section of %s", diffsFile, d.section, docsFile)
		}
		seen[d.section] = true
	}
}
