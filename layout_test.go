package promptkit_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goPackage is what go list -json says of one package.
type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	require.NoError(t, err)
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p goPackage
		require.NoError(t, dec.Decode(&p))
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestLayout holds the house's rules: promptkit runs its own engine (no
// package of the module imports pongo2, which bench/ keeps as a measured
// peer), the front end is free of the engine, and message types do not
// pull in the manager.
func TestLayout(t *testing.T) {
	const (
		module = "github.com/seed-e7d2830f/promptkit"
		pongo2 = "github.com/flosch/pongo2"
	)
	deps := map[string][]string{}
	for _, p := range listPackages(t) {
		deps[p.ImportPath] = p.Deps
		for _, d := range p.Deps {
			assert.False(t, strings.HasPrefix(d, pongo2), "%s depends on %s: the engine is promptkit's own", p.ImportPath, d)
		}
	}
	for pkg, forbidden := range map[string][]string{
		module + "/internal/jinja": {module + "/internal/engine", module + "/manager"},
		module + "/message":        {module + "/manager", module + "/internal/engine", module + "/internal/jinja"},
		module + "/rag":            {module + "/manager", "github.com/fsnotify/fsnotify"},
		module + "/contextstack":   {module + "/manager"},
	} {
		require.Contains(t, deps, pkg)
		for _, f := range forbidden {
			assert.NotContains(t, deps[pkg], f, "%s must not depend on %s", pkg, f)
		}
	}
}

// TestOneMessageType: a chat message is defined once, in package message;
// other packages alias it.
func TestOneMessageType(t *testing.T) {
	var defs []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, isStruct := ts.Type.(*ast.StructType); isStruct && ts.Name.Name == "Message" && !ts.Assign.IsValid() {
					defs = append(defs, filepath.ToSlash(filepath.Dir(p)))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"message"}, defs)
}
