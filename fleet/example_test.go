package fleet_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/seed-e7d2830f/promptkit/fleet"
)

// A host follows a label; the set serving and the last poll are its health.
func ExampleFollow() {
	ctx := context.Background()
	f, err := fleet.Follow(ctx, "registry.example/team/prompts:production",
		fleet.WithInterval(30*time.Second))
	if err != nil {
		log.Fatal(err) // no registry answered and nothing is cached
	}
	defer f.Close()
	out, err := f.Manager().Render("title", map[string]any{"intent": "查询明天的天气"})
	if err != nil {
		log.Fatal(err)
	}
	st := f.Status()
	log.Printf("set %s (generation %d), last poll error: %v", st.SetDigest, st.Generation, st.LastError)
	fmt.Println(out)
}

// Promote a tested set, and roll back by pointing the label at an earlier
// manifest again.
func ExampleClient_Tag() {
	ctx := context.Background()
	c := &fleet.Client{}
	if _, err := c.Tag(ctx, "registry.example/team/prompts:staging", "production"); err != nil {
		log.Fatal(err)
	}
	h, err := c.History(ctx, "registry.example/team/prompts:production")
	if err != nil {
		log.Fatal(err)
	}
	if len(h.Entries) > 1 {
		prev := h.Entries[1].Manifest
		if _, err := c.Tag(ctx, "registry.example/team/prompts@"+prev, "production"); err != nil {
			log.Fatal(err)
		}
	}
}

// Load checks a set and takes exactly the files its digest covers.
func ExampleLoad() {
	s, err := fleet.Load("..") // the default set, at the root of the repository
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Paths()[0], s.Templates > 0, len(s.Digest))
	// Output: index.json true 71
}
