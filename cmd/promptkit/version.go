package main

import (
	"fmt"
	"runtime/debug"
)

// pongo2Module is the module path of the template engine.
const pongo2Module = "github.com/flosch/pongo2/v6"

// version is what --version prints: promptkit's module version and the
// pongo2 version it was built with, from the binary's build information.
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
	engine := "(unknown)"
	for _, d := range bi.Deps {
		if d.Path != pongo2Module {
			continue
		}
		engine = d.Version
		if d.Replace != nil {
			engine = fmt.Sprintf("%s => %s %s", d.Version, d.Replace.Path, d.Replace.Version)
		}
	}
	return fmt.Sprintf("promptkit %s\npongo2 %s\n", own, engine)
}
