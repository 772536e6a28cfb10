//promptkit:allow-inline the front end's diagnostics: messages quote template syntax
package jinja

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/suggest"
)

// Every problem the front end reports is made here, one function per
// diagnostic, in the manner of cel-go's checker/errors.go: the wording of
// each lives in one place, and the tests hold it.

// Kind classifies a problem.
type Kind int

const (
	// Syntax: the source is not valid Jinja.
	Syntax Kind = iota
	// Unsupported: valid Jinja that promptkit does not run; the message
	// names the alternative.
	Unsupported
	// Undeclared: a name that is neither a declared variable, a local nor
	// a global.
	Undeclared
	// Limit: nesting or size beyond a limit.
	Limit
	// Include: an include, import or extends that cannot be resolved
	// (missing file, cycle, path outside the set).
	Include
	// Sandbox: a path that would leave the template set's root.
	Sandbox
	// Mistyped: a typed variable used in a way its schema refuses (a path
	// the schema does not have, a filter, test, method or operator that
	// needs another type); Name is the variable.
	Mistyped
	// Unguarded: an optional variable without a default read where no
	// guard (is defined, default) covers it (guards.go); Name is the
	// variable. A finding, not a refusal: the template loads.
	Unguarded
	// Prefix: a cache breakpoint whose prefix is not proven the same for
	// every render (FixedPrefix); Name is the variable it depends on,
	// when a variable is the cause.
	Prefix

	// The kinds of a render's problems (internal/engine).

	// Render: a render failed (a type error, division by zero, an
	// undefined value used).
	Render
	// Budget: a render would exceed one of its budgets (output, memory,
	// work, loop iterations, call depth).
	Budget
	// Raised: the template called raise_exception(message); Msg is the
	// template's message.
	Raised
	// Canceled: the render's context was cancelled or reached its
	// deadline; Err is the context's cause.
	Canceled
	// Undefined: a render used an undefined value where a strict
	// template set does not allow one (printed it, iterated it, tested
	// its truth, compared it…); Expr, Value and Suggest say more.
	Undefined
)

// Error is one problem, positioned in its file: every problem of a
// template, from the lexer's to the engine's, is one of these, and its
// Kind says which.
type Error struct {
	File      string // the file's name (Source.Name)
	Pos       Pos
	Line, Col int // 1-based; set once the problem is located
	Kind      Kind
	Name      string // the variable or construct concerned, when there is one
	Msg       string
	Err       error // the cause, when there is one (a context's error, a host's)

	// Of an undefined value used (Kind Undefined): the expression as
	// written (d.nmae), what the value it looked into is ("a dict with
	// keys name, tags"), and the name it may misspell ("name"); each ""
	// when unknown.
	Expr, Value, Suggest string
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// At makes the error of a problem at p of s, located.
func At(s *Source, p Pos, kind Kind, msg string, cause error) *Error {
	e := &Error{Pos: p, Kind: kind, Msg: msg, Err: cause}
	if s != nil {
		e.File = s.Name
		e.Line, e.Col = s.Position(p)
	}
	return e
}

func (e *Error) Error() string {
	if e.File == "" && e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ErrorList is every problem of one check, in source order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// located fills in file, line and column from s.
func (l ErrorList) located(s *Source) ErrorList {
	for _, e := range l {
		if e.File == "" {
			e.File = s.Name
		}
		e.Line, e.Col = s.Position(e.Pos)
	}
	return l
}

func syntaxf(p Pos, format string, args ...any) *Error {
	return &Error{Pos: p, Kind: Syntax, Msg: fmt.Sprintf(format, args...)}
}

func unsupportedf(p Pos, name, format string, args ...any) *Error {
	return &Error{Pos: p, Kind: Unsupported, Name: name, Msg: fmt.Sprintf(format, args...)}
}

// Lexer.

func errInvalidUTF8(p Pos) *Error {
	return syntaxf(p, "invalid UTF-8: template files must be UTF-8 text")
}

func errUnclosedComment(p Pos) *Error { return syntaxf(p, `unclosed comment: missing "#}"`) }

func errUnclosedRaw(p Pos) *Error {
	return syntaxf(p, "unclosed {%% raw %%}: missing {%% endraw %%}")
}

func errUnclosedTag(p Pos, closer string) *Error {
	return syntaxf(p, "unclosed tag: missing %q", closer)
}

func errUnclosedBracket(p Pos, open byte, closer string) *Error {
	return syntaxf(p, "%q is never closed before %q", open, closer)
}

func errUnbalanced(p Pos, got string, open byte) *Error {
	if open == 0 {
		return syntaxf(p, "unexpected %q: no bracket is open", got)
	}
	closer := map[byte]string{'(': ")", '[': "]", '{': "}"}[open]
	return syntaxf(p, "unexpected %q: expected %q to close %q", got, closer, string(open))
}

func errUnexpectedChar(p Pos, r rune) *Error {
	return syntaxf(p, "unexpected character %q in tag", r)
}

func errUnclosedString(p Pos) *Error { return syntaxf(p, "unclosed string literal") }

// errBadEscape reports a \x, \u or \U escape that Python refuses:
// too few hex digits, or no character (a surrogate, beyond U+10FFFF).
func errBadEscape(p Pos, esc string, kind byte, complete bool) *Error {
	if !complete {
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[kind]
		return syntaxf(p, "bad escape %s in string: \\%c takes %d hex digits", esc, kind, width)
	}
	return syntaxf(p, "bad escape %s in string: U+%s is not a character", esc, strings.ToUpper(strings.TrimLeft(esc[2:], "0")))
}

func errNamedEscape(p Pos) *Error {
	return unsupportedf(p, `\N`, `escapes by character name (\N{…}) are not supported; write the character itself, or \u with its code`)
}

func errBadNumber(p Pos, lit string) *Error { return syntaxf(p, "bad number %q", lit) }

// Parser.

func errExpected(p Pos, want string, got item) *Error {
	return syntaxf(p, "expected %s, found %s", want, got)
}

func errUnexpected(p Pos, got item) *Error {
	return syntaxf(p, "unexpected %s in expression", got)
}

func errExpectedTagName(p Pos, got item) *Error {
	return syntaxf(p, "expected a tag name after {%%, found %s", got)
}

func errNeverClosed(p Pos, tag, end string) *Error {
	return syntaxf(p, "{%% %s %%} is never closed: missing {%% %s %%}", tag, end)
}

func errUnexpectedEndTag(p Pos, tag, inside string) *Error {
	if inside == "" {
		return syntaxf(p, "unexpected {%% %s %%} with no open block", tag)
	}
	return syntaxf(p, "unexpected {%% %s %%} inside {%% %s %%}", tag, inside)
}

func errBadTarget(p Pos, got item) *Error {
	if got.typ == itemName {
		return syntaxf(p, "%q cannot be a loop variable or assignment target: it is a reserved word", got.val)
	}
	return syntaxf(p, "expected a name to assign to, found %s", got)
}

func errImportUnderscore(p Pos, name string) *Error {
	return syntaxf(p, "names starting with an underscore cannot be imported: %s", name)
}

func errEndblockName(p Pos, got, want string) *Error {
	return syntaxf(p, "{%% endblock %s %%} closes {%% block %s %%}", got, want)
}

func errExtendsAgain(p Pos, firstLine int) *Error {
	return syntaxf(p, "a second {%% extends %%}: a template cannot be extended multiple times (its first {%% extends %%} is on line %d)", firstLine)
}

func errRequiredBlock(p Pos, name string) *Error {
	return syntaxf(p, "required block %q not found: no template of the chain defines it", name)
}

func errRequiredBlockBody(p Pos, name string) *Error {
	return syntaxf(p, "required block %q may contain only whitespace and comments", name)
}

func errNonDefaultAfterDefault(p Pos, name string) *Error {
	return syntaxf(p, "parameter %s without a default follows one with a default", name)
}

func errCallBlockNeedsCall(p Pos) *Error {
	return syntaxf(p, "{%% call %%} needs a macro call: {%% call m(…) %%}")
}

func errChatRole(p Pos, got item) *Error {
	return syntaxf(p, "expected role=… after chat, as in {%% chat role=\"user\" %%}, found %s", got)
}

func errMarkPriority(p Pos, tag string, got item) *Error {
	switch tag {
	case "for":
		return syntaxf(p, "expected priority=… after shrink, as in {%% for d in docs shrink priority=1 drop=\"end\" keep=1 %%}, found %s", got)
	case "chat":
		return syntaxf(p, "expected priority=…, as in {%% chat role=\"user\" priority=1 %%}, found %s", got)
	}
	return syntaxf(p, "expected priority=… after shrink, as in {%% shrink priority=1 %%}, found %s", got)
}

func errMarkInt(p Pos, tag, key string) *Error {
	if key == "keep" {
		return syntaxf(p, "keep= takes a literal integer of 0 or more: the items a cut loop keeps")
	}
	return syntaxf(p, "priority= takes a literal integer (lower is cut first), so that the order of cuts is known at load")
}

func errMarkDrop(p Pos) *Error {
	return syntaxf(p, "drop= is \"end\" or \"start\": the end of the list a loop's items are cut from")
}

func errMarkTwice(p Pos, key string) *Error {
	return syntaxf(p, "%s= is given twice", key)
}

func errMarkRecursive(p Pos) *Error {
	return unsupportedf(p, "shrink", "a recursive loop's items cannot be cut (shrink): mark the loop's body with {%% shrink priority=… %%} instead")
}

func errBlockDepth(p Pos) *Error {
	return &Error{Pos: p, Kind: Limit, Msg: fmt.Sprintf("blocks nested deeper than %d", MaxBlockDepth)}
}

func errExprDepth(p Pos) *Error {
	return &Error{Pos: p, Kind: Limit, Msg: fmt.Sprintf("expression nested deeper than %d levels", MaxExprDepth)}
}

func errEmptySubscript(p Pos) *Error { return syntaxf(p, "empty subscript") }

// errArgOrder reports an argument out of Jinja's order: positional
// arguments, then keyword arguments and one *args, then one **kwargs.
func errArgOrder(p Pos, arg, after string) *Error {
	if arg == after {
		return syntaxf(p, "a second %s: a call takes at most one *args and one **kwargs", arg)
	}
	return syntaxf(p, "%s after %s: arguments go positional, then keyword and *args, then **kwargs", arg, after)
}

func errChainedTests(p Pos) *Error { return syntaxf(p, "tests cannot be chained with is") }

// Django's dialect (pongo2's, Go's other template engines') written where
// Jinja is expected: each gets the Jinja form.

func errDjangoFilterArg(p Pos, filter string) *Error {
	return unsupportedf(p, filter, "Django filter arguments (%s:arg) are not supported; write Jinja's %s(arg)", filter, filter)
}

// djangoTags are Django tags that Jinja does not have, with what to write
// instead.
var djangoTags = map[string]string{
	"cycle":       "loop.cycle('a', 'b') inside the loop",
	"ifchanged":   "loop.changed(value) inside the loop",
	"empty":       "{% else %} of the for loop",
	"ifequal":     "{% if a == b %}",
	"ifnotequal":  "{% if a != b %}",
	"firstof":     "{{ a or b }}",
	"verbatim":    "{% raw %}…{% endraw %}",
	"templatetag": "{% raw %}…{% endraw %}",
	"spaceless":   "whitespace control: {%- … -%}",
	"widthratio":  "arithmetic in an expression",
	"lorem":       "literal text",
	"now":         "strftime_now(format), or a variable passed by the caller",
	"ssi":         "{% include %} of a file inside the template set",
	"comment":     "{# … #}",
	"url":         "a variable passed by the caller",
	"load":        "nothing: Jinja's filters need no loading",
}

// refusedTags are Jinja tags promptkit does not run, and why.
var refusedTags = map[string]string{
	"do":    "{% set %} (the do extension is not enabled in Jinja's default environment)",
	"trans": "literal text (templates are not translated)",
}

func errUnknownTag(p Pos, name string) *Error {
	if alt, ok := djangoTags[name]; ok {
		return unsupportedf(p, name, "tag %q is not supported: it is Django's, not Jinja's; write %s", name, alt)
	}
	if alt, ok := refusedTags[name]; ok {
		return unsupportedf(p, name, "tag %q is not supported; use %s", name, alt)
	}
	return syntaxf(p, "unknown tag %q", name)
}

// Checks.

// errNotInModule reports a variable of the template read by a template it
// includes without context or imports (by: the include or import tag).
func errNotInModule(p Pos, name string, by Node) *Error {
	if _, ok := by.(*IncludeNode); ok {
		return &Error{Pos: p, Kind: Undeclared, Name: name, Msg: fmt.Sprintf(
			"%q is a variable of the including template, which a template included without context does not see: drop \"without context\" from the {%% include %%}", name)}
	}
	return &Error{Pos: p, Kind: Undeclared, Name: name, Msg: fmt.Sprintf(
		"%q is a variable of the importing template, which an imported template sees only when imported with context: {%% import \"…\" as m with context %%}", name)}
}

func errUndeclared(p Pos, name string, visible []string, hint string) *Error {
	e := &Error{Pos: p, Kind: Undeclared, Name: name}
	switch name {
	case "loop":
		e.Msg = "loop exists only inside a {% for %} loop"
	case "forloop":
		e.Msg = "forloop is Django's loop variable; in Jinja write loop.index, loop.index0, loop.first, loop.last, … inside the loop"
	case "caller", "varargs", "kwargs":
		e.Msg = fmt.Sprintf("%s exists only inside a {%% macro %%}", name)
	case "super":
		e.Msg = "super() exists only inside a {% block %} of a template that extends another"
	default:
		e.Msg = fmt.Sprintf("undeclared variable %q", name)
		if hint != "" {
			e.Msg += " (" + hint + ")"
		}
		if s := suggest.Closest(name, visible); s != "" {
			e.Msg += fmt.Sprintf("; did you mean %q?", s)
		}
	}
	return e
}

func sortedNames(m map[string]Spec) string {
	var names []string
	for n, s := range m {
		if s.Refused == "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// supportedNames names what a misspelled builtin may have meant: the
// one Suggest finds, else every supported name of its kind.
func supportedNames(kind, name string, specs map[string]Spec) string {
	var names []string
	for n, s := range specs {
		if s.Refused == "" {
			names = append(names, n)
		}
	}
	if s := suggest.Closest(name, names); s != "" {
		return fmt.Sprintf("did you mean %q?", s)
	}
	return fmt.Sprintf("supported %s: %s", kind, sortedNames(specs))
}

func errUnknownFilter(p Pos, name string, filters map[string]Spec) *Error {
	if name == "add" || name == "date" || name == "safeseq" || name == "linebreaks" || name == "yesno" || name == "slugify" {
		return unsupportedf(p, name, "filter %q is Django's, not Jinja's; supported filters: %s", name, sortedNames(filters))
	}
	return unsupportedf(p, name, "filter %q is not supported; %s", name, supportedNames("filters", name, filters))
}

func errUnknownTest(p Pos, name string, tests map[string]Spec) *Error {
	return unsupportedf(p, name, "test %q is not supported; %s", name, supportedNames("tests", name, tests))
}

func errUnknownMethod(p Pos, name string, methods map[string]Spec) *Error {
	return unsupportedf(p, name, "method %s(…) is not supported; %s", name, supportedNames("methods", name, methods))
}

func errRefused(p Pos, what, name, why string) *Error {
	return unsupportedf(p, name, "%s %q is not supported: %s", what, name, why)
}

func errArity(p Pos, what, name string, spec Spec) *Error {
	var takes string
	switch {
	case spec.MaxArgs == 0 && len(spec.Kwargs) == 0:
		takes = "no arguments"
	case spec.MaxArgs < 0:
		takes = fmt.Sprintf("at least %d arguments", spec.MinArgs)
	case spec.MinArgs == 1 && spec.MaxArgs == 1:
		takes = "1 argument"
	case spec.MinArgs == spec.MaxArgs:
		takes = fmt.Sprintf("%d arguments", spec.MinArgs)
	default:
		takes = fmt.Sprintf("%d to %d arguments", spec.MinArgs, spec.MaxArgs)
	}
	if len(spec.Kwargs) > 0 {
		takes += " (" + strings.Join(spec.Kwargs, ", ") + ")"
	}
	return syntaxf(p, "%s %s takes %s", what, name, takes)
}

func errUnknownKwarg(p Pos, what, name, kw string, spec Spec) *Error {
	if len(spec.Kwargs) == 0 {
		return syntaxf(p, "%s %s takes no keyword arguments (got %s=)", what, name, kw)
	}
	return syntaxf(p, "%s %s has no argument %q (it has: %s)", what, name, kw, strings.Join(spec.Kwargs, ", "))
}

func errLoopAttr(p Pos, name string, attrs []string) *Error {
	if s := suggest.Closest(name, attrs); s != "" {
		return unsupportedf(p, "loop."+name, "loop has no attribute %q; did you mean %q?", name, s)
	}
	return unsupportedf(p, "loop."+name, "loop has no attribute %q; it has: %s", name, strings.Join(attrs, ", "))
}

func errLoopNotRecursive(p Pos) *Error {
	return syntaxf(p, "loop(…) recurses only in a loop marked recursive: {%% for x in xs recursive %%}")
}

func errLoopControlOutside(p Pos, tag string) *Error {
	return syntaxf(p, "%s outside a {%% for %%} loop", tag)
}

func errReservedName(p Pos, name string) *Error {
	return syntaxf(p, "%q cannot be assigned: it is reserved", name)
}

func errBadAssign(p Pos, what string) *Error {
	return syntaxf(p, "cannot assign to %s", what)
}

func errCallerNoDefault(p Pos) *Error {
	return syntaxf(p, `parameter "caller" needs a default, such as caller=none: when defining macros or call blocks the special "caller" argument must be omitted or be given a default`)
}

func errDuplicateParam(p Pos, name string) *Error {
	return syntaxf(p, "parameter %s is declared twice", name)
}

func errAutoescape(p Pos) *Error {
	return unsupportedf(p, "autoescape", "{%% autoescape %%} with anything but false is not supported: promptkit never HTML-escapes output; escape values in the builder")
}

func errExtendsPlace(p Pos) *Error {
	return syntaxf(p, "{%% extends %%} must stand at the top level of the template, not inside another tag")
}

func errDynamicPath(p Pos, tag string) *Error {
	return unsupportedf(p, tag, "%s takes a literal path string, such as {%% %s \"parts/rules.md\" %%}: dynamic paths cannot be checked at load", tag, tag)
}

func errIncludeCycle(p Pos, tag string, chain []string) *Error {
	return &Error{Pos: p, Kind: Include, Msg: fmt.Sprintf("%s cycle: %s", tag, strings.Join(chain, " -> "))}
}

func errIncludeDepth(p Pos, tag string, depth int) *Error {
	return &Error{Pos: p, Kind: Limit, Msg: fmt.Sprintf("%ss nested deeper than %d", tag, depth)}
}

func errInlinedSize(p Pos, tag string, chain []string, limit int) *Error {
	return &Error{Pos: p, Kind: Limit, Msg: fmt.Sprintf("with its %ss expanded the template would exceed %d bytes of source (%s)", tag, limit, strings.Join(chain, " -> "))}
}

func errNoFiles(p Pos, tag string) *Error {
	return &Error{Pos: p, Kind: Include, Msg: fmt.Sprintf("%s: no files to read from", tag)}
}

func errLoad(p Pos, tag, file string, le *LoadError) *Error {
	msg := fmt.Sprintf("%s %q: %s", tag, file, le.Msg)
	if le.Kind == Include {
		msg += " (paths are relative to the template set's root)"
	}
	return &Error{Pos: p, Kind: le.Kind, Name: file, Msg: msg}
}

func errNotExported(p Pos, name string, exported []string) *Error {
	return syntaxf(p, "the imported template defines no %q (it exports: %s)", name, strings.Join(exported, ", "))
}

// Chat templates.

func errTextOutsideChat(p Pos) *Error {
	return syntaxf(p, "text outside a {%% chat %%} block: in a chat template every message is a chat block")
}

func errOutputOutsideChat(p Pos) *Error {
	return syntaxf(p, "output outside a {%% chat %%} block: in a chat template every message is a chat block")
}

func errNestedChat(p Pos, outer string) *Error {
	return syntaxf(p, "chat blocks cannot nest: this {%% chat %%} is inside the one opened at %s", outer)
}

func errChatRoleType(p Pos, v any, roles []string) *Error {
	kind := "None"
	switch v.(type) {
	case bool:
		kind = "boolean"
	case int64:
		kind = "integer"
	case float64:
		kind = "float"
	}
	return syntaxf(p, "chat role must be a string, not %s; allowed roles: %s", kind, strings.Join(roles, ", "))
}

func errChatRoleUnknown(p Pos, role string, roles []string) *Error {
	return syntaxf(p, "unknown chat role %q; allowed roles: %s", role, strings.Join(roles, ", "))
}

func errChatAllowList(p Pos) *Error {
	return syntaxf(p, "allow= takes a list of roles as string literals, as in {%% chat role=turn.role allow=[\"user\", \"assistant\"] %%}")
}

func errChatRoleFromValue(p Pos, role string) *Error {
	return syntaxf(p, "the chat role %s is not a literal: a value could make it any role, \"system\" too; "+
		"list the roles it may take: {%% chat role=%s allow=[\"user\", \"assistant\"] %%}", role, role)
}

func errChatAllowLiteral(p Pos) *Error {
	return syntaxf(p, "allow= restricts a role that is not a literal; a literal role needs none")
}

func errImageArgs(p Pos) *Error {
	return syntaxf(p, "the image filter takes no arguments: {{ x | image }}")
}

func errImageOutsideChat(p Pos) *Error {
	return syntaxf(p, "the image filter is allowed only inside a {%% chat %%} block: {{ x | image }} makes an image part of a chat message")
}

func errImageNotAlone(p Pos) *Error {
	return syntaxf(p, "the image filter must stand alone in an output inside a {%% chat %%} block: {{ x | image }}")
}

// Types (types.go). subject is the expression a problem is about, as
// written; at is where its type is in the variable's schema
// ("user.tags[*]"), shown when the two differ.

func typeSubject(subject, at string) string {
	if subject == at {
		return subject
	}
	return subject + " (" + at + ")"
}

func typef(p Pos, variable, format string, args ...any) *Error {
	return &Error{Pos: p, Kind: Mistyped, Name: variable, Msg: fmt.Sprintf(format, args...)}
}

func errNoProperty(p Pos, expr, variable, subject, at, name string, props []string) *Error {
	msg := fmt.Sprintf("%s is not in the schema of variable %q: %s has no property %q", expr, variable, typeSubject(subject, at), name)
	switch s := suggest.Closest(name, props); {
	case s != "":
		msg += fmt.Sprintf("; did you mean %q?", s)
	case len(props) == 0:
		msg += " (it declares none)"
	default:
		msg += " (it has: " + strings.Join(props, ", ") + ")"
	}
	return typef(p, variable, "%s", msg)
}

func errDictMethod(p Pos, expr, variable, subject, at, name string, isProperty bool) *Error {
	if isProperty {
		return typef(p, variable, "%s reads the method %s of %s, not its property %q: in Jinja an object's methods come before its keys; write %s[%q]",
			expr, name, typeSubject(subject, at), name, subject, name)
	}
	return typef(p, variable, "%s is the method %s of %s (an object in variable %q's schema), not a value: call it, %s()",
		expr, name, typeSubject(subject, at), variable, expr)
}

func errNotObject(p Pos, expr, variable, subject, at string, got Kinds, attr bool) *Error {
	what := "attributes"
	if !attr {
		what = "keys"
	}
	return typef(p, variable, "%s is not in the schema of variable %q: %s is %s, which has no %s", expr, variable, typeSubject(subject, at), got, what)
}

func errNotIndexable(p Pos, expr, variable, subject, at string, got Kinds) *Error {
	return typef(p, variable, "%s is not in the schema of variable %q: %s is %s, which cannot be indexed by position", expr, variable, typeSubject(subject, at), got)
}

func errNeedsKind(p Pos, what string, want Kinds, variable, subject, at string, got Kinds) *Error {
	return typef(p, variable, "%s needs %s, but the schema of variable %q makes %s %s", what, want, variable, typeSubject(subject, at), got)
}

func errOperands(p Pos, op string, l, r Kinds, variable, subject, at string, got Kinds) *Error {
	return typef(p, variable, "operator %s cannot take %s and %s: the schema of variable %q makes %s %s", op, l, r, variable, typeSubject(subject, at), got)
}

// Cache breakpoints (fixed.go).

func errPrefixVaries(p Pos, msg int, what, name string) *Error {
	return &Error{Pos: p, Kind: Prefix, Name: name, Msg: fmt.Sprintf(
		"the cache breakpoint after message %d needs the prefix before it to be the same for every render, and it depends on %s", msg, what)}
}

func errPrefixUncounted(p Pos, msg int, tag string) *Error {
	return &Error{Pos: p, Kind: Prefix, Msg: fmt.Sprintf(
		"the cache breakpoint after message %d needs the messages before it to be the same for every render: %s before it may add messages (promptkit counts the chat blocks that run on every render; put the breakpoint before it)", msg, tag)}
}

func errPrefixShort(p Pos, msg, have int) *Error {
	return &Error{Pos: p, Kind: Prefix, Msg: fmt.Sprintf(
		"the cache breakpoint after message %d: the template renders %d message(s) on every render before anything conditional, so there is no message %d to end the prefix", msg, have, msg)}
}

// tagOf names a statement for a message.
func tagOf(x Node) string {
	switch x.(type) {
	case *IfNode:
		return "{% if %}"
	case *ForNode:
		return "{% for %}"
	case *CallBlockNode:
		return "{% call %}"
	case *FilterBlockNode:
		return "{% filter %}"
	case *SetBlockNode:
		return "{% set %}"
	}
	return "a macro call"
}
