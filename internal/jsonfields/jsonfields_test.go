package jsonfields

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type Inner struct {
	A    string `json:"a"`
	Name string // shadowed by Outer's Name
}

type inner2 struct{ B int }

type Outer struct {
	Name      string    `json:"name"`
	Skip      string    `json:"-"`
	private   int       //nolint:unused // unexported: not visible
	Empty     string    `json:"empty,omitempty"`
	Zero      time.Time `json:"zero,omitzero"`
	Set       time.Time `json:"set,omitzero"`
	EmptyList []int     `json:",omitempty"`
	Struct    Inner     `json:"struct,omitempty"` // a struct is never empty
	*Inner
	inner2
}

type First struct {
	inner2
	Z string
}

type Left struct{ Dup, Deep string }
type Right struct {
	Dup  string
	Deep Left // a field, not embedded
}
type tagWins struct {
	X string `json:"Dup"`
}

// Two embedded structs with a field of one name at one depth: it is left
// out; a deeper one of a name loses to a shallower one; a tagged one wins
// its depth.
type Ambiguous struct {
	Left
	Right
}
type Tagged struct {
	Left
	tagWins
}

type Nil struct {
	X string
	*Inner
}

// The fields, their names and order are what encoding/json writes, for
// every rule: tags, "-", unexported fields, omitempty, omitzero with an
// IsZero method, promoted fields (shadowed, through an unexported type, and
// through a nil pointer).
func TestFieldsAreEncodingJSONs(t *testing.T) {
	set := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, v := range []any{
		Outer{Name: "n", Set: set, Inner: &Inner{A: "a", Name: "hidden"}, inner2: inner2{B: 2}},
		Outer{Empty: "e", EmptyList: []int{1}},
		First{inner2: inner2{B: 1}, Z: "z"},
		Ambiguous{Left: Left{Dup: "l", Deep: "d"}, Right: Right{Dup: "r"}},
		Tagged{Left: Left{Dup: "l"}, tagWins: tagWins{X: "t"}},
		Nil{X: "x"},
		Nil{X: "x", Inner: &Inner{A: "a"}},
	} {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(encode(t, v)), "%#v", v)
	}
}

// encode writes v's fields as jsonfields lists them, as a JSON object.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	rv := reflect.ValueOf(v)
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, f := range Of(rv.Type()) {
		fv, ok := f.Value(rv)
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(f.Name)
		x, err := json.Marshal(fv.Interface())
		require.NoError(t, err)
		b.Write(k)
		b.WriteByte(':')
		b.Write(x)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Of is computed once per type: the same slice comes back.
func TestOfIsCached(t *testing.T) {
	a, b := Of(reflect.TypeFor[Outer]()), Of(reflect.TypeFor[Outer]())
	require.NotEmpty(t, a)
	assert.Same(t, &a[0], &b[0])
}
