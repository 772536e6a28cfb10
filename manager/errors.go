package manager

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors. Every error the manager returns wraps one of them, so
// hosts branch with errors.Is and print the error for people. Every
// sentinel but the variables' (ErrMissingVariables, ErrExtraVariables,
// ErrUndeclaredVariable, ErrVariableFunc), ErrUnknownTemplate and ErrClosed
// is a kind of ErrTemplate: errors.Is(err, ErrTemplate) holds for it too.
var (
	// ErrTemplate is the umbrella for problems that are not one of the more
	// specific sentinels below: syntax errors, unsupported constructs,
	// unreadable files, a broken index.json, a failed render.
	ErrTemplate = errors.New("manager: template error")
	// ErrUnknownTemplate is returned when no template has the requested name.
	ErrUnknownTemplate = errors.New("manager: unknown template")
	// ErrMissingVariables is returned when a required variable is not passed.
	ErrMissingVariables = errors.New("manager: missing variables")
	// ErrExtraVariables is returned when a passed variable is not declared.
	ErrExtraVariables = errors.New("manager: extra variables")
	// ErrUndeclaredVariable is returned at load when a template references a
	// variable that its index.json entry does not declare.
	ErrUndeclaredVariable = errors.New("manager: undeclared variable")
	// ErrIndex is returned when index.json is malformed or names an invalid entry.
	ErrIndex = templateKind("manager: invalid index")
	// ErrSandbox is returned when a template or an index entry tries to reach
	// outside the template root.
	ErrSandbox = templateKind("manager: sandbox violation")
	// ErrUnsupported is returned at load for a construct promptkit does not
	// support; the message names the supported alternative. It is a kind of
	// ErrTemplate: errors.Is(err, ErrTemplate) holds for it too.
	ErrUnsupported = templateKind("manager: unsupported construct")
	// ErrOutputLimit is returned when one render would exceed the configured
	// output size (see WithMaxOutputBytes).
	ErrOutputLimit = templateKind("manager: output limit exceeded")
	// ErrClosed is returned by operations on a closed manager.
	ErrClosed = errors.New("manager: closed")
	// ErrChatTemplate is returned by Render for a template with {% chat %}
	// blocks (it renders to messages, with RenderMessages), and by Override
	// for a source that would turn a text template into a chat template or
	// the reverse.
	ErrChatTemplate = templateKind("manager: chat template")
	// ErrVariableFunc is returned when a function bound to a variable (see
	// WithFunc) fails or panics.
	ErrVariableFunc = errors.New("manager: variable function failed")
	// ErrRaised is returned when a template calls raise_exception(message),
	// as Hugging Face chat templates do to refuse a conversation they cannot
	// format; the error's message is the template's own.
	ErrRaised = templateKind("manager: the template raised an exception")
	// ErrInvalidVariables is returned when a passed value does not match
	// its variable's schema (see "Typed variables"); the message names
	// every offending path, sorted ("user.tags[2]: want string, got
	// number").
	ErrInvalidVariables = errors.New("manager: invalid variables")
	// ErrSchema is returned at load for a typed variable whose schema does
	// not compile, or that a template uses in a way its schema refuses: a
	// path the schema does not have, a filter, test, method or operator
	// that needs another type; and for a schema of a call contract (a
	// tool's parameters, the output) that does not compile. It is a kind
	// of ErrTemplate.
	ErrSchema = templateKind("manager: schema")
	// ErrUndefined is returned when a render uses an undefined value — a
	// missing key, attribute or item, an optional variable not passed —
	// where a strict template does not allow one: prints it, iterates it,
	// tests its truth, compares or concatenates it, or gives it to a
	// filter that does not take one (see "Strictness"). The error names
	// the expression as written (Error.Expr), what the value it looked
	// into is (Error.Value) and a suggestion (Error.Suggestion). It is a
	// kind of ErrTemplate.
	ErrUndefined = templateKind("manager: undefined value")
	// ErrContract is returned at load for a template's call contract that
	// its entry in index.json declares wrongly — a model setting, a tool,
	// a cache breakpoint whose prefix is not the same for every render —
	// (a schema of the contract that does not compile is ErrSchema), and
	// by Request and ValidateOutput for a contract that lacks what they
	// need. It is a kind of ErrTemplate.
	ErrContract = templateKind("manager: call contract")
	// ErrInvalidOutput is returned by ValidateOutput when a model's answer
	// does not match the template's output schema; the message names
	// every offending path, sorted ("answer.days[2].temp: want number,
	// got string").
	ErrInvalidOutput = errors.New("manager: invalid output")
	// ErrCanceled is returned when a render's context is cancelled or
	// reaches its deadline (RenderContext, WithMaxRenderTime); the error
	// also wraps the context's error.
	ErrCanceled = templateKind("manager: render cancelled")
	// ErrOverBudget is returned by RenderBudget and RenderMessagesBudget
	// when even every cut the template's marks allow leaves the result
	// over the token budget (the error wraps an *OverBudgetError that says
	// by how many tokens), and at load for a template whose index.json
	// budget its worst case may exceed (see "Token budgets" in the package
	// documentation). It is a kind of ErrTemplate.
	ErrOverBudget = templateKind("manager: over the token budget")
)

// templateKind makes a sentinel that is a kind of ErrTemplate.
func templateKind(msg string) error { return &kindError{msg: msg} }

type kindError struct{ msg string }

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return ErrTemplate }

// Error is one problem with one template. It says where (template name,
// file path relative to the template root, line and column when known) and
// what (Kind is one of the package's sentinels). Use errors.As to read the
// fields; errors.Is(err, manager.ErrMissingVariables) and friends match Kind.
type Error struct {
	Kind      error    // one of the sentinels of this package
	Template  string   // index.json entry name; empty for index-level problems
	Path      string   // file path relative to the template root
	Line, Col int      // 1-based; 0 when unknown
	Variables []string // variables concerned, sorted
	Msg       string   // what went wrong, without the position prefix
	Err       error    // underlying cause (an *engine.Error, an fs error…), may be nil

	// Of an undefined value used (ErrUndefined): the expression as
	// written ("d.nmae"), what the value it looked into is ("a dict with
	// keys name, tags") and the name it may misspell ("name"); each ""
	// when unknown.
	Expr, Value, Suggestion string

	// causeInMsg is set when Msg already says what Err says (Err is kept
	// for errors.As, not printed twice).
	causeInMsg bool
}

// Error formats the problem as "path:line:col: template "name": message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
			if e.Col > 0 {
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(e.Col))
			}
		}
		b.WriteString(": ")
	}
	if e.Template != "" {
		fmt.Fprintf(&b, "template %q: ", e.Template)
	}
	b.WriteString(e.Msg)
	if e.Err != nil && !e.causeInMsg && !strings.Contains(e.Msg, e.Err.Error()) {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes both the sentinel and the underlying cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// LoadError is returned when a template set is refused. It lists every
// problem found, not just the first; errors.Is and errors.As look through
// all of them.
type LoadError struct {
	Problems []*Error
	// Unused lists, by template name, declared variables a template never
	// reads. They alone do not refuse a set; promptkit check reports them
	// beside the problems.
	Unused []UnusedDeclaration
}

// Error prints one problem a line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%d problems:\n%s", len(lines), strings.Join(lines, "\n"))
}

// Unwrap lets errors.Is and errors.As reach every problem.
func (e *LoadError) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// Problems returns every *Error contained in err: the problems of a
// *LoadError, or err itself when it is an *Error. It is how the CLI prints
// one problem a line.
func Problems(err error) []*Error {
	var le *LoadError
	if errors.As(err, &le) {
		return le.Problems
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return nil
}

// UnusedDeclaration is a template's declared variables that the template
// never reads: a leftover in index.json, or a variable the template was
// meant to print. A set with them loads; promptkit check and fleet
// publishing refuse it.
type UnusedDeclaration struct {
	Template  string   // the template's name
	Path      string   // its file, relative to the set's root
	Variables []string // in index.json order
}

// String is the line promptkit check prints.
func (u UnusedDeclaration) String() string {
	return fmt.Sprintf("%s: template %q: declared variables never used: %s", u.Path, u.Template, strings.Join(u.Variables, ", "))
}
