package builders

import (
	"fmt"
	"slices"
	"strings"
)

// Renderer renders the template called name with vars. *manager.Manager
// satisfies it; builders depend on this interface only, so a test can hand
// them any template set.
type Renderer interface {
	Render(name string, vars map[string]any) (string, error)
}

// Builder turns the context of one build into a prompt by rendering a
// template through the renderer it was made with. A builder holds no prompt
// wording: it checks and escapes the values, passes them to its template as
// strings, lists and maps, and the template does all the wording.
//
// A Builder must be safe for concurrent use.
type Builder interface {
	// Name is the unique name hosts build the prompt by.
	Name() string
	// Template is the name of the template the builder renders.
	Template() string
	// Keys lists the data keys the builder reads, sorted; any other key
	// in the data is an error (ErrUnknownKey).
	Keys() []string
	// Build makes the prompt.
	Build(ctx Context) (string, error)
}

// Templates returns every template b renders: for a builder that renders
// several and lists them with a Templates() []string method (rag_answer
// picks its system template by scene), that list; for any other builder,
// its one Template. A host checks with it that a template set can serve
// a builder, as service.New does.
func Templates(b Builder) []string {
	if tl, ok := b.(interface{ Templates() []string }); ok {
		return tl.Templates()
	}
	return []string{b.Template()}
}

// base carries what every builder of this package has: its name, its
// template, the data keys it reads and the renderer.
type base struct {
	name     string
	template string
	keys     []string // sorted
	r        Renderer
}

func newBase(name string, r Renderer, keys ...string) base {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	return base{name: name, template: name, keys: keys, r: r}
}

// Name returns the builder's name.
func (b *base) Name() string { return b.name }

// Template returns the name of the template the builder renders.
func (b *base) Template() string { return b.template }

// Keys returns the data keys the builder reads, sorted.
func (b *base) Keys() []string { return slices.Clone(b.keys) }

// CheckKeys returns an *Error with ErrUnknownKey, naming the key and the
// builder, when ctx holds a data key that b does not list in Keys. Every
// builder of this package calls it first; the service calls it for every
// builder it dispatches to.
func CheckKeys(b Builder, ctx Context) error {
	return checkKeys(b.Name(), b.Keys(), ctx)
}

// checkKeys is CheckKeys for a builder's name and keys.
func checkKeys(name string, keys []string, ctx Context) error {
	k, unknown := ctx.Unknown(keys)
	if !unknown {
		return nil
	}
	reads := "nothing"
	if len(keys) > 0 {
		reads = strings.Join(keys, ", ")
	}
	return &Error{Kind: ErrUnknownKey, Builder: name, Key: k,
		Msg: fmt.Sprintf("not a data key of this builder (it reads: %s)", reads)}
}

// begin starts a build: it refuses a builder without a renderer and data
// with a key the builder does not read, then returns the data reader.
func (b *base) begin(ctx Context) (data, error) {
	if b.r == nil {
		return data{}, b.fail("", ErrNoRenderer, "made without a renderer; construct it with a manager", nil)
	}
	if err := checkKeys(b.name, b.keys, ctx); err != nil {
		return data{}, err
	}
	return data{b: b, ctx: ctx}, nil
}

// rendered is the result of rendering the builder's template through the
// typed API of the default set (package prompts): a failed render is
// ErrRender, naming the template and wrapping the manager's error.
func (b *base) rendered(out string, err error) (string, error) {
	if err != nil {
		return "", b.fail("", ErrRender, fmt.Sprintf("template %q", b.template), err)
	}
	return out, nil
}

// fail makes the builder's error.
func (b *base) fail(key string, kind error, msg string, cause error) *Error {
	return &Error{Kind: kind, Builder: b.name, Key: key, Msg: msg, Err: cause}
}
