package contextstack

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Stack is an immutable, ordered collection of layers. Every change
// (Append, Insert, RemoveType, RemoveSource) returns a new stack and leaves
// the old one as it was, so each turn of a loop keeps its own snapshot.
// The zero value is an empty stack. A stack is safe for concurrent use.
//
// A stack shares nothing with its callers: layers are deep-copied on the
// way in, and readers return fresh copies.
type Stack struct {
	layers []Layer
	// valid records that the layers passed Validate: Build sets it, and
	// removing layers keeps it, as removal cannot make a conflict. It
	// spares the readers a second check of a built stack.
	valid bool
}

// NewStack returns a stack of the given layers, in order.
func NewStack(layers ...Layer) Stack {
	return Stack{}.Append(layers...)
}

// Len returns the number of layers.
func (s Stack) Len() int { return len(s.layers) }

// Layers returns a copy of every layer, in stack order.
func (s Stack) Layers() []Layer {
	out := make([]Layer, len(s.layers))
	for i, l := range s.layers {
		out[i] = l.clone()
	}
	return out
}

// LayersOf returns a copy of the layers of type t, in stack order.
func (s Stack) LayersOf(t LayerType) []Layer {
	var out []Layer
	for _, l := range s.layers {
		if l.Type() == t {
			out = append(out, l.clone())
		}
	}
	return out
}

// Append returns a new stack with layers added at the end.
func (s Stack) Append(layers ...Layer) Stack {
	out := make([]Layer, len(s.layers), len(s.layers)+len(layers))
	copy(out, s.layers)
	for _, l := range layers {
		out = append(out, l.clone())
	}
	return Stack{layers: out}
}

// Insert returns a new stack with layers inserted before index i; i ==
// Len() appends. An index outside [0, Len()] is ErrIndexOutOfRange.
func (s Stack) Insert(i int, layers ...Layer) (Stack, error) {
	if i < 0 || i > len(s.layers) {
		return s, fmt.Errorf("%w: insert at %d in a stack of %d layers", ErrIndexOutOfRange, i, len(s.layers))
	}
	out := make([]Layer, 0, len(s.layers)+len(layers))
	out = append(out, s.layers[:i]...)
	for _, l := range layers {
		out = append(out, l.clone())
	}
	out = append(out, s.layers[i:]...)
	return Stack{layers: out}, nil
}

// RemoveType returns a new stack without the layers of type t.
func (s Stack) RemoveType(t LayerType) Stack {
	return s.filter(func(l Layer) bool { return l.Type() != t })
}

// RemoveSource returns a new stack without the layers added by source.
func (s Stack) RemoveSource(source string) Stack {
	return s.filter(func(l Layer) bool { return l.Source != source })
}

func (s Stack) filter(keep func(Layer) bool) Stack {
	out := make([]Layer, 0, len(s.layers))
	for _, l := range s.layers {
		if keep(l) {
			out = append(out, l)
		}
	}
	return Stack{layers: out, valid: s.valid}
}

// Validate checks what Builder.Build checks: every layer has content of a
// known kind, every tool has a name, and no two tools share one — across
// layers or within one. A conflict is a *ToolNameConflictError naming the
// first one in stack order; other problems wrap ErrInvalidLayer.
func (s Stack) Validate() error {
	_, err := s.tools(true)
	return err
}

// tools collects the tools of every tool-definition layer in stack order.
// With strict, it validates the stack as Validate documents; without, it
// keeps the first tool of each name. A stack known to be valid needs
// neither. The result is a new slice.
func (s Stack) tools(strict bool) ([]ToolSpec, error) {
	n := 0
	for i, l := range s.layers {
		if strict && !s.valid && !known(l.Content) {
			return nil, fmt.Errorf("%w: layer %d (source %q) has content of type %T", ErrInvalidLayer, i, l.Source, l.Content)
		}
		if defs, ok := l.Content.(ToolDefinitions); ok {
			n += len(defs.Tools)
		}
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]ToolSpec, 0, n)
	if s.valid {
		// Every tool has a name of its own.
		for _, l := range s.layers {
			if defs, ok := l.Content.(ToolDefinitions); ok {
				out = append(out, defs.Tools...)
			}
		}
		return out, nil
	}
	type origin struct {
		layer  int
		source string
	}
	seen := make(map[string]origin, n)
	for i, l := range s.layers {
		defs, ok := l.Content.(ToolDefinitions)
		if !ok {
			continue
		}
		for j, t := range defs.Tools {
			if strict && t.Name == "" {
				return nil, fmt.Errorf("%w: layer %d (source %q): tool %d has no name", ErrInvalidLayer, i, l.Source, j)
			}
			if first, dup := seen[t.Name]; dup {
				if !strict {
					continue
				}
				return nil, &ToolNameConflictError{
					Name:         t.Name,
					FirstSource:  first.source,
					SecondSource: l.Source,
					FirstLayer:   first.layer,
					SecondLayer:  i,
				}
			}
			seen[t.Name] = origin{layer: i, source: l.Source}
			out = append(out, t)
		}
	}
	return out, nil
}

// known reports whether c is one of the package's content kinds. Pointers
// to them never reach a stack: Append stores values.
func known(c Content) bool {
	switch c.(type) {
	case UserInstructions, RuntimeInstructions, SkillCatalog, SkillBody,
		ToolInstructions, ContextPrompt, ToolDefinitions, Document, ContentBundles:
		return true
	}
	return false
}

// Block is one rendered prompt layer of the system prompt.
type Block struct {
	Text     string    // the rendered text, as the layer rendered it
	Type     LayerType // the layer's type
	Source   string    // the layer's source
	Priority int       // the layer's effective priority
}

// BlockSeparator joins the blocks of SystemPromptText.
const BlockSeparator = "\n\n"

// SystemPrompt renders the prompt layers through r, ordered by effective
// priority with ties kept in stack order, and returns one block per layer
// whose text is not blank. State layers render nothing and are left out.
// A layer that fails to render is a *RenderError.
func (s Stack) SystemPrompt(r Renderer) ([]Block, error) {
	type entry struct{ index, priority int }
	order := make([]entry, 0, len(s.layers))
	for i, l := range s.layers {
		if l.Type().IsPrompt() {
			order = append(order, entry{i, l.EffectivePriority()})
		}
	}
	slices.SortStableFunc(order, func(a, b entry) int { return cmp.Compare(a.priority, b.priority) })
	blocks := make([]Block, 0, len(order))
	for _, e := range order {
		l := s.layers[e.index]
		text, tmpl, err := l.Content.render(r)
		if err != nil {
			return nil, &RenderError{Layer: e.index, Type: l.Type(), Source: l.Source, Template: tmpl, Err: err}
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		blocks = append(blocks, Block{Text: text, Type: l.Type(), Source: l.Source, Priority: e.priority})
	}
	return blocks, nil
}

// SystemPromptText renders the system prompt as SystemPrompt does and joins
// the blocks with BlockSeparator.
func (s Stack) SystemPromptText(r Renderer) (string, error) {
	blocks, err := s.SystemPrompt(r)
	if err != nil {
		return "", err
	}
	return joinBlocks(blocks), nil
}

func joinBlocks(blocks []Block) string {
	n := len(BlockSeparator) * max(len(blocks)-1, 0)
	for _, b := range blocks {
		n += len(b.Text)
	}
	var sb strings.Builder
	sb.Grow(n)
	for i, b := range blocks {
		if i > 0 {
			sb.WriteString(BlockSeparator)
		}
		sb.WriteString(b.Text)
	}
	return sb.String()
}

// AllTools returns the tools of every tool-definition layer in stack
// order, deduplicated by name: the first tool with a name wins. Build
// refuses duplicates; this is the defence for stacks that were not built.
func (s Stack) AllTools() []ToolSpec {
	out, _ := s.tools(false)
	return out
}

// AllDocuments returns the document of every document layer, in stack
// order.
func (s Stack) AllDocuments() []Document {
	var out []Document
	for _, l := range s.layers {
		if d, ok := l.Content.(Document); ok {
			d.Metadata = maps.Clone(d.Metadata)
			out = append(out, d)
		}
	}
	return out
}

// AllBundles returns the bundles of every content-bundles layer, in stack
// order.
func (s Stack) AllBundles() []Bundle {
	var out []Bundle
	for _, l := range s.layers {
		if b, ok := l.Content.(ContentBundles); ok {
			for _, bundle := range b.Bundles {
				bundle.Files = slices.Clone(bundle.Files)
				out = append(out, bundle)
			}
		}
	}
	return out
}
