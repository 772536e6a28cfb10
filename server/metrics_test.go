package server

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	helpRE   = regexp.MustCompile(`^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$`)
	typeRE   = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$`)
	sampleRE = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*",?)*\})? (\S+)$`)
)

// exposition checks text in the Prometheus text format (0.0.4) strictly
// and returns every sample, "name{labels}" → value.
func exposition(t *testing.T, text string) map[string]float64 {
	t.Helper()
	require.True(t, strings.HasSuffix(text, "\n"))
	types := map[string]string{}
	samples := map[string]float64{}
	var family string
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if m := helpRE.FindStringSubmatch(line); m != nil {
			family = m[1]
			continue
		}
		if m := typeRE.FindStringSubmatch(line); m != nil {
			require.Equal(t, family, m[1], "line %d: TYPE follows its HELP", i+1)
			_, dup := types[m[1]]
			require.False(t, dup, "line %d: family %s declared twice", i+1, m[1])
			types[m[1]] = m[2]
			if m[2] == "counter" {
				assert.True(t, strings.HasSuffix(m[1], "_total"), "counter %s ends in _total", m[1])
			}
			continue
		}
		m := sampleRE.FindStringSubmatch(line)
		require.NotNil(t, m, "line %d is not a sample: %q", i+1, line)
		name := m[1]
		if types[family] == "histogram" {
			base, ok := strings.CutSuffix(name, "_bucket")
			if !ok {
				if base, ok = strings.CutSuffix(name, "_sum"); !ok {
					base, ok = strings.CutSuffix(name, "_count")
				}
			}
			require.True(t, ok && base == family, "line %d: %s in histogram %s", i+1, name, family)
		} else {
			require.Equal(t, family, name, "line %d: sample of the family above it", i+1)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		require.NoError(t, err, "line %d", i+1)
		key := name + m[2]
		_, dup := samples[key]
		require.False(t, dup, "line %d: series %s twice", i+1, key)
		samples[key] = v
	}
	return samples
}

func TestMetrics(t *testing.T) {
	dir, s, ts := newDirServer(t, testFiles)
	for range 3 {
		require.Equal(t, 200, call(t, ts, "POST", "/v1/templates/greet:render", `{"name": "a"}`).code)
	}
	call(t, ts, "POST", "/v1/templates/greet:render", `{}`)
	call(t, ts, "POST", "/v1/templates/unknown-1:render", `{}`)
	call(t, ts, "POST", "/v1/templates/unknown-2:render", `{}`)
	call(t, ts, "POST", "/v1/templates/chat.v1-x:messages", `{"bot": "b", "q": "q"}`)
	call(t, ts, "GET", "/no/such/path", ``)
	writeSet(t, dir, map[string]string{"greet.md": "{% if %}"})
	waitFor(t, "failed reload", func() bool { return !s.Status().OK })
	writeSet(t, dir, map[string]string{"greet.md": "{{ name }}{{ tone }}"})
	waitGeneration(t, s, 2)

	r := call(t, ts, "GET", "/metrics", "")
	require.Equal(t, 200, r.code)
	assert.Equal(t, "text/plain; version=0.0.4; charset=utf-8", r.header.Get("Content-Type"))
	got := exposition(t, r.body)

	want := map[string]float64{
		`promptkit_renders_total{template="greet"}`:                                   4,
		`promptkit_renders_total{template="chat.v1-x"}`:                               1,
		`promptkit_renders_total{template=""}`:                                        2, // names the set does not have, under one label
		`promptkit_render_errors_total{template="greet",kind="missing_variables"}`:    1,
		`promptkit_render_errors_total{template="",kind="unknown_template"}`:          2,
		`promptkit_render_duration_seconds_count{template="greet"}`:                   4,
		`promptkit_render_duration_seconds_bucket{template="greet",le="+Inf"}`:        4,
		`promptkit_reloads_total{result="success"}`:                                   1,
		`promptkit_reloads_total{result="failure"}`:                                   1,
		`promptkit_last_reload_successful`:                                            1,
		`promptkit_set_serving`:                                                       1,
		`promptkit_set_generation`:                                                    2,
		`promptkit_set_templates`:                                                     5,
		`promptkit_set_info{digest="` + s.Status().Digest + `"}`:                      1,
		`promptkit_http_requests_total{route="POST /v1/templates/{call}",code="200"}`: 4,
		`promptkit_http_requests_total{route="POST /v1/templates/{call}",code="404"}`: 2,
		`promptkit_http_requests_total{route="POST /v1/templates/{call}",code="422"}`: 1,
		`promptkit_http_requests_total{route="unmatched",code="404"}`:                 1,
		`promptkit_event_streams`:                                                     0,
	}
	for k, v := range want {
		assert.Equal(t, v, got[k], k)
	}
	// Buckets are cumulative and end at the count.
	prev := -1.0
	for _, le := range renderBuckets {
		v := got[`promptkit_render_duration_seconds_bucket{template="greet",le="`+formatFloat(le)+`"}`]
		assert.GreaterOrEqual(t, v, prev)
		prev = v
	}
	assert.LessOrEqual(t, prev, 4.0)
	assert.Greater(t, got[`promptkit_render_duration_seconds_sum{template="greet"}`], 0.0)
}

func TestLabelEscaping(t *testing.T) {
	assert.Equal(t, `k="a\"b\\c\nd"`, label("k", "a\"b\\c\nd"))
	assert.Equal(t, "+Inf", formatFloat(math.Inf(1)))
	assert.Equal(t, "2.5e-05", formatFloat(0.000025))
}
