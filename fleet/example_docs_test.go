package fleet_test

// The Go snippets of README.md and docs/fleet.md, as code that compiles
// (TestDocSnippets, in the root package, checks the snippets against it).

import (
	"context"
	"log/slog"
	"time"

	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

// followHost is the README's host that follows a label.
func followHost(ctx context.Context) error {
	f, err := fleet.Follow(ctx, "registry.example.com/team/prompts:production",
		fleet.WithCacheDir("/var/cache/promptkit"), fleet.WithInterval(30*time.Second))
	if err != nil {
		return err // the registry did not answer and nothing is cached
	}
	defer f.Close()
	svc, err := service.New(f.Manager(), service.WithDefaultBuilders()) // an ordinary *manager.Manager
	_ = svc
	return err
}

// configMapHost is docs/fleet.md's host that follows a ConfigMap.
func configMapHost() error {
	m, err := manager.Open("/etc/prompts", manager.WithWatch())
	if err != nil {
		return err // every problem of the set: the pod does not start with a broken set
	}
	defer m.Close()
	m.Subscribe(func(ev manager.ReloadEvent) {
		slog.Info("prompts", "generation", ev.Generation, "digest", ev.Digest, "error", ev.Err)
	})
	return nil
}

var _, _ = followHost, configMapHost
