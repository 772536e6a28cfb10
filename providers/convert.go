package providers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers/anthropicmsg"
	"github.com/seed-e7d2830f/promptkit/providers/openaichat"
)

// converters are the providers Convert knows, by the name a request's
// settings and promptkit's ?provider= give them.
var converters = map[string]func(message.Request) (any, error){
	"openai":    func(r message.Request) (any, error) { return openaichat.Request(r) },
	"anthropic": func(r message.Request) (any, error) { return anthropicmsg.Request(r) },
}

// Names returns the providers Convert knows, sorted.
func Names() []string {
	names := make([]string, 0, len(converters))
	for n := range converters {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Convert turns a provider-neutral request into the params of the named
// provider's SDK — openai.ChatCompletionNewParams (openaichat.Request) or
// anthropic.MessageNewParams (anthropicmsg.Request) — which marshal to
// the JSON the SDK's client sends. A server built with
// server.WithProvider(name, func(r message.Request) (any, error) { return
// providers.Convert(name, r) }) answers ?provider=name with it.
func Convert(provider string, req message.Request) (any, error) {
	c, ok := converters[provider]
	if !ok {
		return nil, fmt.Errorf("providers: unknown provider %q (known: %s)", provider, strings.Join(Names(), ", "))
	}
	return c(req)
}
