package manager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/jsontree"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// IndexFile is the name of the index at the root of every template set.
const IndexFile = "index.json"

// Template describes one template of a set, as index.json declares it.
type Template struct {
	Name        string     // the entry's key in index.json
	Path        string     // the file, relative to the template root
	Description string     // free text for people
	Variables   []Variable // in the order index.json lists them
	// Lenient reports a template that renders with Jinja2's default
	// Undefined ("undefined": "lenient" in index.json, for the entry or
	// the whole set): an undefined value prints nothing, is false and
	// iterates as empty. Templates are strict by default (StrictUndefined:
	// see "Strictness" in the package documentation).
	Lenient bool
	// Hash is a hex SHA-256 of the template's source and of every file it
	// includes: it changes when any of them changes.
	Hash string
	// SetDigest is the digest of the whole set the template belongs to
	// (see Manager.Digest).
	SetDigest string
	// Contract is the call the entry declares beside its variables: the
	// model settings, tools, output schema and cache breakpoint (see
	// "Call contracts" in the package documentation); zero when it
	// declares none.
	Contract Contract
	// Budget is the token budget the entry declares ("budget": {"tokens":
	// N, "encoding": "o200k_base"}): loading proves that every render fits
	// it after every cut the template's marks allow (see "Token budgets"
	// in the package documentation). Zero when it declares none.
	Budget TokenBudget
}

// TokenBudget is a token budget an index.json entry declares.
type TokenBudget struct {
	Tokens int // at least 1; 0: no budget declared
	// Encoding is the OpenAI encoding the tokens are counted with
	// (tokens.Encodings); as index.json gives it, empty when it names
	// none and the contract's model picks it.
	Encoding string
}

// Variable is one declared variable of a template.
type Variable struct {
	Name        string
	Required    bool
	HasDefault  bool
	Default     any // the default value when HasDefault (JSON decoded; integers as int64)
	Description string
	// Schema is the variable's JSON Schema as index.json gives it: inline,
	// or {"$ref": "path"} to a file of the set; nil when the variable is
	// untyped. See "Typed variables" in the package documentation.
	Schema json.RawMessage
}

var (
	identRE        = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	templateNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*$`)
)

// reservedName reports a name that cannot be a variable: a Jinja keyword,
// loop (each for loop's own) or range (the global function).
func reservedName(name string) bool {
	switch name {
	case "and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False", "None",
		"loop", "range":
		return true
	}
	return false
}

// parseIndex reads index.json. It reports every problem it finds.
func parseIndex(data []byte) ([]Template, []*Error) {
	data = trimBOM(data)
	return parseIndexTree(data, indexTree(data))
}

// trimBOM drops a UTF-8 byte-order mark: Windows editors save one; JSON
// forbids it, but it carries no meaning, so it is skipped rather than
// refused.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte("\ufeff")) }

// indexTree reads index.json (without its byte-order mark) once, with
// positions, for the entries (parseIndexTree) and their call contracts
// (loader.contracts); nil when it is not a JSON object, or repeats a key,
// which encoding/json reads (and parseIndexTree reports) its own way.
func indexTree(data []byte) *jsontree.Node {
	tree, err := jsontree.Parse(data)
	if err != nil || tree.Kind != '{' {
		return nil
	}
	return tree
}

// parseIndexTree reads the entries of index.json from tree when it is
// given (indexTree) and each value has the JSON type its key wants; any
// other entry, variable or file is decoded by encoding/json, whose
// errors the problems quote. Both ways give the same templates and the
// same problems (FuzzParseIndex).
func parseIndexTree(data []byte, tree *jsontree.Node) ([]Template, []*Error) {
	var problems []*Error
	bad := func(entry, format string, args ...any) {
		problems = append(problems, &Error{Kind: ErrIndex, Template: entry, Path: IndexFile, Msg: fmt.Sprintf(format, args...)})
	}
	var top map[string]json.RawMessage
	if tree != nil {
		top = make(map[string]json.RawMessage, len(tree.Members))
		for _, m := range tree.Members {
			top[m.Key] = m.Value.Raw(data)
		}
	} else if err := decodeStrict(data, &top); err != nil {
		problems = append(problems, jsonError(data, err))
		return nil, problems
	}
	if top == nil {
		bad("", "index.json must be a JSON object with \"version\" and \"templates\"")
		return nil, problems
	}
	for k := range top {
		if k != "version" && k != "templates" && k != "$schema" && k != "undefined" {
			bad("", "unknown key %q (allowed: $schema, version, undefined, templates)", k)
		}
	}
	setLenient := false
	if raw, ok := top["undefined"]; ok {
		l, err := parseUndefined(raw)
		if err != nil {
			bad("", "%v", err)
		}
		setLenient = l
	}
	var version int
	if raw, ok := top["version"]; !ok {
		bad("", "missing \"version\": 1")
	} else if err := json.Unmarshal(raw, &version); err != nil || version != 1 {
		bad("", "unsupported version %s (this promptkit reads version 1)", string(raw))
	}
	var entries map[string]json.RawMessage
	var nodes map[string]*jsontree.Node // the entries' trees, when read from tree
	if raw, ok := top["templates"]; !ok {
		bad("", "missing \"templates\"")
	} else if ts := tree.Get("templates"); ts != nil && ts.Kind == '{' {
		entries = make(map[string]json.RawMessage, len(ts.Members))
		nodes = make(map[string]*jsontree.Node, len(ts.Members))
		for _, m := range ts.Members {
			entries[m.Key], nodes[m.Key] = m.Value.Raw(data), m.Value
		}
	} else if err := json.Unmarshal(raw, &entries); err != nil || entries == nil {
		bad("", "\"templates\" must be an object mapping names to entries")
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Template, 0, len(names))
	for _, name := range names {
		t, errs := parseEntry(name, entries[name], data, nodes[name], setLenient)
		problems = append(problems, errs...)
		if len(errs) == 0 {
			out = append(out, t)
		}
	}
	return out, problems
}

// parseUndefined reads an "undefined" setting: "strict" (the default)
// or "lenient"; it reports whether it is lenient.
func parseUndefined(raw json.RawMessage) (bool, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || (s != "strict" && s != "lenient") {
		return false, fmt.Errorf("\"undefined\" is \"strict\" or \"lenient\", not %s", strings.TrimSpace(string(raw)))
	}
	return s == "lenient", nil
}

// indexEntry is an entry of index.json as encoding/json decodes it.
type indexEntry struct {
	Path        *string           `json:"path"`
	Description string            `json:"description"`
	Variables   []json.RawMessage `json:"variables"`
	Undefined   json.RawMessage   `json:"undefined"`
	Budget      json.RawMessage   `json:"budget"`
	// The call contract: read with positions by contract.go.
	Model, Tools, Output, Cache json.RawMessage

	vars []*jsontree.Node // Variables' trees, when read from one
}

// entryKeys are the keys an entry may have.
var entryKeys = append(append([]string{"path", "description", "variables", "undefined"}, contractKeys...), "budget")

// fromTree fills e from the entry's tree n in the text data, as
// encoding/json would, and reports whether it could: every key is one of
// entryKeys and every value has the type its field wants (no null, which
// encoding/json reads field by field).
func (e *indexEntry) fromTree(data []byte, n *jsontree.Node) bool {
	if n == nil || n.Kind != '{' {
		return false
	}
	for _, m := range n.Members {
		v := m.Value
		if v.Kind == 'n' {
			return false
		}
		switch m.Key {
		case "path":
			if v.Kind != '"' {
				return false
			}
			e.Path = &v.Str
		case "description":
			if v.Kind != '"' {
				return false
			}
			e.Description = v.Str
		case "variables":
			if v.Kind != '[' {
				return false
			}
			e.Variables = make([]json.RawMessage, len(v.Items))
			for i, it := range v.Items {
				e.Variables[i] = it.Raw(data)
			}
			e.vars = v.Items
		case "undefined":
			e.Undefined = v.Raw(data)
		case "budget":
			e.Budget = v.Raw(data)
		case "model":
			e.Model = v.Raw(data)
		case "tools":
			e.Tools = v.Raw(data)
		case "output":
			e.Output = v.Raw(data)
		case "cache":
			e.Cache = v.Raw(data)
		default:
			return false
		}
	}
	return true
}

// parseEntry reads the entry name of index.json: raw, and its tree n
// in the index's text doc when it was read into one (nil otherwise).
func parseEntry(name string, raw json.RawMessage, doc []byte, n *jsontree.Node, lenient bool) (Template, []*Error) {
	var problems []*Error
	bad := func(format string, args ...any) {
		problems = append(problems, &Error{Kind: ErrIndex, Template: name, Path: IndexFile, Msg: fmt.Sprintf(format, args...)})
	}
	t := Template{Name: name, Lenient: lenient}
	if !templateNameRE.MatchString(name) {
		bad("invalid template name (use letters, digits, _, . and -)")
	}
	var e indexEntry
	if !e.fromTree(doc, n) {
		e = indexEntry{}
		if err := exactKeys(raw, entryKeys...); err != nil {
			bad("invalid entry: %v", err)
			return t, problems
		}
		if err := decodeStrict(raw, &e); err != nil {
			bad("invalid entry: %v", cleanJSONErr(err))
			return t, problems
		}
	}
	t.Description = e.Description
	if e.Undefined != nil {
		l, err := parseUndefined(e.Undefined)
		if err != nil {
			bad("%v", err)
		}
		t.Lenient = l
	}
	if e.Budget != nil {
		b, err := parseBudget(e.Budget)
		if err != nil {
			bad("budget: %v", err)
		}
		t.Budget = b
	}
	switch {
	case e.Path == nil || *e.Path == "":
		bad("missing or empty \"path\"")
	default:
		p := *e.Path
		if err := checkPath(p); err != nil {
			problems = append(problems, &Error{Kind: ErrSandbox, Template: name, Path: IndexFile, Msg: fmt.Sprintf("path %q: %v", p, err)})
		}
		t.Path = path.Clean(p)
	}
	seen := map[string]bool{}
	for i, rv := range e.Variables {
		var vn *jsontree.Node
		if e.vars != nil {
			vn = e.vars[i]
		}
		v, err := parseVariable(rv, doc, vn)
		if err != nil {
			bad("variables[%d]: %v", i, err)
			continue
		}
		if seen[v.Name] {
			problems = append(problems, &Error{Kind: ErrIndex, Template: name, Path: IndexFile, Variables: []string{v.Name}, Msg: fmt.Sprintf("variable %q is declared twice", v.Name)})
			continue
		}
		seen[v.Name] = true
		t.Variables = append(t.Variables, v)
	}
	return t, problems
}

// parseBudget reads an entry's "budget": {"tokens": N, "encoding": ENC}.
func parseBudget(raw json.RawMessage) (TokenBudget, error) {
	const form = `a budget is {"tokens": N, "encoding": "o200k_base"} (encoding optional: the contract model's)`
	var o struct {
		Tokens   *int   `json:"tokens"`
		Encoding string `json:"encoding"`
	}
	if err := exactKeys(raw, "tokens", "encoding"); err != nil {
		return TokenBudget{}, fmt.Errorf("%s: %v", form, err)
	}
	if err := decodeStrict(raw, &o); err != nil {
		return TokenBudget{}, fmt.Errorf("%s: %v", form, cleanJSONErr(err))
	}
	if o.Tokens == nil || *o.Tokens < 1 {
		return TokenBudget{}, fmt.Errorf("%s: tokens must be 1 or more", form)
	}
	if o.Encoding != "" && !slices.Contains(tokens.Encodings(), o.Encoding) {
		_, err := tokens.Encoding(o.Encoding)
		if err == nil {
			err = fmt.Errorf("%q is not an OpenAI encoding (%s)", o.Encoding, strings.Join(tokens.Encodings(), ", "))
		}
		return TokenBudget{}, fmt.Errorf("encoding: %v", err)
	}
	return TokenBudget{Tokens: *o.Tokens, Encoding: o.Encoding}, nil
}

// indexVariable is a variable object of index.json as encoding/json
// decodes it.
type indexVariable struct {
	Name        *string         `json:"name"`
	Required    *bool           `json:"required"`
	Default     json.RawMessage `json:"default"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// fromTree fills o from the variable object's tree n, as encoding/json
// would, and reports whether it could (see indexEntry.fromTree).
func (o *indexVariable) fromTree(data []byte, n *jsontree.Node) bool {
	if n == nil || n.Kind != '{' {
		return false
	}
	for _, m := range n.Members {
		v := m.Value
		switch {
		case v.Kind == 'n':
			return false
		case m.Key == "name" && v.Kind == '"':
			o.Name = &v.Str
		case m.Key == "required" && v.Kind == 't':
			o.Required = &v.Bool
		case m.Key == "default":
			o.Default = v.Raw(data)
		case m.Key == "description" && v.Kind == '"':
			o.Description = v.Str
		case m.Key == "schema":
			o.Schema = v.Raw(data)
		default:
			return false
		}
	}
	return true
}

// parseVariable reads a variable of an entry: raw, and its tree n in
// the index's text doc when it was read into one (nil otherwise).
func parseVariable(raw json.RawMessage, doc []byte, n *jsontree.Node) (Variable, error) {
	raw = bytes.TrimSpace(raw)
	v := Variable{Required: true}
	switch {
	case n != nil && n.Kind == '"':
		v.Name = n.Str
	case len(raw) > 0 && raw[0] == '"':
		if err := json.Unmarshal(raw, &v.Name); err != nil {
			return v, err
		}
	default:
		var o indexVariable
		if !o.fromTree(doc, n) {
			o = indexVariable{}
			if err := exactKeys(raw, "name", "required", "default", "description", "schema"); err != nil {
				return v, fmt.Errorf("a variable is a name or an object {name, required, default, description, schema}: %v", err)
			}
			if err := decodeStrict(raw, &o); err != nil {
				return v, fmt.Errorf("a variable is a name or an object {name, required, default, description, schema}: %v", cleanJSONErr(err))
			}
		}
		v.Schema = o.Schema
		if o.Name == nil {
			return v, fmt.Errorf("variable object without \"name\"")
		}
		v.Name = *o.Name
		v.Description = o.Description
		if o.Required != nil {
			v.Required = *o.Required
		}
		if o.Default != nil {
			if v.Required {
				return v, fmt.Errorf("variable %q has a default but is required; add \"required\": false", v.Name)
			}
			d, err := DecodeJSON(o.Default)
			if err != nil {
				return v, fmt.Errorf("variable %q: bad default: %v", v.Name, err)
			}
			v.HasDefault, v.Default = true, d
		}
	}
	if !identRE.MatchString(v.Name) {
		return v, fmt.Errorf("invalid variable name %q (want [A-Za-z_][A-Za-z0-9_]*)", v.Name)
	}
	if reservedName(v.Name) {
		return v, fmt.Errorf("variable name %q is reserved", v.Name)
	}
	return v, nil
}

// checkPath refuses paths that could leave the template root.
func checkPath(p string) error {
	switch {
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':'):
		return fmt.Errorf("absolute paths are not allowed; paths are relative to the template root")
	case strings.Contains(p, `\`):
		return fmt.Errorf("use forward slashes")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return fmt.Errorf("\"..\" would leave the template root")
		}
	}
	if !fs.ValidPath(path.Clean(p)) || path.Clean(p) == "." {
		return fmt.Errorf("not a valid path inside the template root")
	}
	return nil
}

// exactKeys refuses keys of a JSON object other than allowed, compared
// exactly: encoding/json alone would accept "Path" for "path". It reads
// the keys in place, without decoding the object (decodeStrict does that
// once), and names the first unknown key in sorted order.
func exactKeys(data []byte, allowed ...string) error {
	unknown, found := "", false
	for raw, i := firstKey(data); raw != nil; raw, i = nextKey(data, i) {
		if !bytes.ContainsAny(raw, "\\\x80\xff") && utf8.Valid(raw) { // the common case: compared in place
			if slices.ContainsFunc(allowed, func(a string) bool { return a == string(raw) }) {
				continue
			}
		}
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &k) != nil { // as encoding/json reads it
			continue
		}
		if !slices.Contains(allowed, k) && (!found || k < unknown) {
			unknown, found = k, true
		}
	}
	if !found {
		return nil // or not an object: decodeStrict reports it
	}
	return fmt.Errorf("unknown field %q (allowed: %s)", unknown, strings.Join(allowed, ", "))
}

// firstKey and nextKey walk the keys of the JSON object data: each returns
// a key's raw text (between its quotes, escapes as written) and where the
// next begins, or nil after the last (or when data is not an object).
// data is valid JSON: encoding/json has read it.
func firstKey(data []byte) ([]byte, int) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, 0
	}
	return nextKey(data, skipSpace(data, i+1))
}

func nextKey(data []byte, i int) ([]byte, int) {
	if i >= len(data) || data[i] != '"' {
		return nil, i
	}
	end := skipString(data, i)
	raw := data[i+1 : end-1]
	i = skipSpace(data, end)                                   // at the colon
	i = skipSpace(data, skipValue(data, skipSpace(data, i+1))) // after the value
	if i < len(data) && data[i] == ',' {
		i = skipSpace(data, i+1)
	}
	return raw, i
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the position after the string that starts at i.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the position after the value that starts at i.
func skipValue(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; {
		case c == '"':
			i = skipString(data, i)
		case c == '{' || c == '[':
			depth++
			i++
		case c == '}' || c == ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return i
		default:
			i++
		}
		if depth == 0 && i > 0 && (data[i-1] == '"' || data[i-1] == '}' || data[i-1] == ']') {
			return i
		}
	}
	return i
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the JSON value")
	}
	return nil
}

func cleanJSONErr(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonError positions a JSON syntax error in index.json.
func jsonError(data []byte, err error) *Error {
	e := &Error{Kind: ErrIndex, Path: IndexFile, Msg: "invalid JSON: " + cleanJSONErr(err)}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case asErr(err, &se):
		off = se.Offset
	case asErr(err, &te):
		off = te.Offset
	}
	if off > 0 {
		// Offset counts the offending byte itself: point at it.
		src := jinja.NewSource(IndexFile, string(data))
		e.Line, e.Col = src.Position(jinja.Pos(min(off-1, int64(len(data)))))
	}
	return e
}

// DecodeJSON decodes JSON the way promptkit passes values to templates:
// integers stay integers (int64), other numbers become float64, null
// becomes nil (Python's None, printed "None"). An integer beyond the
// int64 range stays a json.Number (a template reads it as Python's int,
// of any size). Objects become map[string]any, which has no order: to
// keep the order of an object's keys, as Python's json.loads does, pass
// the JSON itself as a json.RawMessage value (DecodeVars does, for a JSON
// object of variables).
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return normalizeJSON(v), nil
}

// DecodeVars decodes a JSON object of variables — a render's values, as
// the CLI's --vars and the HTTP API read them — keeping the order of the
// keys of every object inside, as Python's json.loads does: each value is
// its JSON, as a json.RawMessage, which a template reads with its keys in
// order. A JSON value that is not an object is an error.
func DecodeVars(data []byte) (map[string]any, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return nil, errNotObject
		}
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	if raw == nil {
		return nil, errNotObject
	}
	vars := make(map[string]any, len(raw))
	for k, v := range raw {
		vars[k] = v
	}
	return vars, nil
}

// errNotObject is DecodeVars' refusal of a value that is not an object.
var errNotObject = errors.New("want a JSON object of variables")

func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := x.String()
		if !strings.ContainsAny(s, ".eE") {
			if i, err := x.Int64(); err == nil {
				return i
			}
			return x
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalizeJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeJSON(x[k])
		}
	}
	return v
}
