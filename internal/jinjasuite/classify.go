package jinjasuite

import (
	"errors"
	"regexp"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// classify names the Jinja2 (or Python) exception class that promptkit's
// error stands for, so that a test's pytest.raises(…) sees the class
// Jinja2 would raise. A load's first problem decides; a problem that is
// none of the classes below is "PromptkitError", which no test expects.
func classify(err error, entry string, atLoad bool) *Failure {
	var list jinja.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		// The front end's own (a compile's parse).
		return &Failure{Kind: "TemplateSyntaxError", Message: list[0].Msg, Name: list[0].File, Line: list[0].Line}
	}
	problems := manager.Problems(err)
	if len(problems) == 0 {
		return &Failure{Kind: "PromptkitError", Message: err.Error()}
	}
	p := problems[0]
	f := &Failure{Message: p.Msg, Name: p.Path, Line: p.Line}
	if f.Name == "" {
		f.Name = entry
	}
	f.Kind = kindOf(p, atLoad)
	if f.Kind == "TemplateNotFound" {
		if m := includeRE.FindStringSubmatch(p.Msg); m != nil {
			f.Name = m[1]
		}
	}
	return f
}

// includeRE reads the file a failed include, import or extends names.
var includeRE = regexp.MustCompile(`^(?:include|import|from|extends) "([^"]*)": no such file`)

// rules classify a problem by its message, first match wins.
var rules = []struct {
	re   *regexp.Regexp
	kind string
}{
	{includeRE, "TemplateNotFound"},
	{regexp.MustCompile(`^(?:filter|test) "[^"]*" is not supported`), "TemplateAssertionError"},
	{regexp.MustCompile(`is undefined|undefined value|the value is undefined`), "UndefinedError"},
	{regexp.MustCompile(`division by zero|divided by zero|modulo by zero`), "ZeroDivisionError"},
	{regexp.MustCompile(`"caller" argument must be omitted or be given a default`), "TemplateAssertionError"},
	{regexp.MustCompile(`cannot be extended multiple times|^required block "[^"]*" not found`), "TemplateRuntimeError"},
	{regexp.MustCompile(`is not iterable|is not callable`), "TypeError"},
	{regexp.MustCompile(`^cannot set attribute`), "TemplateRuntimeError"},
}

func kindOf(p *manager.Error, atLoad bool) string {
	switch {
	case errors.Is(p.Kind, manager.ErrIndex):
		return "PromptkitError" // a name index.json cannot declare
	case errors.Is(p.Kind, manager.ErrRaised):
		return "TemplateRuntimeError"
	}
	msg := strings.TrimPrefix(p.Msg, "render failed: ")
	for _, r := range rules {
		if r.re.MatchString(msg) {
			return r.kind
		}
	}
	if p.Msg == "cannot read the template" {
		return "TemplateNotFound"
	}
	if atLoad && !errors.Is(p.Kind, manager.ErrUnsupported) {
		return "TemplateSyntaxError"
	}
	return "PromptkitError"
}
