package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/service"
)

// health is the body of GET /healthz.
type health struct {
	Status     string    `json:"status"` // "ok", "degraded" (the last reload failed) or "unavailable"
	Generation uint64    `json:"generation"`
	Digest     string    `json:"digest"`
	Time       time.Time `json:"time"`
	LastError  string    `json:"last_error"` // every problem of the last attempt, one a line
}

// healthz reports the last load attempt: 200 while a set serves (even when
// the last reload failed, since the last good set still answers), 503
// while none does. It needs no token; without one it leaves out the
// problems, which quote the set's files.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	st := s.status.Load()
	h := health{Status: "ok", Generation: st.Generation, Digest: st.Digest, Time: st.Time}
	code := http.StatusOK
	switch {
	case !st.Serving:
		h.Status, code = "unavailable", http.StatusServiceUnavailable
	case !st.OK:
		h.Status = "degraded"
	}
	if s.cfg.token == "" || s.authorized(r) {
		h.LastError = problemsKey(st.Problems)
	}
	writeJSON(w, code, h)
}

func (s *Server) serveStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.status.Load())
}

// manager returns the manager serving, or answers 503 with the problems
// that keep the set from loading.
func (s *Server) manager(w http.ResponseWriter) *manager.Manager {
	if m := s.m.Load(); m != nil {
		return m
	}
	writeProblem(w, requestProblem(kindUnavailable, "no template set is serving: it failed to load (see problems)"),
		s.status.Load().Problems)
	return nil
}

// templateJSON is one template in GET /v1/templates.
type templateJSON struct {
	Name        string         `json:"name"`
	Path        string         `json:"path"`
	Description string         `json:"description"`
	Variables   []variableJSON `json:"variables"`
	Hash        string         `json:"hash"`
	// Contract is the call the entry declares (manager.Contract's JSON:
	// model, tools, output, cache), left out when it declares none.
	Contract *manager.Contract `json:"contract,omitempty"`
}

type variableJSON struct {
	Name        string          `json:"name"`
	Required    bool            `json:"required"`
	HasDefault  bool            `json:"has_default"`
	Default     any             `json:"default"` // only with has_default (then also when null)
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema,omitempty"` // as index.json writes it; its file $refs are served at /v1/schemas/
}

// MarshalJSON leaves "default" out when there is none, and keeps it when
// there is, even as null or false.
func (v variableJSON) MarshalJSON() ([]byte, error) {
	if v.HasDefault {
		type plain variableJSON
		return marshal(plain(v))
	}
	return marshal(struct {
		Name        string          `json:"name"`
		Required    bool            `json:"required"`
		HasDefault  bool            `json:"has_default"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema,omitempty"`
	}{v.Name, v.Required, v.HasDefault, v.Description, v.Schema})
}

type templateList struct {
	Digest     string         `json:"digest"`
	Generation uint64         `json:"generation"`
	Templates  []templateJSON `json:"templates"`
}

func describe(t manager.Template) templateJSON {
	vars := make([]variableJSON, len(t.Variables))
	for i, v := range t.Variables {
		vars[i] = variableJSON{Name: v.Name, Required: v.Required, HasDefault: v.HasDefault,
			Default: jsonValue(v.Default), Description: v.Description, Schema: v.Schema}
	}
	out := templateJSON{Name: t.Name, Path: t.Path, Description: t.Description, Variables: vars, Hash: t.Hash}
	if !t.Contract.IsZero() {
		out.Contract = &t.Contract
	}
	return out
}

// pyNone is the value DecodeJSON makes of null (Python's None).
var pyNone, _ = manager.DecodeJSON([]byte("null"))

// jsonValue turns a decoded default back into what encoding/json writes
// as the same JSON: None becomes null again.
func jsonValue(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = jsonValue(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	}
	if v == pyNone {
		return nil
	}
	return v
}

func (s *Server) listTemplates(w http.ResponseWriter, _ *http.Request) {
	m := s.manager(w)
	if m == nil {
		return
	}
	var ts []manager.Template
	gen, digest := consistent(m, func() { ts = m.Templates() })
	list := templateList{Digest: digest, Generation: gen, Templates: make([]templateJSON, len(ts))}
	for i, t := range ts {
		list.Templates[i] = describe(t)
	}
	setSet(w.Header(), gen, digest)
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, _, ok := splitCall(name); ok {
		w.Header().Set("Allow", http.MethodPost)
		writeProblem(w, requestProblem(kindMethod, "GET is not allowed on "+r.URL.Path+" (allowed: POST)"), nil)
		return
	}
	m := s.manager(w)
	if m == nil {
		return
	}
	var t manager.Template
	var found bool
	gen, digest := consistent(m, func() { t, found = m.Lookup(name) })
	setSet(w.Header(), gen, digest)
	if !found {
		writeError(w, &manager.Error{Kind: manager.ErrUnknownTemplate, Template: name, Msg: fmt.Sprintf("unknown template %q", name)})
		return
	}
	writeJSON(w, http.StatusOK, describe(t))
}

// templateCall serves POST /v1/templates/{name}:render, :messages and
// :request (requests.go).
func (s *Server) templateCall(w http.ResponseWriter, r *http.Request) {
	name, action, ok := splitCall(r.PathValue("call"))
	if !ok || (action != "render" && action != "messages" && action != "request") {
		writeProblem(w, requestProblem(kindNotFound, "want POST /v1/templates/{name}:render, /v1/templates/{name}:messages or /v1/templates/{name}:request"), nil)
		return
	}
	tok, ok := s.tokenizer(w, r)
	if !ok {
		return
	}
	budget, ok := budgetParam(w, r, action)
	if !ok {
		return
	}
	convert, ok := s.provider(w, r, action)
	if !ok {
		return
	}
	vars, ok := s.readVars(w, r)
	if !ok {
		return
	}
	m := s.manager(w)
	if m == nil {
		return
	}
	release, ok := s.admit(w, r)
	if !ok {
		return
	}
	var (
		text string
		msgs []manager.Message
		req  message.Request
		fit  *manager.Budgeted
		hash string
		err  error
	)
	gen, digest := consistent(m, func() {
		t, _ := m.Lookup(name)
		hash = t.Hash
		switch {
		case budget > 0:
			b := manager.Budget{Tokens: budget, Tokenizer: tok}
			if action == "render" {
				fit, err = m.RenderBudget(r.Context(), name, vars, b)
			} else {
				fit, err = m.RenderMessagesBudget(r.Context(), name, vars, b)
			}
			if err == nil {
				text, msgs = fit.Text, fit.Messages
			}
		case action == "render":
			text, err = m.Render(name, vars)
		case action == "messages":
			msgs, err = m.RenderMessages(name, vars)
		default:
			req, err = m.Request(r.Context(), name, vars)
			msgs = req.Messages
		}
	})
	release()
	setSet(w.Header(), gen, digest)
	if hash != "" {
		w.Header().Set(HeaderTemplateHash, hash)
	}
	switch {
	case fit != nil:
		setBudgeted(w.Header(), fit, r.URL.Query().Get("tokens"))
	case tok != nil && err == nil:
		setTokens(w.Header(), r.URL.Query().Get("tokens"), tok, text, msgs)
	}
	switch {
	case err != nil:
		writeError(w, err)
	case action == "render":
		s.sendText(w, r, text)
	case action == "request":
		s.sendRequest(w, r, req, convert)
	default:
		if msgs == nil {
			msgs = []manager.Message{}
		}
		s.sendJSON(w, r, msgs)
	}
}

// sendText sends a prompt, within the response limits.
func (s *Server) sendText(w http.ResponseWriter, r *http.Request, text string) {
	s.send(w, r, "text/plain; charset=utf-8", len(text), func(w io.Writer) { _, _ = io.WriteString(w, text) })
}

// sendJSON sends v (messages) as JSON, within the response limits.
func (s *Server) sendJSON(w http.ResponseWriter, r *http.Request, v any) {
	b, err := marshal(v)
	if err != nil {
		writeError(w, fmt.Errorf("server: cannot encode the response: %w", err))
		return
	}
	s.send(w, r, "application/json", len(b), func(w io.Writer) { _, _ = w.Write(b) })
}

// readBody reads a bounded request body; it answers 413 or 400 itself.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeProblem(w, requestProblem(kindTooLarge, fmt.Sprintf("the request body is larger than %d bytes", tooLarge.Limit)), nil)
		return nil, false
	case err != nil:
		writeProblem(w, requestProblem(kindBadRequest, "reading the request body: "+err.Error()), nil)
		return nil, false
	}
	return b, true
}

// readVars reads the variables of a render: a JSON object (an empty body
// is no variables), numbers kept as the CLI keeps them.
func (s *Server) readVars(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	b, ok := s.readBody(w, r)
	if !ok {
		return nil, false
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, true
	}
	if _, err := manager.DecodeJSON(b); err != nil {
		writeProblem(w, requestProblem(kindBadRequest, "the body is not valid JSON: "+err.Error()), nil)
		return nil, false
	}
	// Each variable as its JSON: objects keep the order of their keys,
	// as Python's json.loads keeps it.
	vars, err := manager.DecodeVars(b)
	if err != nil {
		writeProblem(w, requestProblem(kindBadRequest, "the body must be a JSON object of variables"), nil)
		return nil, false
	}
	return vars, true
}

// builderJSON is one builder in GET /v1/builders.
type builderJSON struct {
	Name     string   `json:"name"`
	Template string   `json:"template"`
	Keys     []string `json:"keys"`
}

// service returns the builders' service, or answers 503 with the reason
// it could not be made (a set without the builders' templates, say).
func (s *Server) service(w http.ResponseWriter) *service.Service {
	if s.manager(w) == nil {
		return nil
	}
	st := s.svc.Load()
	if st.err != nil {
		p := problemOf(st.err)
		p.Kind = kindNoService
		p.Message = "the builders' service cannot be made for this set: " + p.Message
		writeProblem(w, p, nil)
		return nil
	}
	return st.svc
}

func (s *Server) listBuilders(w http.ResponseWriter, _ *http.Request) {
	svc := s.service(w)
	if svc == nil {
		return
	}
	infos := svc.Builders()
	out := make([]builderJSON, len(infos))
	for i, b := range infos {
		out[i] = builderJSON{Name: b.Name, Template: b.Template, Keys: b.Keys}
		if out[i].Keys == nil {
			out[i].Keys = []string{}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"builders": out})
}

// buildRequest is the body of :build: the two JSON documents the CLI's
// "promptkit build" reads with --task and --data.
type buildRequest struct {
	Task json.RawMessage `json:"task"`
	Data json.RawMessage `json:"data"`
}

// builderCall serves POST /v1/builders/{name}:build. A builder of chat
// messages (rag_answer) answers with their JSON, as :messages does; the
// others with the prompt as text.
func (s *Server) builderCall(w http.ResponseWriter, r *http.Request) {
	name, action, ok := splitCall(r.PathValue("call"))
	if !ok || action != "build" {
		writeProblem(w, requestProblem(kindNotFound, "want POST /v1/builders/{name}:build"), nil)
		return
	}
	task, data, ok := s.readBuild(w, r)
	if !ok {
		return
	}
	svc := s.service(w)
	if svc == nil {
		return
	}
	m := s.m.Load()
	release, ok := s.admit(w, r)
	if !ok {
		return
	}
	var (
		text string
		msgs []manager.Message
		err  error
	)
	gen, digest := consistent(m, func() {
		msgs, err = svc.BuildMessages(name, task, data)
		if errors.Is(err, service.ErrNotMessageBuilder) {
			msgs = nil
			text, err = svc.Build(name, task, data)
		}
	})
	release()
	setSet(w.Header(), gen, digest)
	switch {
	case err != nil:
		writeError(w, err)
	case msgs != nil:
		s.sendJSON(w, r, msgs)
	default:
		s.sendText(w, r, text)
	}
}

// readBuild reads {"task": {"id", "title", "intent"}, "data": {…}}; both
// are optional, and unknown keys are refused as the CLI refuses them.
func (s *Server) readBuild(w http.ResponseWriter, r *http.Request) (builders.Task, map[string]any, bool) {
	var task builders.Task
	b, ok := s.readBody(w, r)
	if !ok {
		return task, nil, false
	}
	bad := func(msg string) (builders.Task, map[string]any, bool) {
		writeProblem(w, requestProblem(kindBadRequest, msg), nil)
		return task, nil, false
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return task, nil, true
	}
	var req buildRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return bad("want a JSON object {\"task\": {…}, \"data\": {…}}: " + err.Error())
	}
	if dec.More() {
		return bad("more than one JSON value in the body")
	}
	if len(req.Task) > 0 && string(req.Task) != "null" {
		td := json.NewDecoder(bytes.NewReader(req.Task))
		td.DisallowUnknownFields()
		if err := td.Decode(&task); err != nil {
			return bad("\"task\": want a JSON object {\"id\", \"title\", \"intent\"}: " + err.Error())
		}
	}
	var data map[string]any
	if len(req.Data) > 0 && string(req.Data) != "null" {
		v, err := manager.DecodeJSON(req.Data)
		if err != nil {
			return bad("\"data\": " + err.Error())
		}
		var isObject bool
		if data, isObject = v.(map[string]any); !isObject {
			return bad("\"data\": want a JSON object of named arguments")
		}
	}
	return task, data, true
}
