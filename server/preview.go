package server

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
)

// The preview page is plain HTML, CSS and JavaScript embedded in the
// binary: no build step, nothing fetched from elsewhere. It never renders
// anything itself: it posts the form's values to the API and shows what the
// server rendered, so an author sees exactly what a host gets.

//go:embed preview
var previewFS embed.FS

// pagePolicy lets the page load its own script and style and nothing else
// but images (message parts may be http(s) or data: URLs); it cannot be
// framed.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: http: https:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	s.serveEmbedded(w, "preview/index.html")
}

func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if name == "index.html" || !fs.ValidPath(name) {
		writeProblem(w, requestProblem(kindNotFound, "no asset "+name), nil)
		return
	}
	s.serveEmbedded(w, "preview/"+name)
}

func (s *Server) serveEmbedded(w http.ResponseWriter, name string) {
	b, err := previewFS.ReadFile(name)
	if err != nil {
		writeProblem(w, requestProblem(kindNotFound, "no asset "+path.Base(name)), nil)
		return
	}
	h := w.Header()
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Security-Policy", pagePolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(b)
}

// serveFile serves one file of the set, for the page to show problems
// beside the lines they are about. It reads through the set's own file
// system (for a directory, an os.Root: no path or symlink leaves it), and
// only files the set is known to use: index.json, each template's file,
// and each file a current problem names. Anything else in the directory
// (a .env beside the templates, say) stays private.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	if !s.knownFile(p) {
		writeProblem(w, requestProblem(kindNotFound, fmt.Sprintf("%q is not a file of the template set", p)), nil)
		return
	}
	b, ok := s.serveRead(w, p)
	if !ok {
		return
	}
	s.send(w, r, "text/plain; charset=utf-8", len(b), func(w io.Writer) { _, _ = w.Write(b) })
}

func (s *Server) knownFile(p string) bool {
	if !fs.ValidPath(p) || p == "." {
		return false
	}
	if p == "index.json" {
		return true
	}
	for _, pr := range s.status.Load().Problems {
		if pr.Path == p {
			return true
		}
	}
	if m := s.m.Load(); m != nil {
		for _, t := range m.Templates() {
			if t.Path == p {
				return true
			}
		}
	}
	return false
}
