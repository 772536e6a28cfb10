package service_test

import (
	"fmt"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

// Weekly is a host's own builder: it renders the template "weekly" of the
// host's own set from the data key "items", a list of strings, escaping
// every one.
type Weekly struct{ r builders.Renderer }

func (Weekly) Name() string     { return "weekly" }
func (Weekly) Template() string { return "weekly" }
func (Weekly) Keys() []string   { return []string{"items"} }

func (w Weekly) Build(ctx builders.Context) (string, error) {
	if err := builders.CheckKeys(w, ctx); err != nil {
		return "", err
	}
	v, _ := ctx.Value("items")
	list, ok := v.([]string)
	if !ok && v != nil {
		return "", fmt.Errorf("items: want a list of strings, got %T", v)
	}
	items := make([]string, len(list))
	for i, s := range list {
		items[i] = builders.EscapeXML(s)
	}
	return w.r.Render("weekly", map[string]any{"items": items})
}

// ownSet is what a host with a template set of its own writes: its own
// builders, and none of the default ones.
func ownSet(dir string) error {
	m, err := manager.Open(dir)
	if err != nil {
		return err
	}
	defer m.Close()
	svc, err := service.New(m, service.WithBuilders(Weekly{m}))
	if err != nil {
		return err
	}
	prompt, err := svc.Build("weekly", builders.Task{}, map[string]any{"items": []string{"上线 <v2>", "修复登录"}})
	if err != nil {
		return err
	}
	fmt.Println(prompt)
	return nil
}

// A template set of one's own is served by the host's own builders.
func Example_ownTemplateSet() {
	if err := ownSet("testdata/own_set"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 把下面的事项整理成一段周报，每项一句话：
	// <items>
	// - 上线 &lt;v2&gt;
	// - 修复登录
	// </items>
}
