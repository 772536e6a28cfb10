package server

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// Token counts: a render that asks for them with ?tokens=NAME
// (POST /v1/templates/{name}:render?tokens=o200k_base) is answered as
// always, and its token count rides in two header fields beside the body,
// which stays the prompt byte for byte:
//
//	Promptkit-Tokens: 1234
//	Promptkit-Tokenizer: o200k_base
//
// For :messages the count is of the messages' text, without the tokens a
// model's chat format adds. NAME is one of OpenAI's encodings or a
// tokenizer the host added with WithTokenizer; a client never names a
// file. GET /v1/tokenizers lists the names.
const (
	HeaderTokens    = "Promptkit-Tokens"    // the rendered prompt's tokens, when the request asked (?tokens=NAME)
	HeaderTokenizer = "Promptkit-Tokenizer" // the tokenizer that counted them
	HeaderCut       = "Promptkit-Cut"       // what a render within a budget (?budget=N) cut: one value a cut, in order
)

// A render within a token budget (POST …:render?budget=N, or :messages)
// renders with manager.RenderBudget, counting with ?tokens=NAME or, without
// it, the encoding of the template's contract model: the body is the
// prompt that fits, Promptkit-Tokens and Promptkit-Tokenizer its count,
// and each cut one Promptkit-Cut value ("templates/doc.md:5:1: items
// (priority 1): 3 cut from the end, 120 tokens"). A render that cannot fit
// is 422 over_budget, saying by how many tokens.

// budget reads ?budget=N: 0 when the request asks for none; anything but a
// positive integer, or a budget on :request, is answered 400 here.
func budgetParam(w http.ResponseWriter, r *http.Request, action string) (int, bool) {
	v := r.URL.Query().Get("budget")
	if v == "" {
		return 0, true
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < 1:
		writeProblem(w, requestProblem(kindBadRequest, fmt.Sprintf("?budget=%s: want a number of tokens, 1 or more", v)), nil)
		return 0, false
	case action == "request":
		writeProblem(w, requestProblem(kindBadRequest, "?budget= renders within a token budget on :render and :messages, not :request"), nil)
		return 0, false
	}
	return n, true
}

// setBudgeted writes the headers of a render within a budget; name is
// the ?tokens= the request gave, if it gave one.
func setBudgeted(h http.Header, r *manager.Budgeted, name string) {
	if name == "" {
		name = r.Tokenizer
	}
	h.Set(HeaderTokens, strconv.Itoa(r.Tokens))
	h.Set(HeaderTokenizer, name)
	for _, c := range r.Cuts {
		h.Add(HeaderCut, c.String())
	}
}

// WithTokenizer makes tok countable by name (?tokens=NAME) besides
// OpenAI's encodings: a model's tokenizer.json (tokens.Open). A name that
// is already an encoding's, or empty, is an error from New.
func WithTokenizer(name string, tok *tokens.Tokenizer) Option {
	return func(c *config) error {
		if name == "" || tok == nil {
			return errors.New("server: WithTokenizer needs a name and a tokenizer")
		}
		if slices.Contains(tokens.Encodings(), name) {
			return fmt.Errorf("server: WithTokenizer: %q is an encoding's name", name)
		}
		if c.tokenizers == nil {
			c.tokenizers = map[string]*tokens.Tokenizer{}
		}
		c.tokenizers[name] = tok
		return nil
	}
}

// tokenizerNames lists what ?tokens= takes, sorted.
func (s *Server) tokenizerNames() []string {
	names := tokens.Encodings()
	for n := range s.cfg.tokenizers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// tokenizer returns the tokenizer the request asks for, nil when it asks
// for none; an unknown name is answered 400 here.
func (s *Server) tokenizer(w http.ResponseWriter, r *http.Request) (*tokens.Tokenizer, bool) {
	name := r.URL.Query().Get("tokens")
	if name == "" {
		return nil, true
	}
	if tok, ok := s.cfg.tokenizers[name]; ok {
		return tok, true
	}
	if slices.Contains(tokens.Encodings(), name) {
		tok, err := tokens.Encoding(name)
		if err == nil {
			return tok, true
		}
		writeProblem(w, requestProblem(kindBadRequest, err.Error()), nil)
		return nil, false
	}
	msg := fmt.Sprintf("?tokens=%s: no such tokenizer", name)
	if s := suggestName(name, s.tokenizerNames()); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	writeProblem(w, requestProblem(kindBadRequest, msg+" (GET /v1/tokenizers lists them)"), nil)
	return nil, false
}

func suggestName(name string, names []string) string {
	var ue *tokens.UnknownError
	if _, err := tokens.Encoding(name); errors.As(err, &ue) && slices.Contains(names, ue.Suggestion) {
		return ue.Suggestion
	}
	return ""
}

// setTokens writes the count headers of a render that asked with
// ?tokens=name.
func setTokens(h http.Header, name string, tok *tokens.Tokenizer, text string, msgs []manager.Message) {
	n := 0
	if msgs == nil {
		n = tok.Count(text)
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == message.PartText {
				n += tok.Count(p.Text)
			}
		}
	}
	h.Set(HeaderTokens, strconv.Itoa(n))
	h.Set(HeaderTokenizer, name)
}

// listTokenizers serves GET /v1/tokenizers.
func (s *Server) listTokenizers(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]string{"tokenizers": s.tokenizerNames()})
}
