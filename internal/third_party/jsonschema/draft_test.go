package jsonschema

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

// [promptkit] Each draft's meta-schema is compiled when a schema of that
// draft is first validated (Draft.load), not at init. Every draft, from
// several goroutines at once: a schema of it compiles and validates, and
// one its meta-schema refuses is refused.
func TestDraftsLoadWhenFirstUsed(t *testing.T) {
	urls := []string{
		"http://json-schema.org/draft-04/schema#",
		"http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	}
	var wg sync.WaitGroup
	for g := range 4 {
		for i, u := range urls {
			wg.Go(func() {
				c := NewCompiler()
				good := fmt.Sprintf("mem://good/%d/%d.json", g, i)
				if err := c.AddResource(good, map[string]any{"$schema": u, "type": "object", "required": []any{"a"}}); err != nil {
					t.Error(err)
					return
				}
				sch, err := c.Compile(good)
				if err != nil {
					t.Errorf("%s: %v", u, err)
					return
				}
				if err := sch.Validate(map[string]any{"a": 1.0}); err != nil {
					t.Errorf("%s: %v", u, err)
				}
				if err := sch.Validate(map[string]any{}); err == nil {
					t.Errorf("%s: an object without a was accepted", u)
				}
				bad := fmt.Sprintf("mem://bad/%d/%d.json", g, i)
				if err := c.AddResource(bad, map[string]any{"$schema": u, "type": 5.0}); err != nil {
					t.Error(err)
					return
				}
				var ve *SchemaValidationError
				if _, err := c.Compile(bad); !errors.As(err, &ve) {
					t.Errorf("%s: a schema of type 5 compiled: %v", u, err)
				}
			})
		}
	}
	wg.Wait()
}
