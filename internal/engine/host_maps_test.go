package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A map reached inside a typed container ([]map[string]any, a
// map[string]string) takes a fast path, not reflection; it must be the
// same dict as the map[string]any a host passes in a []any.
func TestTypedMapsAreTheSameDicts(t *testing.T) {
	rows := []map[string]any{{"b": 2, "a": "x", "items": "k"}, {"a": "y", "b": 3, "items": "m"}}
	plain := make([]any, len(rows))
	strs := make([]map[string]string, len(rows))
	for i, r := range rows {
		plain[i] = r
		strs[i] = map[string]string{"a": r["a"].(string), "items": r["items"].(string)}
	}
	strsPlain := make([]any, len(strs))
	for i, r := range strs {
		strsPlain[i] = map[string]any{"a": r["a"], "items": r["items"]}
	}
	for _, src := range []string{
		`{% for r in xs %}{{ r.a }} {{ r["a"] }} {{ r.get("a") }} {{ r.items() | list }} {{ r }} {{ r | length }}|{% endfor %}`,
		`{% for r in xs %}{% for k, v in r | dictsort %}{{ k }}={{ v }};{% endfor %}{{ "a" in r }}{{ r.zz is defined }}|{% endfor %}`,
		`{{ xs | map(attribute="a") | join(",") }} {{ xs | tojson }} {{ xs[0] == xs[0] }}`,
	} {
		want, err := renderStock(src, map[string]any{"xs": plain})
		require.NoError(t, err, src)
		got, err := renderStock(src, map[string]any{"xs": rows})
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)

		want, err = renderStock(src, map[string]any{"xs": strsPlain})
		require.NoError(t, err, src)
		got, err = renderStock(src, map[string]any{"xs": strs})
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)
	}
}
