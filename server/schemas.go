package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// A typed variable's schema may $ref a file of the set
// ({"$ref": "schemas/user.json"}). GET /v1/templates gives each schema as
// index.json writes it; GET /v1/schemas/{path...} gives the files those
// schemas reference, so that a client in another language can validate
// its values before it calls. Only files a schema references are served,
// found by following $refs from index.json as the manager resolves them:
// a path is relative to the file the $ref is in, and the set's root is
// where index.json is.

// schemaBase is the URL the set's root has when $refs are resolved; no
// other URL names a file of the set.
var schemaBase = &url.URL{Scheme: "set", Path: "/"}

// schemaFiles returns the files of the set that m's schemas reference,
// directly or through other schema files, by path. A file that cannot be
// read or parsed is left out (loading the set reported it).
func (s *Server) schemaFiles(m *manager.Manager) map[string]bool {
	files := map[string]bool{}
	var queue []string
	follow := func(doc any, in *url.URL) {
		for _, ref := range fileRefs(doc, nil) {
			if p, ok := resolveRef(ref, in); ok && !files[p] {
				files[p] = true
				queue = append(queue, p)
			}
		}
	}
	index := schemaBase.JoinPath(manager.IndexFile)
	for _, t := range m.Templates() {
		for _, v := range t.Variables {
			var doc any
			if v.Schema != nil && json.Unmarshal(v.Schema, &doc) == nil {
				follow(doc, index)
			}
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		b, err := s.readSetFile(p)
		var doc any
		if err == nil && json.Unmarshal(b, &doc) == nil {
			follow(doc, schemaBase.JoinPath(p))
		}
	}
	return files
}

// resolveRef resolves a $ref found in the document at in to a path of
// the set, if it names one.
func resolveRef(ref string, in *url.URL) (string, bool) {
	if slices.Contains(strings.Split(ref, "/"), "..") {
		return "", false // the manager refuses a path out of its directory
	}
	u, err := in.Parse(ref)
	if err != nil || u.Scheme != schemaBase.Scheme || u.Host != "" {
		return "", false
	}
	p := strings.TrimPrefix(u.Path, "/")
	return p, fs.ValidPath(p) && p != "." && p != manager.IndexFile
}

// fileRefs appends the $ref values of doc that name another document (a
// "#…" fragment of the same one is no file).
func fileRefs(doc any, refs []string) []string {
	switch x := doc.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok && r != "" && !strings.HasPrefix(r, "#") {
			refs = append(refs, r)
		}
		for _, e := range x {
			refs = fileRefs(e, refs)
		}
	case []any:
		for _, e := range x {
			refs = fileRefs(e, refs)
		}
	}
	return refs
}

// readSetFile reads one file of the set, bounded by MaxFileBytes.
func (s *Server) readSetFile(p string) ([]byte, error) {
	f, err := s.files.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err == nil && len(b) > MaxFileBytes {
		err = errTooLarge
	}
	return b, err
}

var errTooLarge = fmt.Errorf("larger than %d bytes", MaxFileBytes)

// serveRead reads one file of the set for a handler, answering the
// request with the problem when it cannot.
func (s *Server) serveRead(w http.ResponseWriter, p string) ([]byte, bool) {
	b, err := s.readSetFile(p)
	switch {
	case err == nil:
		return b, true
	case errors.Is(err, errTooLarge):
		writeProblem(w, requestProblem(kindTooLarge, p+" is "+err.Error()), nil)
	case errors.Is(err, fs.ErrNotExist):
		writeProblem(w, requestProblem(kindNotFound, "reading "+p+": "+err.Error()), nil)
	default:
		writeProblem(w, requestProblem(kindBadRequest, "reading "+p+": "+err.Error()), nil)
	}
	return nil, false
}

// serveSchema serves GET /v1/schemas/{path...}: a schema file that a
// variable's schema references.
func (s *Server) serveSchema(w http.ResponseWriter, r *http.Request) {
	m := s.manager(w)
	if m == nil {
		return
	}
	p := r.PathValue("path")
	if !s.schemaFiles(m)[p] {
		writeProblem(w, requestProblem(kindNotFound, fmt.Sprintf("%q is not a schema file that the set's variables reference", p)), nil)
		return
	}
	b, ok := s.serveRead(w, p)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	_, _ = w.Write(b)
}
