package manager

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
)

// Typed variables: a variable of index.json may carry a JSON Schema. At
// load, each schema is compiled once (a file several variables refer to,
// once per load) and the front end's type pass checks every use of the
// variable in the template against it; at render, the value passed is
// validated against it before the template runs. A variable without a
// schema is checked as before, and costs nothing more.

// varSchema is one typed variable of a template and its compiled schema.
type varSchema struct {
	name   string
	index  int // the variable's index in the declaration
	schema *schema.Schema
}

// checkTypes compiles the schemas of c's typed variables, keeps them in c
// for renders, checks declared defaults against them, and runs the type
// pass over the checked program. Every problem goes to the loader's.
func (l *loader) checkTypes(c *compiled, prog *jinja.Program) {
	types := map[string]*jinja.Type{}
	for i, v := range c.info.Variables {
		if v.Schema == nil {
			continue
		}
		if l.schemas == nil {
			l.schemas = schema.NewCompiler(l.schemaFile)
		}
		s, err := l.schemas.Compile(c.info.Name, v.Name, v.Schema)
		if err != nil {
			path := IndexFile
			if se := (*schema.ShapeError)(nil); errors.As(err, &se) && se.File != "" {
				path = se.File
			}
			l.problem(&Error{Kind: ErrSchema, Template: c.info.Name, Path: path, Variables: []string{v.Name},
				Msg: fmt.Sprintf("variable %q: schema: %v", v.Name, err)})
			continue
		}
		if v.HasDefault {
			// Under the work budget of a render: the default is validated
			// as a passed value is.
			bad, err := s.Validate(v.Name, v.Default, &schema.Budget{Work: l.cfg.limits.MaxWork})
			switch {
			case err != nil:
				l.problem(&Error{Kind: ErrSchema, Template: c.info.Name, Path: IndexFile, Variables: []string{v.Name},
					Msg: fmt.Sprintf("variable %q: checking the default against the schema would exceed the work budget (WithMaxWork)", v.Name)})
				continue
			case bad != nil:
				l.problem(&Error{Kind: ErrSchema, Template: c.info.Name, Path: IndexFile, Variables: []string{v.Name},
					Msg: fmt.Sprintf("variable %q: the default does not match the schema: %s", v.Name, violationList(bad))})
				continue
			}
		}
		c.schemas = append(c.schemas, varSchema{name: v.Name, index: i, schema: s})
		types[v.Name] = s.Type()
	}
	if err := jinja.CheckTypes(prog, catalog(), types); err != nil {
		l.frontProblems(c.info.Name, err)
	}
}

// schemaFile reads a file a schema refers to ($ref): a file of the set,
// read as templates are (regular files only, within the size limit,
// confined to the root), and counted in the set's digest.
func (l *loader) schemaFile(p string) ([]byte, error) {
	if err := checkPath(p); err != nil {
		return nil, err
	}
	data, err := l.readFile(p)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no such file (paths are relative to the template set's root)")
	case isEscape(err):
		return nil, errors.New("the file is a symlink that leaves the template root")
	}
	return nil, cleanFSErr(err)
}

// validate checks the passed values of typed variables against their
// schemas (vals are check's, in the engine's order) within b, the
// render's context and work: an *Error with ErrInvalidVariables naming
// every offending path, sorted; ErrOutputLimit when validating a value
// would exceed the work left (the validation is not started);
// ErrCanceled when the context ends first; or nil.
func (c *compiled) validate(vars map[string]any, vals []any, b *schema.Budget) error {
	if c.schemas == nil {
		return nil
	}
	var bad []schema.Violation
	var names []string
	for _, s := range c.schemas {
		var v any
		var ok bool
		if j := c.bind[s.index]; j >= 0 {
			v = vals[j] // looked up by check
			_, absent := v.(engine.Absent)
			ok = !absent
		} else {
			v, ok = vars[s.name] // declared but never read: still checked
		}
		if !ok {
			continue // optional and not passed: undefined, or its default
		}
		vs, err := s.schema.Validate(s.name, v, b)
		switch {
		case errors.Is(err, schema.ErrWork):
			return c.errorf(ErrOutputLimit, []string{s.name}, "validating variable %q against its schema would exceed the work budget (WithMaxWork)", s.name)
		case err != nil:
			e := c.errorf(ErrCanceled, []string{s.name}, "render cancelled while validating variable %q", s.name)
			e.Err = err
			return e
		case vs != nil:
			bad = append(bad, vs...)
			names = append(names, s.name)
		}
	}
	if bad == nil {
		return nil
	}
	slices.Sort(names)
	return c.errorf(ErrInvalidVariables, names, "invalid variables: %s", violationList(bad))
}

// violationList prints violations sorted, separated by "; ".
func violationList(vs []schema.Violation) string {
	schema.Sort(vs)
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}
