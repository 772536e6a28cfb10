package weather_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/gen"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/providers/internal/weather"
)

// TestGeneratedIsCurrent fails when weather.go no longer matches the set.
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := gen.Generate(os.DirFS("../../testdata/set"), gen.Options{Package: "weather",
		Command: "promptkit gen --dir providers/testdata/set --package weather --out providers/internal/weather/weather.go"})
	require.NoError(t, err)
	got, err := os.ReadFile("weather.go")
	require.NoError(t, err)
	if string(got) != string(want) {
		t.Fatal("weather.go is stale: run go generate ./internal/weather in providers/ and commit the result")
	}
}

// A valid answer decodes into the answer's type; an invalid one is an
// error naming the path of every mismatch.
func TestDecode(t *testing.T) {
	m, err := manager.Open("../../testdata/set")
	require.NoError(t, err)
	defer m.Close()
	ctx := context.Background()
	ans, err := weather.DecodeWeather(ctx, m, []byte(`{"city": "北京", "days": [{"date": "2026-12-02", "high": 3.5}]}`))
	require.NoError(t, err)
	assert.Equal(t, weather.Answer{City: "北京", Days: []weather.Day{{Date: "2026-12-02", High: 3.5}}}, ans)

	_, err = weather.DecodeWeather(ctx, m, []byte(`{"city": "北京", "days": [{"date": "2026-12-02"}, {"date": 2, "high": "冷"}]}`))
	require.ErrorIs(t, err, manager.ErrInvalidOutput)
	assert.EqualError(t, err, `templates/weather.md: template "weather": invalid output: answer.days[0].high: missing, and the schema requires it; `+
		`answer.days[1].date: want string, got number; answer.days[1].high: want number, got string`)
}
