package server

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/message"
)

// Requests: POST /v1/templates/{name}:request renders a template into the
// provider-neutral request its call contract declares (manager.Request),
// and answers its JSON (message.Request). ?provider=NAME answers instead
// the request of that provider's API, as its official SDK sends it.
//
// The SDKs are not dependencies of this module (the providers module
// holds the adapters, so that a host that reads prompts does not link
// two SDKs): a server converts for the providers it is given with
// WithProvider. promptkit serve is given none; the providers module's
// command (promptkit-providers serve) serves the same API with OpenAI's
// and Anthropic's adapters, and a Go host adds them itself.

// kindUnknownProvider is a ?provider the server was not given.
const kindUnknownProvider = "unknown_provider"

// Convert turns a provider-neutral request into the request params of one
// provider's SDK (any value that marshals to the JSON the SDK sends).
type Convert func(message.Request) (any, error)

var providerName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// WithProvider lets POST /v1/templates/{name}:request?provider=name answer
// with convert's request for the template (for OpenAI, the providers
// module's openaichat.Request). A conversion that fails is a 422
// "unsupported" problem naming what the provider cannot take.
func WithProvider(name string, convert Convert) Option {
	return func(c *config) error {
		if !providerName.MatchString(name) || convert == nil {
			return fmt.Errorf("server: WithProvider needs a name (lower case letters, digits, _ and -) and a function, not %q", name)
		}
		if c.providers == nil {
			c.providers = map[string]Convert{}
		}
		if _, dup := c.providers[name]; dup {
			return fmt.Errorf("server: WithProvider: %q is given twice", name)
		}
		c.providers[name] = convert
		return nil
	}
}

// provider is the conversion ?provider names for a :request call (nil
// without ?provider); it answers 400 itself for one the server lacks.
func (s *Server) provider(w http.ResponseWriter, r *http.Request, action string) (Convert, bool) {
	name := r.URL.Query().Get("provider")
	if name == "" {
		return nil, true
	}
	if action != "request" {
		writeProblem(w, requestProblem(kindBadRequest, "?provider is for :request calls"), nil)
		return nil, false
	}
	if c, ok := s.cfg.providers[name]; ok {
		return c, true
	}
	msg := fmt.Sprintf("this server converts requests for no provider (%q asked): the SDKs live in the providers module; its command promptkit-providers serves this API with ?provider=openai and ?provider=anthropic, and without ?provider this call answers the provider-neutral request", name)
	if len(s.cfg.providers) > 0 {
		names := make([]string, 0, len(s.cfg.providers))
		for n := range s.cfg.providers {
			names = append(names, n)
		}
		slices.Sort(names)
		msg = fmt.Sprintf("unknown provider %q (this server converts for: %s)", name, strings.Join(names, ", "))
	}
	writeProblem(w, requestProblem(kindUnknownProvider, msg), nil)
	return nil, false
}

// sendRequest answers a request's JSON: the neutral one, or convert's.
func (s *Server) sendRequest(w http.ResponseWriter, r *http.Request, req message.Request, convert Convert) {
	if convert == nil {
		s.sendJSON(w, r, req)
		return
	}
	params, err := convert(req)
	if err != nil {
		writeProblem(w, requestProblem(kindUnsupported, err.Error()), nil)
		return
	}
	s.sendJSON(w, r, params)
}
