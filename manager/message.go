package manager

import "github.com/seed-e7d2830f/promptkit/message"

// The chat message types are package message's; these names let callers
// of RenderMessages write manager.Message. They are the same types, not
// copies.
type (
	Message  = message.Message
	Part     = message.Part
	PartType = message.PartType
)

// The roles a chat block may take, and the kinds of message parts.
const (
	RoleSystem    = message.RoleSystem
	RoleUser      = message.RoleUser
	RoleAssistant = message.RoleAssistant

	PartText  = message.PartText
	PartImage = message.PartImage
)
