module github.com/seed-e7d2830f/promptkit

go 1.26.0

require (
	github.com/aymanbagabas/go-udiff v0.4.2
	github.com/chromedp/chromedp v0.23.0
	github.com/dlclark/regexp2/v2 v2.5.1
	github.com/fsnotify/fsnotify v1.10.1
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/opencontainers/go-digest v1.0.0
	github.com/opencontainers/image-spec v1.1.1
	github.com/stretchr/testify v1.12.1
	github.com/tiktoken-go/tokenizer v0.10.0
	golang.org/x/sync v0.24.0
	golang.org/x/text v0.14.0
	oras.land/oras-go/v2 v2.7.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
