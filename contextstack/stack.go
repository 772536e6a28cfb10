package contextstack

import (
	"cmp"
	"fmt"
	"hash/maphash"
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
	if s.valid {
		return nil
	}
	return s.check()
}

// check is Validate without the shortcut for stacks known to be valid.
// Unknown content is reported before any tool problem, wherever it is.
func (s Stack) check() error {
	n := 0
	for i, l := range s.layers {
		if !known(l.Content) {
			return fmt.Errorf("%w: layer %d (source %q) has content of type %T", ErrInvalidLayer, i, l.Source, l.Content)
		}
		if defs, ok := l.Content.(ToolDefinitions); ok {
			n += len(defs.Tools)
		}
	}
	if n == 0 || namesUnique(s.layers, n) {
		return nil
	}
	return s.toolProblem()
}

// namesUnique reports whether the n tools of layers all have a name and
// no two share one. The names go into an open-addressing table of
// indexes, at most half full, hashed with maphash: for a turn's hundred
// tools it allocates nothing (up to len(buf) slots) and is a few times
// faster than sorting the names, whose long common prefixes ("mcp_git_…")
// make every comparison slow. It cannot say which problem comes first in
// stack order; toolProblem does, on the rare stack that has one.
func namesUnique(layers []Layer, n int) bool {
	size := 8
	for size < 2*n {
		size <<= 1
	}
	var buf [256]int32
	var slots []int32 // index+1 into names; 0 is empty
	if size <= len(buf) {
		slots = buf[:size]
	} else {
		slots = make([]int32, size)
	}
	var nbuf [128]string
	names := nbuf[:0]
	if n > len(nbuf) {
		names = make([]string, 0, n)
	}
	mask := uint64(size - 1)
	for _, l := range layers {
		defs, ok := l.Content.(ToolDefinitions)
		if !ok {
			continue
		}
		for _, t := range defs.Tools {
			if t.Name == "" {
				return false
			}
			h := maphash.String(nameSeed, t.Name) & mask
			for slots[h] != 0 {
				if names[slots[h]-1] == t.Name {
					return false
				}
				h = (h + 1) & mask
			}
			names = append(names, t.Name)
			slots[h] = int32(len(names))
		}
	}
	return true
}

// nameSeed seeds namesUnique's hashes; it never changes after init.
var nameSeed = maphash.MakeSeed()

// toolProblem returns the first tool without a name or with a name
// already taken, in stack order: the error check returns.
func (s Stack) toolProblem() error {
	if ps := s.ToolProblems(); len(ps) > 0 {
		return ps[0]
	}
	return nil
}

// ToolProblems returns every tool of the stack's tool-definition layers
// that has no name (wrapping ErrInvalidLayer) or a name an earlier tool
// has (a *ToolNameConflictError naming the layer that defined it first),
// in stack order: Validate reports the first. A host that checks tools
// from many places at once (a template set's declared tools, one layer
// each) reports them all.
func (s Stack) ToolProblems() []error {
	// first maps a tool name to the index of the layer that defined it;
	// the layer gives the source.
	first := make(map[string]int)
	var out []error
	for i, l := range s.layers {
		defs, ok := l.Content.(ToolDefinitions)
		if !ok {
			continue
		}
		for j, t := range defs.Tools {
			if t.Name == "" {
				out = append(out, fmt.Errorf("%w: layer %d (source %q): tool %d has no name", ErrInvalidLayer, i, l.Source, j))
				continue
			}
			if f, dup := first[t.Name]; dup {
				out = append(out, &ToolNameConflictError{
					Name:         t.Name,
					FirstSource:  s.layers[f].Source,
					SecondSource: l.Source,
					FirstLayer:   f,
					SecondLayer:  i,
				})
				continue
			}
			first[t.Name] = i
		}
	}
	return out
}

// tools returns the tools of every tool-definition layer in stack order,
// in a new slice. It does not deduplicate: call it on a stack that
// Validate accepted, where every name is unique.
func (s Stack) tools() []ToolSpec {
	n := 0
	for _, l := range s.layers {
		if defs, ok := l.Content.(ToolDefinitions); ok {
			n += len(defs.Tools)
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]ToolSpec, 0, n)
	for _, l := range s.layers {
		if defs, ok := l.Content.(ToolDefinitions); ok {
			out = append(out, defs.Tools...)
		}
	}
	return out
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
	return s.systemPrompt(r, nil)
}

// systemPrompt is SystemPrompt, appending the blocks to buf.
func (s Stack) systemPrompt(r Renderer, buf []Block) ([]Block, error) {
	type entry struct{ index, priority int }
	var orderBuf [32]entry // a typical stack's prompt layers, without an allocation
	order := orderBuf[:0]
	for i, l := range s.layers {
		if p, ok := promptPriority(l.Content); ok {
			if l.Priority != 0 {
				p = l.Priority
			}
			order = append(order, entry{i, p})
		}
	}
	slices.SortStableFunc(order, func(a, b entry) int { return cmp.Compare(a.priority, b.priority) })
	blocks := buf
	if blocks == nil {
		blocks = make([]Block, 0, len(order))
	}
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
	// The blocks live only until they are joined: a typical stack's fit
	// in buf, so they cost no allocation.
	var buf [16]Block
	blocks, err := s.systemPrompt(r, buf[:0])
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
	all := s.tools()
	if s.valid || len(all) == 0 {
		return all // a valid stack has no duplicates to drop
	}
	seen := make(map[string]struct{}, len(all))
	out := all[:0]
	for _, t := range all {
		if _, dup := seen[t.Name]; !dup {
			seen[t.Name] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// AllDocuments returns the document of every document layer, in stack
// order.
func (s Stack) AllDocuments() []Document {
	n := 0
	for _, l := range s.layers {
		if _, ok := l.Content.(Document); ok {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Document, 0, n)
	for _, l := range s.layers {
		if d, ok := l.Content.(Document); ok {
			if d.Metadata != nil {
				d.Metadata = maps.Clone(d.Metadata)
			}
			out = append(out, d)
		}
	}
	return out
}

// AllBundles returns the bundles of every content-bundles layer, in stack
// order.
func (s Stack) AllBundles() []Bundle {
	n := 0
	for _, l := range s.layers {
		if b, ok := l.Content.(ContentBundles); ok {
			n += len(b.Bundles)
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Bundle, 0, n)
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
