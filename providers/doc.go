// Package providers is the root of promptkit's adapter module for the
// official SDKs of model providers: it turns promptkit's messages and
// tools (package message) into the request types of each SDK, so a host
// sends the conversation it keeps — tool calls, tool results, images,
// files, cache marks — with the client it already uses. It is a module of
// its own, so the library does not depend on any SDK.
//
//   - openaichat: github.com/openai/openai-go/v3, Chat Completions
//     message and tool params;
//   - anthropicmsg: github.com/anthropics/anthropic-sdk-go/v2, Messages
//     API params: the system prompt apart, turns merged as Anthropic
//     requires, tool_use and tool_result blocks, cache_control.
//
// Each also converts a whole provider-neutral request (message.Request,
// what manager.Request renders from a template and its call contract):
// settings, tools, output schema and cache marks. Convert picks the
// adapter by the provider's name, and cmd/promptkit-providers is a small
// command that converts a request from promptkit request (convert) and
// serves a set with ?provider=openai and ?provider=anthropic on
// :request (serve), which promptkit serve cannot: the library does not
// depend on the SDKs.
//
// What a provider has no place for is an error naming the message and
// part (audio for Anthropic, say), except the two hints documented in
// each package.
package providers
