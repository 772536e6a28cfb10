package schema

import (
	"bytes"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema"
)

// Index is the compiled schema of index.json itself.
type Index struct{ s *jsonschema.Schema }

// CompileIndex compiles the schema of index.json (promptkit ships it as
// schemas/index.schema.json; the root package embeds it).
func CompileIndex(doc []byte) (*Index, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("index schema: invalid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(setLoader{read: func(p string) ([]byte, error) {
		return nil, fmt.Errorf("the index schema refers to %s: it must be self-contained", p)
	}, files: map[string]bool{}})
	const loc = base + "index.schema.json"
	if err := c.AddResource(loc, v); err != nil {
		return nil, err
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, cleanErr(err, loc, "index.schema.json")
	}
	return &Index{s: s}, nil
}

// Validate validates an index.json document. Violations' paths start at
// the document's root ("templates.title.variables[0]"); a problem with
// the document as a whole has the path "".
func (ix *Index) Validate(data []byte) ([]Violation, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	return violations(ix.s.Validate(v), "", v), nil
}
