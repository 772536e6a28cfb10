// Package schema gives template variables their JSON Schemas: it compiles
// the schema of each variable an index.json declares (inline, or a $ref to
// a file of the template set), turns it into the type the front end's
// type pass checks templates against (jinja.Type), and validates the
// values a host passes before a render, naming every offending path
// ("user.tags[2]: want string, got number").
//
// Schemas are JSON Schema draft 2020-12 (a schema may name another draft
// with "$schema"), compiled and validated by
// github.com/seed-e7d2830f/promptkit/internal/third_party/jsonschema: promptkit has no validator of
// its own. Every file a schema reads goes through the read function its
// Compiler is given — for the manager, the loader's reader, which reads
// only regular files of the set, within the size limit — and nothing
// else: a $ref to a URL or to a file outside the set is refused, not
// fetched.
//
// A Compiler is used for one load of one set: a file referenced by many
// variables is read and compiled once. A compiled Schema is immutable and
// safe for concurrent use.
//
// # What the types say
//
// A schema's "type" (or the kinds of its enum or const values) gives the
// kinds a value may have; "properties" the attributes an object has;
// "items" and "prefixItems" an array's items; $ref, allOf, anyOf and
// oneOf are followed. An object schema that declares properties has
// exactly those for the type pass, unless it allows others explicitly
// with "additionalProperties" (true or a schema) or "patternProperties":
// JSON Schema's default allows any other property, but a template that
// reads one the schema does not declare is almost always a misspelling.
// An object schema that declares no properties is a map of anything.
//
// # Budgets
//
// Validate runs within a Budget, the render's context and work: the quick
// path charges a unit a value it reads; before the library validates a
// value (it takes no context), the work it would do is counted and
// charged, and a value beyond the budget is refused with ErrWork before
// the library starts. Compile refuses the schemas whose shape would make
// that count large (shape.go: MaxSubschemas, MaxNesting, MaxAlternatives,
// MaxPatternBytes, MaxPatternProgram; same-place $ref cycles and
// references resolved only while validating), with a *ShapeError naming
// the file and the JSON pointer.
//
// # Values
//
// A value is validated as encoding/json would encode it: maps, slices and
// structs of the host are read as JSON objects and arrays (struct fields
// by their json names, omitempty and omitzero honoured), so a host passes
// its own Go types. JSON-shaped values (map[string]any, []any, strings,
// numbers, booleans, nil) are validated as they are, without a copy.
package schema
