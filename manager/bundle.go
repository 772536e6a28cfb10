package manager

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/seed-e7d2830f/promptkit/internal/jsontree"
)

// Bundling: a provider takes a tool's parameters and an answer's schema
// as one JSON document, and cannot read the set's files. A contract's
// schema may $ref files of the set (relative to the file it is written
// in; index.json's inline schemas are at the root), so the request gets
// it bundled: each file its $refs reach, directly or through one another,
// goes under "$defs" of the root, and every $ref is rewritten to point
// there ("schemas/city.json#/properties/name" becomes
// "#/$defs/city/properties/name"). A root that is only a $ref is
// replaced by what it names, so the root is the schema itself (OpenAI
// wants an object there). Keys keep their order; a schema without $refs
// to other files is sent as it is written, compacted. $id, $anchor and
// $dynamicRef change how $refs resolve, and a $ref to an anchor cannot be
// rewritten: a contract's schema that uses them is refused.

// bundleDoc is one file the bundle reads.
type bundleDoc struct {
	file string // "" for a schema written inline in index.json
	data []byte
	tree *jsontree.Node
	key  string // its key under $defs, once it needs one
}

type bundler struct {
	read    func(string) ([]byte, error)
	docs    map[string]*bundleDoc
	root    *bundleDoc
	rootPtr string
	defs    []*bundleDoc // the docs that get a $defs entry, in order of first use
	taken   map[string]bool
}

// bundle returns the schema n, a value of the file file whose text is
// data and whose tree is root, as one self-contained document. For a
// schema written inline in index.json, file is "" and root is n: its
// $refs are relative to the set's root, and "#…" is n itself.
func bundle(read func(string) ([]byte, error), file string, data []byte, root, n *jsontree.Node) (json.RawMessage, error) {
	b := &bundler{read: read, docs: map[string]*bundleDoc{}, taken: map[string]bool{}}
	doc := &bundleDoc{file: file, data: data, tree: root}
	if file != "" {
		b.docs[file] = doc
	}
	ptr := pointerOf(root, n)
	// A root that is only a $ref is what it names.
	for range 64 {
		if n.Kind != '{' || len(n.Members) != 1 || n.Members[0].Key != "$ref" || n.Members[0].Value.Kind != '"' {
			break
		}
		d, frag, err := b.resolve(doc, n.Members[0].Value.Str)
		if err != nil {
			return nil, err
		}
		next, ok := d.tree.Pointer(frag)
		if !ok {
			return nil, fmt.Errorf("$ref %s: no such place in %s", n.Members[0].Value.Str, d.name())
		}
		doc, ptr, n = d, frag, next
	}
	b.root, b.rootPtr = doc, ptr
	if !b.hasRefs(doc, n) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, n.Raw(doc.data)); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if n.Kind == '{' {
		if defs := n.Get("$defs"); defs != nil && defs.Kind == '{' {
			for _, m := range defs.Members {
				b.taken[m.Key] = true
			}
		}
	}
	var w bytes.Buffer
	if err := b.object(&w, doc, n, true); err != nil {
		return nil, err
	}
	return w.Bytes(), nil
}

func (d *bundleDoc) name() string {
	if d.file == "" {
		return IndexFile
	}
	return d.file
}

// pointerOf is the JSON pointer of n in root.
func pointerOf(root, n *jsontree.Node) string {
	if root == n {
		return ""
	}
	switch root.Kind {
	case '{':
		for _, m := range root.Members {
			if n.Off >= m.Value.Off && n.End <= m.Value.End {
				tok := strings.ReplaceAll(strings.ReplaceAll(m.Key, "~", "~0"), "/", "~1")
				return "/" + tok + pointerOf(m.Value, n)
			}
		}
	case '[':
		for i, it := range root.Items {
			if n.Off >= it.Off && n.End <= it.End {
				return "/" + strconv.Itoa(i) + pointerOf(it, n)
			}
		}
	}
	return ""
}

// resolve finds the file and the pointer a $ref of doc names.
func (b *bundler) resolve(doc *bundleDoc, ref string) (*bundleDoc, string, error) {
	file, frag, _ := strings.Cut(ref, "#")
	if frag != "" && frag[0] != '/' {
		return nil, "", fmt.Errorf("$ref %s: a reference to an anchor cannot be sent to a provider; use a JSON pointer (#/$defs/…)", ref)
	}
	if file == "" {
		return doc, frag, nil
	}
	if strings.Contains(file, ":") {
		return nil, "", fmt.Errorf("$ref %s: schemas are read only from files of the template set", ref)
	}
	p := path.Clean(path.Join(path.Dir(doc.file), file))
	if doc.file == "" {
		p = path.Clean(file)
	}
	if d, ok := b.docs[p]; ok {
		return d, frag, nil
	}
	if err := checkPath(p); err != nil {
		return nil, "", fmt.Errorf("$ref %s: %v", ref, err)
	}
	data, err := b.read(p)
	if err != nil {
		return nil, "", fmt.Errorf("$ref %s: %v", ref, err)
	}
	tree, err := jsontree.Parse(data)
	if err != nil {
		return nil, "", fmt.Errorf("$ref %s: %s: %v", ref, p, err)
	}
	d := &bundleDoc{file: p, data: data, tree: tree}
	b.docs[p] = d
	return d, frag, nil
}

// hasRefs reports whether n holds a $ref that leaves it.
func (b *bundler) hasRefs(doc *bundleDoc, n *jsontree.Node) bool {
	found := false
	var walk func(n *jsontree.Node)
	walk = func(n *jsontree.Node) {
		switch n.Kind {
		case '{':
			for _, m := range n.Members {
				switch {
				case m.Key == "$ref" && m.Value.Kind == '"':
					file, frag, _ := strings.Cut(m.Value.Str, "#")
					found = found || file != "" || !under(frag, b.rootPtr) || doc != b.root
				case dataKeys[m.Key]:
				default:
					walk(m.Value)
				}
			}
		case '[':
			for _, it := range n.Items {
				walk(it)
			}
		}
	}
	walk(n)
	return found
}

// dataKeys hold values, not schemas: a "$ref" inside them is data.
var dataKeys = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// refusedKeys change how $refs resolve.
var refusedKeys = []string{"$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "id"}

// under reports whether the pointer p is at or below root.
func under(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }

// ref rewrites a $ref of doc to point into the bundle.
func (b *bundler) ref(doc *bundleDoc, ref string) (string, error) {
	d, frag, err := b.resolve(doc, ref)
	if err != nil {
		return "", err
	}
	if _, ok := d.tree.Pointer(frag); !ok {
		return "", fmt.Errorf("$ref %s: no such place in %s", ref, d.name())
	}
	if d == b.root && under(frag, b.rootPtr) {
		return "#" + frag[len(b.rootPtr):], nil
	}
	if d.key == "" {
		d.key = b.key(d.file)
		b.defs = append(b.defs, d)
	}
	return "#/$defs/" + d.key + frag, nil
}

// key makes a $defs key of a file's path: its name without the extension
// (schemas/city.json is city), or, when another file or the schema's own
// $defs has that key, the whole path (schemas_city).
func (b *bundler) key(file string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, strings.TrimSuffix(s, path.Ext(s)))
	}
	k := clean(path.Base(file))
	if b.taken[k] {
		k = clean(file)
	}
	base := k
	for i := 2; b.taken[k]; i++ {
		k = base + "_" + strconv.Itoa(i)
	}
	b.taken[k] = true
	return k
}

// value writes n of doc with its $refs rewritten.
func (b *bundler) value(w *bytes.Buffer, doc *bundleDoc, n *jsontree.Node) error {
	switch n.Kind {
	case '{':
		return b.object(w, doc, n, false)
	case '[':
		w.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := b.value(w, doc, it); err != nil {
				return err
			}
		}
		w.WriteByte(']')
		return nil
	}
	return json.Compact(w, n.Raw(doc.data))
}

// object writes an object of doc; the root gets the $defs of the files
// its $refs reach, after its own.
func (b *bundler) object(w *bytes.Buffer, doc *bundleDoc, n *jsontree.Node, root bool) error {
	w.WriteByte('{')
	first := true
	sep := func(key string) {
		if !first {
			w.WriteByte(',')
		}
		first = false
		w.WriteString(strconv.Quote(key))
		w.WriteByte(':')
	}
	var ownDefs *jsontree.Node
	for _, m := range n.Members {
		switch {
		case slices.Contains(refusedKeys, m.Key) && m.Value.Kind == '"':
			return fmt.Errorf("%s: %s changes how $refs resolve: a schema sent to a provider cannot use it", doc.name(), m.Key)
		case root && m.Key == "$defs" && m.Value.Kind == '{':
			ownDefs = m.Value // written last, with the files'
			continue
		}
		sep(m.Key)
		switch {
		case m.Key == "$ref" && m.Value.Kind == '"':
			r, err := b.ref(doc, m.Value.Str)
			if err != nil {
				return err
			}
			w.WriteString(strconv.Quote(r))
		case dataKeys[m.Key]:
			if err := json.Compact(w, m.Value.Raw(doc.data)); err != nil {
				return err
			}
		default:
			if err := b.value(w, doc, m.Value); err != nil {
				return err
			}
		}
	}
	if root && (ownDefs != nil || len(b.defs) > 0) {
		var defs bytes.Buffer
		defs.WriteByte('{')
		n := 0
		if ownDefs != nil {
			for _, m := range ownDefs.Members {
				if n++; n > 1 {
					defs.WriteByte(',')
				}
				defs.WriteString(strconv.Quote(m.Key) + ":")
				if err := b.value(&defs, doc, m.Value); err != nil {
					return err
				}
			}
		}
		// Writing a file may reach more files: b.defs grows as it goes.
		for i := 0; i < len(b.defs); i++ {
			d := b.defs[i]
			if n++; n > 1 {
				defs.WriteByte(',')
			}
			defs.WriteString(strconv.Quote(d.key) + ":")
			if err := b.value(&defs, d, d.tree); err != nil {
				return err
			}
		}
		defs.WriteByte('}')
		sep("$defs")
		w.Write(defs.Bytes())
	}
	w.WriteByte('}')
	return nil
}

// strictSubset reports whether a bundled schema is in the subset strict
// structured outputs take: an object at the root, and every object schema
// lists its properties, requires each and allows no other.
func strictSubset(schema json.RawMessage) bool {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil || root["type"] != "object" {
		return false
	}
	var strict func(v any) bool
	strict = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			props, hasProps := x["properties"].(map[string]any)
			if x["type"] == "object" || hasProps {
				if x["additionalProperties"] != false {
					return false
				}
				req, _ := x["required"].([]any)
				if len(req) != len(props) {
					return false
				}
				for _, r := range req {
					if s, _ := r.(string); props[s] == nil {
						return false
					}
				}
			}
			for k, sub := range x {
				if dataKeys[k] {
					continue
				}
				if !strict(sub) {
					return false
				}
			}
		case []any:
			for _, it := range x {
				if !strict(it) {
					return false
				}
			}
		}
		return true
	}
	return strict(root)
}
