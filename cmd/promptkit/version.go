package main

import (
	"fmt"
	"runtime/debug"
)

// version is what --version prints: promptkit's module version and the Go
// toolchain it was built with, from the binary's build information.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok)
}

// versionOf formats the versions of bi. The module version is what the
// go command recorded: a release tag or pseudo-version for a binary built
// by "go install …@version", "(devel)" for one built from a checkout.
func versionOf(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "promptkit (unknown: built without module information)\n"
	}
	own := bi.Main.Version
	if own == "" {
		own = "(devel)"
	}
	if bi.GoVersion == "" {
		return fmt.Sprintf("promptkit %s\n", own)
	}
	return fmt.Sprintf("promptkit %s (%s)\n", own, bi.GoVersion)
}
