package promptkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// documents are the Markdown files users read.
func documents(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	return append([]string{"README.md", "SECURITY.md"}, docs...)
}

var (
	goFence = regexp.MustCompile("^```go\\s*$")
	marker  = regexp.MustCompile(`^<!-- compiled: (\S+)(?: (\w+))? -->$`)
)

// TestDocSnippets checks every Go snippet of the documents against the
// code it comes from: the line above it, <!-- compiled: FILE FUNC -->,
// names a Go file of the module (and a function in it), every line of the
// snippet appears there in the same order (blank lines and spacing
// aside), and every package it imports is imported there. The functions
// are run by Example functions, so a snippet compiles and works as shown.
func TestDocSnippets(t *testing.T) {
	snippets := 0
	for _, doc := range documents(t) {
		src, err := os.ReadFile(doc)
		require.NoError(t, err)
		lines := strings.Split(string(src), "\n")
		for i := 0; i < len(lines); i++ {
			if !goFence.MatchString(lines[i]) {
				continue
			}
			start := i
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			}
			snippets++
			where := doc + ":" + strconv.Itoa(start+1)
			m := marker.FindStringSubmatch(strings.TrimSpace(lineBefore(lines, start)))
			if !assert.NotNil(t, m, "%s: a Go snippet needs <!-- compiled: FILE FUNC --> on the line above it", where) {
				continue
			}
			t.Run(where, func(t *testing.T) { checkSnippet(t, lines[start+1:i], m[1], m[2]) })
		}
	}
	assert.GreaterOrEqual(t, snippets, 8, "the README and docs/ show Go code")
}

func lineBefore(lines []string, i int) string {
	for i--; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

// checkSnippet compares a snippet with function fn of file (the whole
// file when fn is empty).
func checkSnippet(t *testing.T, snippet []string, file, fn string) {
	src, err := os.ReadFile(file)
	require.NoError(t, err, "the marker names a file of the module")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	require.NoError(t, err)
	code := string(src)
	if fn != "" {
		i := slices.IndexFunc(f.Decls, func(d ast.Decl) bool {
			fd, ok := d.(*ast.FuncDecl)
			return ok && fd.Name.Name == fn
		})
		require.GreaterOrEqual(t, i, 0, "%s has no function %s", file, fn)
		body := f.Decls[i].(*ast.FuncDecl).Body
		code = string(src[fset.Position(body.Lbrace).Offset+1 : fset.Position(body.Rbrace).Offset])
	}
	var imported []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		imported = append(imported, p)
	}

	have := normalized(strings.Split(code, "\n"))
	var want []string
	inImport := false
	for _, l := range normalized(snippet) {
		switch {
		case l == "import (":
			inImport = true
		case inImport && l == ")":
			inImport = false
		case inImport || strings.HasPrefix(l, "import "):
			p, err := strconv.Unquote(strings.TrimPrefix(l, "import "))
			require.NoError(t, err, l)
			assert.Contains(t, imported, p, "the snippet imports %s; %s does not", p, file)
		default:
			want = append(want, l)
		}
	}
	require.NotEmpty(t, want)
	j := 0
	for _, l := range have {
		if j < len(want) && l == want[j] {
			j++
		}
	}
	if j < len(want) {
		t.Errorf("line %q of the snippet (and those after it) is not in %s %s, in this order; the snippet and the code differ", want[j], file, fn)
	}
}

// normalized trims lines, folds runs of spaces and drops blank lines.
func normalized(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// internalReference is how a document would point at the project's own
// history instead of at promptkit: the numbered design documents it came
// from ("seed" and a number) and its issue numbers ("issue" and a number).
var internalReference = regexp.MustCompile(`(?i)\bseed\s*0\d\d\b|\bissue\s*#?\d+\b`)

// TestNoInternalReferences: the documents, the package docs and the code
// comments speak to users about promptkit. (manager/ is checked by its
// own maintainers.)
func TestNoInternalReferences(t *testing.T) {
	for _, doc := range append(documents(t), "bench/README.md") {
		src, err := os.ReadFile(doc)
		require.NoError(t, err)
		assert.Empty(t, internalReference.FindAllString(string(src), -1), doc)
	}
	files := 0
	require.NoError(t, filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "manager" || path != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, cg := range f.Comments {
			assert.Empty(t, internalReference.FindAllString(cg.Text(), -1), "a comment of %s", path)
		}
		return nil
	}))
	assert.Greater(t, files, 50)
}

// TestRootDocListsEveryPackage: the package doc of the root package names
// every package of the module, as a list item "  - PATH: what it is".
func TestRootDocListsEveryPackage(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "promptkit.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	doc := f.Doc.Text()
	var pkgs []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module (bench/)
			}
		}
		goFiles, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if slices.ContainsFunc(goFiles, func(p string) bool { return !strings.HasSuffix(p, "_test.go") }) && path != "." {
			pkgs = append(pkgs, filepath.ToSlash(path))
		}
		return nil
	}))
	require.Contains(t, pkgs, "manager")
	for _, p := range pkgs {
		assert.Regexp(t, `(?m)^\s*- `+regexp.QuoteMeta(p)+`:`, doc, "the root package doc does not list %s", p)
	}
}
