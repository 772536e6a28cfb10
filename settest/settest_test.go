package settest_test

import (
	"os"
	"os/exec"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/settest"
)

func TestRunPassesAGoodSet(t *testing.T) {
	settest.Run(t, fstest.MapFS{
		"index.json":            {Data: []byte(`{"version": 1, "templates": {"hi": {"path": "hi.md", "variables": ["name"]}}}`)},
		"hi.md":                 {Data: []byte("你好，{{ name }}")},
		"fixtures/hi.json":      {Data: []byte(`{"fixtures": [{"name": "a", "template": "hi", "vars": {"name": "麦麦"}, "golden": "golden/a.txt"}]}`)},
		"fixtures/golden/a.txt": {Data: []byte("你好，麦麦")},
	})
}

// A failing fixture fails its subtest, with the golden's diff, and a set
// without fixtures fails the test: both run in a child process, whose
// failure is the point.
func TestRunFailsWhatFails(t *testing.T) {
	switch os.Getenv("SETTEST_CHILD") {
	case "failing":
		settest.Run(t, fstest.MapFS{
			"index.json":            {Data: []byte(`{"version": 1, "templates": {"hi": {"path": "hi.md", "variables": ["name"]}}}`)},
			"hi.md":                 {Data: []byte("你好，{{ name }}")},
			"fixtures/hi.json":      {Data: []byte(`{"fixtures": [{"name": "a", "template": "hi", "vars": {"name": "麦麦"}, "golden": "golden/a.txt"}, {"name": "b", "template": "hi", "vars": {"name": "x"}}]}`)},
			"fixtures/golden/a.txt": {Data: []byte("你好，小爱")},
		})
		return
	case "empty":
		settest.Run(t, fstest.MapFS{
			"index.json": {Data: []byte(`{"version": 1, "templates": {}}`)},
		})
		return
	}
	for child, want := range map[string][]string{
		"failing": {"--- FAIL: TestRunFailsWhatFails/hi/a", "--- PASS: TestRunFailsWhatFails/hi/b",
			"fixtures/hi.json:1:15: golden: the output differs from the golden file fixtures/golden/a.txt", "-你好，小爱", "+你好，麦麦"},
		"empty": {"the set has no fixtures (fixtures/*.json)"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunFailsWhatFails$", "-test.v")
		cmd.Env = append(os.Environ(), "SETTEST_CHILD="+child)
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "%s", out)
		for _, w := range want {
			assert.Contains(t, string(out), w)
		}
	}
}
