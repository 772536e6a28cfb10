package schema

import (
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
)

// The shape of a schema. A schema's size says little of what validating
// a value costs: anyOf, oneOf and allOf over the same subschema, a few
// levels deep, make a 2 KB schema that validates a 10-byte value through
// billions of subschemas. So a schema is refused at load when, written
// out with every $ref replaced by its target (a recursion written once),
// it would be too large or too deep, when one combinator lists too many
// alternatives, when a $ref cycle validates the same value again and
// again, when a reference resolves only at validation time, or when a
// pattern is too long or too complex. What is left costs a bounded
// amount a subschema and a value, and Validate charges it to the
// render's work budget before the library runs (budget.go).

// The limits of a schema's shape, at load.
const (
	// MaxSubschemas bounds the subschemas of one variable's schema written
	// out, every $ref replaced by its target (a recursion written once).
	MaxSubschemas = 10_000
	// MaxNesting bounds how deep subschemas nest, $refs followed.
	MaxNesting = 64
	// MaxAlternatives bounds the subschemas of one allOf, anyOf or oneOf.
	MaxAlternatives = 128
	// MaxPatternBytes bounds the source of one regular expression
	// ("pattern", the keys of "patternProperties").
	MaxPatternBytes = 1024
	// MaxPatternProgram bounds a regular expression's compiled program, in
	// instructions ("a{1,1000}" is 1,000 of them): matching costs this
	// many steps a byte at worst.
	MaxPatternProgram = 4096
)

// ShapeError is a schema refused for its shape: where (the set's file,
// "" for a schema written inline in index.json, and the JSON pointer of
// the subschema in it) and what.
type ShapeError struct {
	File    string // the schema's file in the set; "" for index.json's inline schema
	Pointer string // the subschema's JSON pointer in the file (or the inline schema), "" for its root
	Msg     string
}

func (e *ShapeError) Error() string {
	at := "#" + e.Pointer
	if e.File != "" {
		at = e.File + at
	}
	return at + ": " + e.Msg
}

// shapeError makes the ShapeError of subschema s.
func shapeError(s *jsonschema.Schema, format string, args ...any) *ShapeError {
	file, ptr := where(s)
	return &ShapeError{File: file, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// where splits a subschema's location into the set's file ("" for the
// inline schema of index.json) and the JSON pointer, unescaped as the
// library escapes it for a URL.
func where(s *jsonschema.Schema) (file, ptr string) {
	loc := strings.TrimPrefix(s.Location, base)
	file, ptr, _ = strings.Cut(loc, "#")
	if strings.HasPrefix(file, "index.json?") {
		file = ""
	}
	if p, err := url.PathUnescape(ptr); err == nil {
		ptr = p
	}
	return file, ptr
}

// sameEdges calls f with each subschema s applies to a value at the
// value's own location: $ref, the combinators, the conditionals. Only
// these can loop; movingEdges' subschemas apply to a part of the value,
// which is always smaller than the value.
func sameEdges(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	one(f, s.Ref)
	one(f, s.RecursiveRef)
	if s.DynamicRef != nil {
		one(f, s.DynamicRef.Ref)
	}
	one(f, s.Not)
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range list {
			f(c)
		}
	}
	one(f, s.If)
	one(f, s.Then)
	one(f, s.Else)
	for _, c := range s.DependentSchemas {
		f(c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			f(c)
		}
	}
}

// movingEdges calls f with each subschema s applies to a part of a value:
// a property's value or name, an item.
func movingEdges(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	one(f, s.PropertyNames)
	for _, c := range s.Properties {
		f(c)
	}
	for _, c := range s.PatternProperties {
		f(c)
	}
	if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		f(c)
	}
	one(f, s.UnevaluatedProperties)
	one(f, s.Contains)
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		f(it)
	case []*jsonschema.Schema:
		for _, c := range it {
			f(c)
		}
	}
	if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		f(c)
	}
	for _, c := range s.PrefixItems {
		f(c)
	}
	one(f, s.Items2020)
	one(f, s.UnevaluatedItems)
	one(f, s.ContentSchema)
}

func one(f func(*jsonschema.Schema), c *jsonschema.Schema) {
	if c != nil {
		f(c)
	}
}

// checkShape refuses the schema root, compiled, when its shape is beyond
// the limits above. It runs once per variable at load, in time linear in
// the subschemas root reaches.
func checkShape(root *jsonschema.Schema) error {
	g := &shapeGraph{index: map[*jsonschema.Schema]int{}}
	g.add(root)
	for i := 0; i < len(g.nodes); i++ {
		s := g.nodes[i]
		if err := checkNode(s); err != nil {
			return err
		}
		var same, moving []int // g.add grows g.adj: no pointer into it is kept
		sameEdges(s, func(c *jsonschema.Schema) { same = append(same, g.add(c)) })
		movingEdges(s, func(c *jsonschema.Schema) { moving = append(moving, g.add(c)) })
		g.adj[i].same, g.adj[i].moving = same, moving
	}
	if err := g.sameCycle(); err != nil {
		return err
	}
	return g.expanded()
}

// checkNode checks what one subschema alone may hold.
func checkNode(s *jsonschema.Schema) error {
	for _, c := range []struct {
		kw   string
		list []*jsonschema.Schema
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		if len(c.list) > MaxAlternatives {
			return shapeError(s, "%s lists %d subschemas, over the limit of %d", c.kw, len(c.list), MaxAlternatives)
		}
	}
	if s.RecursiveRef != nil && s.RecursiveRef.RecursiveAnchor {
		return shapeError(s, "$recursiveRef to a $recursiveAnchor resolves only while validating; variable schemas need every reference resolved at load (use $ref)")
	}
	if d := s.DynamicRef; d != nil && d.Anchor != "" && d.Ref.DynamicAnchor == d.Anchor {
		return shapeError(s, "$dynamicRef to a $dynamicAnchor resolves only while validating; variable schemas need every reference resolved at load (use $ref)")
	}
	if len(s.Extensions) > 0 {
		return shapeError(s, "a keyword of an extension vocabulary (%T)", s.Extensions[0])
	}
	return nil
}

// shapeGraph is the subschemas one variable's schema reaches, each with
// the indexes of the subschemas it applies.
type shapeGraph struct {
	nodes []*jsonschema.Schema
	index map[*jsonschema.Schema]int
	adj   []struct{ same, moving []int }
}

func (g *shapeGraph) add(s *jsonschema.Schema) int {
	if i, ok := g.index[s]; ok {
		return i
	}
	i := len(g.nodes)
	g.index[s] = i
	g.nodes = append(g.nodes, s)
	g.adj = append(g.adj, struct{ same, moving []int }{})
	return i
}

// sameCycle refuses a cycle of same-location edges: validating it applies
// the same subschemas to the same value forever (the library stops it
// with an error at validation; a schema that needs it is broken).
func (g *shapeGraph) sameCycle() error {
	const (
		white = iota
		grey
		black
	)
	color := make([]byte, len(g.nodes))
	var path []int
	var visit func(i int) error
	visit = func(i int) error {
		color[i] = grey
		path = append(path, i)
		for _, j := range g.adj[i].same {
			switch color[j] {
			case grey:
				var locs []string
				for _, k := range path[indexOf(path, j):] {
					_, p := where(g.nodes[k])
					locs = append(locs, "#"+p)
				}
				_, p := where(g.nodes[j])
				return shapeError(g.nodes[j], "a $ref cycle that never moves into the value (%s -> %s) would validate the same value forever",
					strings.Join(locs, " -> "), "#"+p)
			case white:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		color[i] = black
		return nil
	}
	for i := range g.nodes {
		if color[i] == white {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

func indexOf(path []int, j int) int {
	for i, k := range path {
		if k == j {
			return i
		}
	}
	return 0
}

// expanded refuses a schema too large or too deep once written out: the
// subschemas are grouped into their strongly connected components (a
// recursive schema's cycle is one, written once); a component counts its
// subschemas plus, for each edge out of it, the whole of the component it
// leads to, as many times as it is referred to. The first component
// (children first) beyond a limit is the one named.
func (g *shapeGraph) expanded() error {
	comp, comps := g.components()
	size := make([]int, len(comps))  // subschemas written out, saturated past the limit
	depth := make([]int, len(comps)) // nesting written out
	// Tarjan's algorithm numbers components children first: each edge out
	// of a component leads to one numbered before it.
	for c, members := range comps {
		n, d := len(members), 0
		for _, i := range members {
			for _, list := range [][]int{g.adj[i].same, g.adj[i].moving} {
				for _, j := range list {
					if comp[j] == c {
						continue
					}
					n = min(n+size[comp[j]], MaxSubschemas+1)
					d = max(d, depth[comp[j]])
				}
			}
		}
		size[c], depth[c] = n, min(d+len(members), MaxNesting+1)
		at := g.nodes[members[0]]
		switch {
		case n > MaxSubschemas:
			return shapeError(at, "written out with every $ref replaced by its target, the schema has more than %d subschemas (nested anyOf, oneOf or allOf over the same subschemas multiply them)", MaxSubschemas)
		case depth[c] > MaxNesting:
			return shapeError(at, "subschemas nest deeper than %d levels ($refs followed)", MaxNesting)
		}
	}
	return nil
}

// components returns the strongly connected components of the graph
// (Tarjan's algorithm, iterative so a long chain cannot exhaust the
// stack), in reverse topological order, and each node's component.
func (g *shapeGraph) components() (comp []int, comps [][]int) {
	n := len(g.nodes)
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	comp = make([]int, n)
	for i := range index {
		index[i] = -1
	}
	succ := func(i int) []int {
		out := make([]int, 0, len(g.adj[i].same)+len(g.adj[i].moving))
		return append(append(out, g.adj[i].same...), g.adj[i].moving...)
	}
	type frame struct {
		node int
		next []int
	}
	var stack []int
	counter := 0
	for start := range n {
		if index[start] >= 0 {
			continue
		}
		call := []frame{{start, succ(start)}}
		index[start], low[start] = counter, counter
		counter++
		stack = append(stack, start)
		on[start] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if len(f.next) > 0 {
				j := f.next[0]
				f.next = f.next[1:]
				switch {
				case index[j] < 0:
					index[j], low[j] = counter, counter
					counter++
					stack = append(stack, j)
					on[j] = true
					call = append(call, frame{j, succ(j)})
				case on[j]:
					low[f.node] = min(low[f.node], index[j])
				}
				continue
			}
			i := f.node
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].node
				low[p] = min(low[p], low[i])
			}
			if low[i] == index[i] {
				var members []int
				for {
					j := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[j] = false
					comp[j] = len(comps)
					members = append(members, j)
					if j == i {
						break
					}
				}
				comps = append(comps, members)
			}
		}
	}
	return comp, comps
}

// pattern is a regular expression of a schema, compiled by the engine the
// Compiler gives the library (compilePattern), with the size of its
// program: matching a string costs at most that many steps a byte, which
// Validate charges (budget.go).
type pattern struct {
	*regexp.Regexp
	insts int
}

// compilePattern is the library's regexp engine: Go's regexp (linear
// time), refusing a source longer than MaxPatternBytes before compiling it
// and a program larger than MaxPatternProgram. The library also uses it
// for the "regex" format, so a value checked for that format is compiled
// within the same limits.
func compilePattern(src string) (jsonschema.Regexp, error) {
	if len(src) > MaxPatternBytes {
		return nil, fmt.Errorf("a regular expression of %d bytes, over the limit of %d", len(src), MaxPatternBytes)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > MaxPatternProgram {
		return nil, fmt.Errorf("a regular expression of %d instructions once compiled, over the limit of %d", len(prog.Inst), MaxPatternProgram)
	}
	return pattern{Regexp: re, insts: len(prog.Inst)}, nil
}
