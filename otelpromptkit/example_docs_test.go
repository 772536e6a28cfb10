package otelpromptkit_test

// docs/fleet.md's host, as code that compiles (TestDocSnippets, in the
// root module, checks the snippet against it).

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/otelpromptkit"
	"github.com/seed-e7d2830f/promptkit/service"
)

func host(ctx context.Context) error {
	f, err := fleet.Follow(ctx, os.Getenv("PROMPTS_REF"), // registry.example.com/team/prompts:production
		fleet.WithCacheDir("/var/cache/promptkit"),
		fleet.WithInterval(30*time.Second),
		fleet.WithManagerOptions(manager.WithObserver(otelpromptkit.New())))
	if err != nil {
		return err // the registry did not answer and the cache is empty
	}
	defer f.Close()
	svc, err := service.New(f.Manager(), service.WithDefaultBuilders()) // an ordinary *manager.Manager

	http.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		st := f.Status()
		// Serving a set is what matters; a registry outage only delays updates.
		fmt.Fprintf(w, "set %s (%s) generation %d, last poll %v: %v\n",
			st.SetDigest, st.Manifest, st.Generation, st.LastPoll.Format(time.RFC3339), st.LastError)
	})
	_ = svc
	return err
}

var _ = host
