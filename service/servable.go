package service

import (
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// ServableDefaults splits the default builders (DefaultBuilders, with cfg)
// by what the set of m can serve: those whose every template m holds, in
// name order, and, for each other one, the templates m lacks. A set on
// disk holds the templates of some default builders, or none; this is
// how promptkit build and promptkit test pick the builders they serve.
func ServableDefaults(m *manager.Manager, cfg builders.Config) (servable []builders.Builder, missing map[string][]string, err error) {
	all, err := DefaultBuilders(m, cfg)
	if err != nil {
		return nil, nil, err
	}
	missing = map[string][]string{}
	for _, b := range all {
		for _, t := range builders.Templates(b) {
			if _, ok := m.Lookup(t); !ok {
				missing[b.Name()] = append(missing[b.Name()], t)
			}
		}
		if len(missing[b.Name()]) == 0 {
			servable = append(servable, b)
		}
	}
	return servable, missing, nil
}
