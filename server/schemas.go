package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// A typed variable's schema may $ref a file of the set
// ({"$ref": "schemas/user.json"}). GET /v1/templates gives each schema as
// index.json writes it; GET /v1/schemas/{path...} gives the files those
// schemas reference (Manager.SchemaFiles: the ones the set's load read
// for them), so that a client in another language can validate its
// values before it calls. No other file is served.

// serveRead reads one file of the set for a handler, as the manager reads
// the set's files (manager.ReadSetFile: a regular file only, never a FIFO
// or a device waited on, at most MaxFileBytes), answering the request with
// the problem when it cannot.
func (s *Server) serveRead(w http.ResponseWriter, p string) ([]byte, bool) {
	b, err := manager.ReadSetFile(s.files, p, MaxFileBytes)
	switch {
	case err == nil:
		return b, true
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
	if !slices.Contains(m.SchemaFiles(), p) {
		writeProblem(w, requestProblem(kindNotFound, fmt.Sprintf("%q is not a schema file that the set's variables reference", p)), nil)
		return
	}
	b, ok := s.serveRead(w, p)
	if !ok {
		return
	}
	s.send(w, r, "application/schema+json", len(b), func(w io.Writer) { _, _ = w.Write(b) })
}
