package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing/fstest"

	"github.com/seed-e7d2830f/promptkit/server"
)

// A host in any language posts variables and gets the prompt, exactly;
// a mistake comes back as JSON naming the template and the variables.
func Example() {
	set := fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"hello": {"path": "hello.md", "variables": ["name"]}}}`)},
		"hello.md":   {Data: []byte("Hello, {{ name }}!\n")},
	}
	s, err := server.New(server.FS(set))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s) // in production: s.Serve(ctx, listener)
	defer ts.Close()

	post := func(body string) {
		resp, err := http.Post(ts.URL+"/v1/templates/hello:render", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Printf("%d generation=%s %s\n", resp.StatusCode, resp.Header.Get(server.HeaderGeneration), strings.TrimSpace(string(b)))
	}
	post(`{"name": "Ada"}`)
	post(`{"nmae": "Ada"}`)
	// Output:
	// 200 generation=1 Hello, Ada!
	// 422 generation=1 {"kind":"missing_variables","template":"hello","path":"hello.md","line":0,"column":0,"variables":["name","nmae"],"message":"missing: name; extra: nmae — did you mean \"name\"?","error":"hello.md: template \"hello\": missing: name; extra: nmae — did you mean \"name\"?"}
}
