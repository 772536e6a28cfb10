package message

// PartType is the kind of a message part. Its values are the "type"
// strings of the Chat Completions API.
type PartType string

// The kinds of message parts.
const (
	PartText  PartType = "text"
	PartImage PartType = "image_url"
	PartAudio PartType = "input_audio"
	PartFile  PartType = "file"
)

// Part is one piece of a message's content. Type says which of its fields
// are used; the others stay zero:
//
//	{"type": "text", "text": "…"}
//	{"type": "image_url", "image_url": {"url": "https://… or data:image/png;base64,…", "detail": "low"}}
//	{"type": "input_audio", "input_audio": {"data": "<base64>", "format": "wav"}}
//	{"type": "file", "file": {"filename": "report.pdf", "file_data": "data:application/pdf;base64,…"}}
//
// Any part may carry a cache mark ("cache_control").
type Part struct {
	Type PartType
	Text string // PartText: the text
	// URL is a PartImage's image: an http(s) URL or a data: URL with the
	// image's bytes in base64.
	URL string
	// Detail is a PartImage's resolution for the model: "auto", "low",
	// "high" or "original" ("" leaves it out).
	Detail       string
	Audio        *Audio // PartAudio: the audio
	File         *File  // PartFile: the file
	CacheControl *CacheControl
}

// Audio is the audio of a PartAudio part.
type Audio struct {
	Data   string // base64
	Format string // "wav", "mp3"

	layout *layout
}

// File is the file of a PartFile part: its bytes (Data) or the ID of a
// file uploaded to the provider (ID), and its name.
type File struct {
	Filename string
	// Data is the file's content as a data: URL
	// ("data:application/pdf;base64,…").
	Data string
	ID   string

	layout *layout
}

// CacheControl marks where a cacheable prefix of the prompt ends: at the
// end of the part or message that carries it. It is Anthropic's
// cache_control, {"type": "ephemeral"} or with "ttl": "5m" or "1h" (how
// long the cache lives; "" is the provider's default). Other providers'
// forms are made from it by the adapters of the providers module.
type CacheControl struct {
	TTL string

	layout *layout
}

// plainText reports whether p is a text part that a string can stand
// for: text and nothing else.
func (p *Part) plainText() bool {
	return p.Type == PartText && p.CacheControl == nil &&
		p.URL == "" && p.Detail == "" && p.Audio == nil && p.File == nil
}
