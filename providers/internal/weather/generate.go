package weather

// The typed API of the providers module's test set (testdata/set), for the
// README's example of a call contract: regenerated from the repository's
// root, and a test fails when weather.go is stale.
//go:generate sh -c "cd ../../.. && go run ./cmd/promptkit gen --dir providers/testdata/set --package weather --out providers/internal/weather/weather.go"
