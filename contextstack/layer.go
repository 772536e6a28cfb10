package contextstack

import (
	"maps"
	"slices"
)

// LayerType names a kind of layer. Its string form is the "type" field of
// a layer's JSON.
type LayerType string

// The layer types. The first six are prompt layers: they render text into
// the system prompt. The last three are state layers: the program reads
// them (tools, documents, bundles) and they never render text.
const (
	TypeUserInstructions    LayerType = "user_instructions"    // prompt, priority 100
	TypeRuntimeInstructions LayerType = "runtime_instructions" // prompt, priority 200
	TypeSkillCatalog        LayerType = "skill_catalog"        // prompt, priority 300
	TypeSkillBody           LayerType = "skill_body"           // prompt, priority 400
	TypeToolInstructions    LayerType = "tool_instructions"    // prompt, priority 450
	TypeContextPrompt       LayerType = "context_prompt"       // prompt, priority 600
	TypeToolDefinitions     LayerType = "tool_definitions"     // state
	TypeDocument            LayerType = "document"             // state
	TypeContentBundles      LayerType = "content_bundles"      // state
)

// StatePriority is the default priority of state layers. State layers do
// not render, so it orders nothing; it is kept so that every layer has one.
const StatePriority = 2000

// LayerTypes returns every layer type, prompt layers first, in the order
// of their default priorities.
func LayerTypes() []LayerType {
	return []LayerType{
		TypeUserInstructions, TypeRuntimeInstructions, TypeSkillCatalog,
		TypeSkillBody, TypeToolInstructions, TypeContextPrompt,
		TypeToolDefinitions, TypeDocument, TypeContentBundles,
	}
}

// IsPrompt reports whether layers of this type render into the system
// prompt.
func (t LayerType) IsPrompt() bool {
	switch t {
	case TypeUserInstructions, TypeRuntimeInstructions, TypeSkillCatalog,
		TypeSkillBody, TypeToolInstructions, TypeContextPrompt:
		return true
	}
	return false
}

// DefaultPriority is the priority a layer of this type has unless it sets
// its own: 100, 200, 300, 400, 450 and 600 for the prompt layers in the
// order of LayerTypes, StatePriority for state layers. A smaller priority
// renders earlier.
func (t LayerType) DefaultPriority() int {
	switch t {
	case TypeUserInstructions:
		return 100
	case TypeRuntimeInstructions:
		return 200
	case TypeSkillCatalog:
		return 300
	case TypeSkillBody:
		return 400
	case TypeToolInstructions:
		return 450
	case TypeContextPrompt:
		return 600
	}
	return StatePriority
}

// Well-known layer sources. A source is free text naming who added a layer
// ("platform", "skill:git", "citations"…); these are the ones this package
// uses itself.
const (
	// SourceRequest is the source of the layers FromRequest builds.
	SourceRequest = "request"
)

// Layer is one typed piece of context: its content, who added it and where
// it sorts. Layers are values; a Stack copies what it is given, so changing
// a Layer after adding it changes nothing in the stack.
type Layer struct {
	// Source names who added the layer: "platform", "skill:git",
	// "citations"… It is how RemoveSource finds layers and how a tool
	// name conflict names both sides.
	Source string
	// Priority orders prompt layers in the system prompt, smaller first;
	// layers of equal priority keep their order in the stack. 0 means the
	// type's DefaultPriority, so to sort before every default use a
	// negative priority.
	Priority int
	// Content is what the layer holds, and decides its type: one of
	// UserInstructions, RuntimeInstructions, SkillCatalog, SkillBody,
	// ToolInstructions, ContextPrompt, ToolDefinitions, Document and
	// ContentBundles.
	Content Content
}

// Type returns the type of the layer's content, "" when it has none.
func (l Layer) Type() LayerType {
	if l.Content == nil {
		return ""
	}
	return l.Content.Type()
}

// promptPriority returns the default priority of c's layer type and
// whether it is a prompt layer's content: DefaultPriority and IsPrompt of
// c.Type() in one type switch, without comparing type names. Contents
// other than the package's values (never in a stack) take the long way.
func promptPriority(c Content) (int, bool) {
	switch c.(type) {
	case UserInstructions:
		return 100, true
	case RuntimeInstructions:
		return 200, true
	case SkillCatalog:
		return 300, true
	case SkillBody:
		return 400, true
	case ToolInstructions:
		return 450, true
	case ContextPrompt:
		return 600, true
	case ToolDefinitions, Document, ContentBundles, nil:
		return StatePriority, false
	}
	t := c.Type()
	return t.DefaultPriority(), t.IsPrompt()
}

// EffectivePriority returns Priority, or the type's default when Priority
// is 0.
func (l Layer) EffectivePriority() int {
	if l.Priority != 0 {
		return l.Priority
	}
	return l.Type().DefaultPriority()
}

// clone returns a deep copy of l, so that a stack shares no slice or map
// with its caller. Contents without slices or maps are immutable values
// and are kept as they are; a pointer to a content becomes its value.
func (l Layer) clone() Layer {
	// A skill body without resources shares nothing a caller could change
	// (an empty slice shows no element, whatever its capacity), so it is
	// kept as it is, without boxing a copy. A map is shared even when
	// empty: a caller can add to it.
	switch c := l.Content.(type) {
	case nil, UserInstructions, RuntimeInstructions, ToolInstructions, ContextPrompt:
	case Document:
		if c.Metadata != nil {
			l.Content = c.clone()
		}
	case SkillBody:
		if len(c.Skill.Resources) > 0 {
			l.Content = c.clone()
		}
	default:
		l.Content = c.clone()
	}
	return l
}

// Renderer renders a named template with variables. *manager.Manager
// satisfies it; prompt layers that add wording render through it.
type Renderer interface {
	Render(name string, vars map[string]any) (string, error)
}

// The templates the prompt layers render, with the variables each is
// given. The default set declares them; a host that brings its own set
// must declare them too.
const (
	// TemplateSkillCatalog renders a SkillCatalog. Variable: skills, a
	// list of maps with keys name, description, location (string, may be
	// empty) and resources (list of strings, may be empty).
	TemplateSkillCatalog = "contextstack_skill_catalog"
	// TemplateSkillBody renders a SkillBody. Variables: name, description,
	// location, resources (as in a catalog entry) and body.
	TemplateSkillBody = "contextstack_skill_body"
	// TemplateToolInstructions renders a ToolInstructions. Variables: tool
	// (the tool's name) and instructions.
	TemplateToolInstructions = "contextstack_tool_instructions"
)

// Content is what a layer holds. The set of kinds is closed: the nine
// types of this package implement it, one per LayerType.
type Content interface {
	// Type returns the layer type this content makes.
	Type() LayerType
	// render returns the layer's text for the system prompt and the
	// template it rendered ("" for text passed through as it is).
	render(r Renderer) (text, template string, err error)
	clone() Content
}

// UserInstructions is the baseline system instruction, as the user or the
// host wrote it. Its text is passed through as it is.
type UserInstructions struct {
	Text string `json:"text"`
}

// RuntimeInstructions is a temporary instruction added while a run goes on
// (a hint to save tokens, to wrap up…). Its text is passed through as it is.
type RuntimeInstructions struct {
	Text string `json:"text"`
}

// Skill describes one skill: what a catalog lists for it and what frames
// its body once activated.
type Skill struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Location    string   `json:"location,omitempty"`  // where its files live, if anywhere
	Resources   []string `json:"resources,omitempty"` // files that come with it
}

// SkillCatalog lists skills that are available but not loaded. It renders
// through TemplateSkillCatalog.
type SkillCatalog struct {
	Skills []Skill `json:"skills,omitempty"`
}

// SkillBody is the full instructions of an activated skill. It renders
// through TemplateSkillBody, which frames Body with the skill's metadata.
type SkillBody struct {
	Skill Skill  `json:"skill"`
	Body  string `json:"body"`
}

// ToolInstructions is how to use one tool, beyond its description. It
// renders through TemplateToolInstructions.
type ToolInstructions struct {
	Tool string `json:"tool"`
	Text string `json:"text"`
}

// ContextPrompt is a paragraph of context that is already rendered. Its
// text is passed through as it is.
type ContextPrompt struct {
	Text string `json:"text"`
}

// ToolSpec is what a model is told about a tool: its name, type (e.g.
// "function"), description, and the JSON Schema of its input. It holds
// nothing executable.
type ToolSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
	InputSchema Schema `json:"input_schema,omitempty"`
}

// Schema is a JSON Schema kept as the raw JSON text it was given, e.g.
// Schema(`{"type":"object","properties":{"query":{"type":"string"}}}`).
// Being a string it is immutable, so stacks and requests share schemas
// without copying them. The empty Schema means none.
type Schema string

// MarshalJSON writes the schema as it is; encoding/json checks that it is
// valid JSON. The empty Schema writes null.
func (s Schema) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return []byte(s), nil
}

// UnmarshalJSON keeps the JSON text as it is. null leaves s unchanged, as
// encoding/json does for other types.
func (s *Schema) UnmarshalJSON(data []byte) error {
	if string(data) != "null" {
		*s = Schema(data)
	}
	return nil
}

// ToolDefinitions is a state layer holding tools. Stack.AllTools reads it.
type ToolDefinitions struct {
	Tools []ToolSpec `json:"tools"`
}

// Document is one retrieved or cited document. As a layer's content it is
// a state layer that Stack.AllDocuments reads; it never renders into the
// system prompt.
type Document struct {
	ID        string            `json:"id"`
	ShorterID string            `json:"shorter_id,omitempty"` // the short citation anchor
	Title     string            `json:"title,omitempty"`
	URL       string            `json:"url,omitempty"`
	Text      string            `json:"text,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
}

// Bundle is a set of files that comes with a skill.
type Bundle struct {
	Name  string       `json:"name"`
	Files []BundleFile `json:"files,omitempty"`
}

// BundleFile is one file of a Bundle.
type BundleFile struct {
	Path      string `json:"path"`
	MediaType string `json:"media_type,omitempty"`
	Content   string `json:"content,omitempty"`
}

// ContentBundles is a state layer holding bundles. Stack.AllBundles reads it.
type ContentBundles struct {
	Bundles []Bundle `json:"bundles"`
}

func (UserInstructions) Type() LayerType    { return TypeUserInstructions }
func (RuntimeInstructions) Type() LayerType { return TypeRuntimeInstructions }
func (SkillCatalog) Type() LayerType        { return TypeSkillCatalog }
func (SkillBody) Type() LayerType           { return TypeSkillBody }
func (ToolInstructions) Type() LayerType    { return TypeToolInstructions }
func (ContextPrompt) Type() LayerType       { return TypeContextPrompt }
func (ToolDefinitions) Type() LayerType     { return TypeToolDefinitions }
func (Document) Type() LayerType            { return TypeDocument }
func (ContentBundles) Type() LayerType      { return TypeContentBundles }

func (c UserInstructions) render(Renderer) (string, string, error)    { return c.Text, "", nil }
func (c RuntimeInstructions) render(Renderer) (string, string, error) { return c.Text, "", nil }
func (c ContextPrompt) render(Renderer) (string, string, error)       { return c.Text, "", nil }
func (ToolDefinitions) render(Renderer) (string, string, error)       { return "", "", nil }
func (Document) render(Renderer) (string, string, error)              { return "", "", nil }
func (ContentBundles) render(Renderer) (string, string, error)        { return "", "", nil }

func (c SkillCatalog) render(r Renderer) (string, string, error) {
	// A []any, not a []map[string]any: the engine reads a list of its
	// own value model in place, where a typed slice goes through reflect.
	skills := make([]any, len(c.Skills))
	for i, s := range c.Skills {
		skills[i] = s.vars()
	}
	text, err := r.Render(TemplateSkillCatalog, map[string]any{"skills": skills})
	return text, TemplateSkillCatalog, err
}

func (c SkillBody) render(r Renderer) (string, string, error) {
	vars := c.Skill.vars()
	vars["body"] = c.Body
	text, err := r.Render(TemplateSkillBody, vars)
	return text, TemplateSkillBody, err
}

func (c ToolInstructions) render(r Renderer) (string, string, error) {
	text, err := r.Render(TemplateToolInstructions, map[string]any{
		"tool":         c.Tool,
		"instructions": c.Text,
	})
	return text, TemplateToolInstructions, err
}

// vars is a skill as template variables. Every key is always present, so
// templates test for emptiness, never for definedness.
func (s Skill) vars() map[string]any {
	resources := noResources
	if len(s.Resources) > 0 {
		list := make([]any, len(s.Resources))
		for i, r := range s.Resources {
			list[i] = r
		}
		resources = list
	}
	return map[string]any{
		"name":        s.Name,
		"description": s.Description,
		"location":    s.Location,
		"resources":   resources,
	}
}

// noResources is the resources of a skill that has none, boxed once: an
// empty list has no element a renderer could change, so every render can
// share it instead of allocating its own.
var noResources any = []any{}

func (c UserInstructions) clone() Content    { return c }
func (c RuntimeInstructions) clone() Content { return c }
func (c ToolInstructions) clone() Content    { return c }
func (c ContextPrompt) clone() Content       { return c }

func (c SkillCatalog) clone() Content {
	c.Skills = cloneSkills(c.Skills)
	return c
}

func (c SkillBody) clone() Content {
	c.Skill.Resources = slices.Clone(c.Skill.Resources)
	return c
}

func (c ToolDefinitions) clone() Content {
	c.Tools = slices.Clone(c.Tools)
	return c
}

func (c Document) clone() Content {
	c.Metadata = maps.Clone(c.Metadata)
	return c
}

func (c ContentBundles) clone() Content {
	if c.Bundles == nil {
		return c
	}
	bundles := make([]Bundle, len(c.Bundles))
	for i, b := range c.Bundles {
		b.Files = slices.Clone(b.Files)
		bundles[i] = b
	}
	c.Bundles = bundles
	return c
}

func cloneSkills(skills []Skill) []Skill {
	if skills == nil {
		return nil
	}
	out := make([]Skill, len(skills))
	for i, s := range skills {
		s.Resources = slices.Clone(s.Resources)
		out[i] = s
	}
	return out
}
