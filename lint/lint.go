// Package lint finds prompts written inline in Go source, which promptkit
// forbids: prompt text lives in template files, and code only picks a
// template and fills its variables.
//
// It parses Go source with go/parser (it does not grep) and reports every
// string literal in non-test code that contains
//
//   - template syntax: "{{" or "{%";
//   - prompt wording in CJK script (Chinese, Japanese, Korean, and their
//     full-width punctuation such as "（无）");
//   - several lines of prose: a literal, or a chain of literals joined
//     with +, that has two or more lines with words, of which at least one
//     reads like a sentence (four or more words of two or more letters).
//
// Error messages and log text are English and short, so they do not trip
// it. A rare justified exception is marked on the line above the literal,
// or above the statement or declaration that holds it, with
//
//	//promptkit:allow-inline <reason>
//
// A marker on the line directly above the package clause exempts the whole
// file: that is for code whose subject is template syntax itself, such as
// a template engine's lexer. A marker without a reason, or one that
// exempts nothing, is itself reported, so exemptions cannot go stale
// unnoticed.
//
// Test files (_test.go) and generated files are skipped; so are
// directories named testdata or vendor, or starting with "." or "_", when
// a pattern walks a tree with "...", as the go command does.
package lint

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Marker is the comment that exempts the literal below it.
const Marker = "//promptkit:allow-inline"

// ErrPattern is returned for a pattern that names nothing lint can read.
var ErrPattern = errors.New("lint: bad pattern")

// Finding is one inline prompt, or one bad marker.
type Finding struct {
	Pos token.Position
	Msg string
}

// String formats the finding as "file:line:col: message".
func (f Finding) String() string { return f.Pos.String() + ": " + f.Msg }

// Messages of findings.
const (
	msgTemplate = "template syntax in a string literal; move the prompt into a template file"
	msgCJK      = "prompt wording (CJK text) in a string literal; move it into a template file"
	msgProse    = "multi-line prose in a string literal; move the prompt into a template file"
	msgNoReason = Marker + " needs a reason"
	msgUnused   = Marker + " exempts no string literal; remove it"
)

// Source lints the Go source src of one file; filename names it in the
// findings. It does not skip test or generated files: Paths does.
func Source(filename string, src []byte) ([]Finding, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	return file(fset, f), nil
}

// file lints a parsed file.
func file(fset *token.FileSet, f *ast.File) []Finding {
	var out []Finding
	line := func(p token.Pos) int { return fset.Position(p).Line }

	// Markers by line, and whether each exempted something.
	type marker struct {
		pos  token.Pos
		used bool
	}
	markers := map[int]*marker{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			rest, ok := strings.CutPrefix(c.Text, Marker)
			if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
				continue
			}
			if strings.TrimSpace(rest) == "" {
				out = append(out, Finding{fset.Position(c.Pos()), msgNoReason})
				continue
			}
			markers[line(c.Pos())] = &marker{pos: c.Pos()}
		}
	}
	allowed := func(lit ast.Node, stack []ast.Node) bool {
		lines := []int{line(f.Package), line(lit.Pos())}
		for i := len(stack) - 1; i >= 0; i-- {
			switch n := stack[i].(type) {
			case *ast.GenDecl, *ast.ValueSpec:
				lines = append(lines, line(n.Pos()))
				continue
			case ast.Stmt:
				lines = append(lines, line(n.Pos()))
			default:
				continue
			}
			break // the innermost statement only
		}
		found := false
		for _, l := range lines {
			if m := markers[l-1]; m != nil {
				m.used, found = true, true
			}
		}
		return found
	}
	check := func(lit ast.Node, value string, stack []ast.Node) {
		msg := classify(value)
		if msg == "" || allowed(lit, stack) {
			return
		}
		out = append(out, Finding{fset.Position(lit.Pos()), msg})
	}

	ast.PreorderStack(f, nil, func(n ast.Node, stack []ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false // import paths
		case *ast.Field:
			if n.Tag != nil { // struct tags: visit the rest only
				ast.PreorderStack(n.Type, append(stack, n), func(m ast.Node, s []ast.Node) bool {
					if lit, ok := m.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						check(lit, unquote(lit), s)
					}
					return true
				})
				return false
			}
		case *ast.BinaryExpr:
			if value, ok := concat(n); ok {
				check(n, value, stack)
				return false
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				check(n, unquote(n), stack)
			}
		}
		return true
	})

	for _, m := range markers {
		if !m.used {
			out = append(out, Finding{fset.Position(m.pos), msgUnused})
		}
	}
	sortFindings(out)
	return out
}

// concat folds a chain of string literals joined with + into one value.
func concat(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			return unquote(e), true
		}
	case *ast.ParenExpr:
		return concat(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := concat(e.X)
		if !ok {
			return "", false
		}
		y, ok := concat(e.Y)
		return x + y, ok
	}
	return "", false
}

func unquote(lit *ast.BasicLit) string {
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return lit.Value // the parser accepted it; keep the raw text
	}
	return s
}

// classify returns the message for an inline prompt, or "".
func classify(s string) string {
	switch {
	//promptkit:allow-inline the delimiters this linter looks for
	case strings.Contains(s, "{{") || strings.Contains(s, "{%"):
		return msgTemplate
	case hasCJK(s):
		return msgCJK
	case isProse(s):
		return msgProse
	}
	return ""
}

// hasCJK reports whether s has a CJK character or CJK punctuation.
func hasCJK(s string) bool {
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo):
			return true
		case r >= 0x3000 && r <= 0x303F, // CJK symbols and punctuation: 、。「」【】
			r >= 0xFF00 && r <= 0xFFEF: // full-width forms: （）：，
			return true
		}
	}
	return false
}

// isProse reports whether s has two or more lines with words, and at least
// one of them has four or more words.
func isProse(s string) bool {
	lines, sentence := 0, false
	for l := range strings.Lines(s) {
		n := words(l)
		if n == 0 {
			continue // blank, or only symbols and verbs such as "%s"
		}
		lines++
		sentence = sentence || n >= 4
	}
	return lines >= 2 && sentence
}

// words counts the runs of two or more letters in s, so that a format verb
// such as "%s" is not a word.
func words(s string) int {
	n, run := 0, 0
	for _, r := range s + " " {
		if unicode.IsLetter(r) {
			run++
			continue
		}
		if run >= 2 {
			n++
		}
		run = 0
	}
	return n
}

func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
		)
	})
}

// Paths lints the Go files that patterns name, sorted by position. A
// pattern is a .go file, a directory (its own .go files), DIR/... (the
// directory and every directory below it, skipping testdata, vendor, names
// starting with "." or "_", and nested modules), or an import path in the
// main module (found by the go.mod above the working directory), with or
// without "/...". No pattern means "./...".
func Paths(patterns ...string) ([]Finding, error) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	var files []string
	for _, p := range patterns {
		fs, err := expand(p)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	slices.Sort(files)
	files = slices.Compact(files)

	var out []Finding
	var errs []error
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ast.IsGenerated(f) {
			continue
		}
		out = append(out, file(fset, f)...)
	}
	sortFindings(out)
	return out, errors.Join(errs...)
}

// expand turns one pattern into file names.
func expand(p string) ([]string, error) {
	dir, recursive := strings.CutSuffix(p, "...")
	if recursive {
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
	}
	if !recursive && strings.HasSuffix(p, ".go") {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrPattern, err)
		}
		return []string{p}, nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		mapped, ok := moduleDir(dir)
		if !ok {
			return nil, fmt.Errorf("%w: %q is neither a .go file, a directory nor a package of the main module", ErrPattern, p)
		}
		dir = mapped
	}
	if !recursive {
		return goFiles(dir)
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != dir {
			name := d.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		fs, err := goFiles(path)
		files = append(files, fs...)
		return err
	})
	return files, err
}

// goFiles lists the non-test .go files of one directory.
func goFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPattern, err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, filepath.Join(dir, name))
		}
	}
	return files, nil
}

// moduleDir maps an import path of the main module to its directory,
// relative to the working directory.
func moduleDir(importPath string) (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for root := wd; ; root = filepath.Dir(root) {
		data, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err == nil {
			mod := modulePath(data)
			rest, ok := strings.CutPrefix(importPath, mod)
			if mod == "" || !ok || (rest != "" && rest[0] != '/') {
				return "", false
			}
			dir := filepath.Join(root, filepath.FromSlash(rest))
			if rel, err := filepath.Rel(wd, dir); err == nil {
				dir = rel
			}
			return dir, true
		}
		if parent := filepath.Dir(root); parent == root {
			return "", false
		}
	}
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod []byte) string {
	for l := range strings.Lines(string(gomod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
