package contextstack

import "slices"

// Builder collects layers with a fluent API and freezes them into a Stack.
// Each method adds one layer at the end, with the type's default priority;
// Layer adds any layer as it is. Build validates before it freezes.
//
// A Builder is not safe for concurrent use; the Stack it builds is.
//
//	stack, err := contextstack.NewBuilder().
//		UserInstructions("request", "Answer from the documents only.").
//		Tools("rag", search).
//		Document("citations", doc).
//		Build()
type Builder struct {
	layers []Layer
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{} }

// From returns a builder that starts with the layers of s.
func From(s Stack) *Builder {
	// A stack's layers are private and never changed in place, and a
	// builder only appends, so the builder can share their contents.
	return &Builder{layers: slices.Clone(s.layers)}
}

// builderCap is the capacity a builder's first layer allocates, and
// builderGrowCap the least it grows to from there: a small stack costs
// one small array, and a typical turn's stack of a few dozen layers one
// more, instead of a copy per doubling. Copying layers is dearer than its
// bytes suggest: each holds pointers, and while the collector marks, every
// pointer copied goes through a write barrier.
const (
	builderCap     = 16
	builderGrowCap = 64
)

// Layer adds l as it is: content, source and priority.
func (b *Builder) Layer(l Layer) *Builder {
	if len(b.layers) == cap(b.layers) {
		n := builderCap
		if cap(b.layers) > 0 {
			n = max(builderGrowCap, 2*cap(b.layers))
		}
		grown := make([]Layer, len(b.layers), n)
		copy(grown, b.layers)
		b.layers = grown
	}
	b.layers = append(b.layers, l.clone())
	return b
}

func (b *Builder) add(source string, c Content) *Builder {
	return b.Layer(Layer{Source: source, Content: c})
}

// UserInstructions adds the baseline system instructions, passed through
// as they are.
func (b *Builder) UserInstructions(source, text string) *Builder {
	return b.add(source, UserInstructions{Text: text})
}

// RuntimeInstructions adds a temporary instruction, passed through as it is.
func (b *Builder) RuntimeInstructions(source, text string) *Builder {
	return b.add(source, RuntimeInstructions{Text: text})
}

// SkillCatalog adds the catalog of skills that can be activated.
func (b *Builder) SkillCatalog(source string, skills ...Skill) *Builder {
	return b.add(source, SkillCatalog{Skills: skills})
}

// ActivatedSkill adds the full instructions of an activated skill.
func (b *Builder) ActivatedSkill(source string, skill Skill, body string) *Builder {
	return b.add(source, SkillBody{Skill: skill, Body: body})
}

// ToolInstructions adds how to use one tool.
func (b *Builder) ToolInstructions(source, tool, text string) *Builder {
	return b.add(source, ToolInstructions{Tool: tool, Text: text})
}

// ContextPrompt adds an already rendered paragraph of context.
func (b *Builder) ContextPrompt(source, text string) *Builder {
	return b.add(source, ContextPrompt{Text: text})
}

// Tools adds one tool-definition layer holding tools.
func (b *Builder) Tools(source string, tools ...ToolSpec) *Builder {
	return b.add(source, ToolDefinitions{Tools: tools})
}

// Document adds one document layer.
func (b *Builder) Document(source string, doc Document) *Builder {
	return b.add(source, doc)
}

// Bundles adds one content-bundles layer.
func (b *Builder) Bundles(source string, bundles ...Bundle) *Builder {
	return b.add(source, ContentBundles{Bundles: bundles})
}

// Build validates the layers as Stack.Validate does — above all, that no
// two tools share a name (*ToolNameConflictError) — and returns them as a
// stack. The builder can be used again afterwards; the stack does not
// change with it.
func (b *Builder) Build() (Stack, error) {
	// The builder's layers are private copies that nothing changes in
	// place, so the stack takes the builder's array instead of a copy.
	// Clipping the capacity, on both sides, makes the builder's next
	// append reallocate rather than write into the array the stack holds.
	b.layers = slices.Clip(b.layers)
	s := Stack{layers: b.layers}
	if err := s.check(); err != nil {
		return Stack{}, err
	}
	s.valid = true
	return s, nil
}
