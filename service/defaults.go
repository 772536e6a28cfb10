package service

import (
	"slices"
	"strings"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/rag"
)

// DefaultBuilders returns the default builders, sorted by name: the seven
// scene builders of builders.Defaults (agent_system, context_note,
// injection, planner_board, polish, subagent_system, title) and the RAG
// answer builder rag_answer (rag.New), all rendering through r with the
// bot name and note id prefix of cfg. They render the templates of the
// default template set (promptkit.FS), each under its builder's name, and
// rag_answer the rag_* templates (see builders.Templates).
//
// WithDefaultBuilders registers all of them; a host that wants some picks
// them from this list and registers them with WithBuilders.
func DefaultBuilders(r builders.Renderer, cfg builders.Config) ([]builders.Builder, error) {
	bs, err := builders.Defaults(r, cfg)
	if err != nil {
		return nil, err
	}
	bs = append(bs, rag.New(r))
	slices.SortFunc(bs, func(a, b builders.Builder) int { return strings.Compare(a.Name(), b.Name()) })
	return bs, nil
}
