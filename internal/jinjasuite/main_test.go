package jinjasuite_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/seed-e7d2830f/promptkit/internal/jinjasuite"
)

// serverEnv, set, makes the test binary the promptkit process the shim
// talks to (Serve on its stdin and stdout) instead of running the tests:
// TestJinjaSuite starts its own binary so, with no second build.
const serverEnv = "PROMPTKIT_JINJASUITE_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		if err := jinjasuite.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "jinjasuite server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
