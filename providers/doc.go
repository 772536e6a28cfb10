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
// What a provider has no place for is an error naming the message and
// part (audio for Anthropic, say), except the two hints documented in
// each package.
package providers
