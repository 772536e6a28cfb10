package builders

import "github.com/seed-e7d2830f/promptkit/prompts"

// BoardTask is one task on the planner board. JSON: {"id", "title",
// "status", "requester", "schedule", "summary"}; id, title and status are
// required.
type BoardTask struct {
	ID        string `json:"id"`                  // full id; the board shows its first 8 characters
	Title     string `json:"title"`               // the task's title
	Status    string `json:"status"`              // running, waiting_input, scheduled, completed, failed, cancelled
	Requester string `json:"requester,omitempty"` // who asked for the task
	Schedule  string `json:"schedule,omitempty"`  // when a scheduled task runs, as the host words it
	Summary   string `json:"summary,omitempty"`   // progress of an active task, result of a finished one
}

// ShortIDLen is how many characters of a task id the planner board shows.
const ShortIDLen = 8

// PlannerBoard builds the planner's task board, an XML block with the
// plugin's introduction, the active and scheduled tasks, and the finished
// tasks whose result still waits to be replied, from the template
// planner_board.
//
// It reads the data keys active, scheduled and recent: lists of BoardTask
// ([]BoardTask, or JSON objects with BoardTask's fields only), and
// session_id. Task ids are shortened to ShortIDLen characters. When all
// three lists are empty, Build returns "" without rendering (the lists are
// still checked); otherwise session_id is required.
//
// Escaped with EscapeXML: session_id and every field of every task (ids
// after shortening).
type PlannerBoard struct {
	base
}

// NewPlannerBoard returns the planner_board builder.
func NewPlannerBoard(r Renderer) *PlannerBoard {
	return &PlannerBoard{base: newBase("planner_board", r, "session_id", "active", "scheduled", "recent")}
}

// Build renders the board, or returns "" when there is no task to show.
func (b *PlannerBoard) Build(ctx Context) (string, error) {
	d, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	var lists [3][]prompts.BoardTask
	empty := true
	for k, key := range []string{"active", "scheduled", "recent"} {
		tasks, err := list(d, key, func(t BoardTask) string {
			switch {
			case t.ID == "":
				return "id"
			case t.Title == "":
				return "title"
			case t.Status == "":
				return "status"
			}
			return ""
		})
		if err != nil {
			return "", err
		}
		items := make([]prompts.BoardTask, len(tasks))
		for i, t := range tasks {
			items[i] = prompts.BoardTask{
				ID:        EscapeXML(shortID(t.ID, ShortIDLen)),
				Title:     EscapeXML(t.Title),
				Status:    EscapeXML(t.Status),
				Requester: EscapeXML(t.Requester),
				Schedule:  EscapeXML(t.Schedule),
				Summary:   EscapeXML(t.Summary),
			}
		}
		lists[k] = items
		empty = empty && len(items) == 0
	}
	if empty {
		return "", nil
	}
	session, err := d.required("session_id")
	if err != nil {
		return "", err
	}
	return b.rendered(prompts.RenderPlannerBoard(b.r, prompts.PlannerBoardVars{
		SessionID: EscapeXML(session),
		Active:    lists[0],
		Scheduled: lists[1],
		Recent:    lists[2],
	}))
}
