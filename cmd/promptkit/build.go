package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
)

//promptkit:allow-inline CLI help text, not a prompt
const buildUsage = `Usage: promptkit build NAME [--task FILE|-] [--data FILE|-] [--dir DIR]
                       [--bot-name NAME] [--note-prefix PREFIX]

Builds the prompt of builder NAME as a plugin host's service.Build does,
and prints it exactly (on a terminal, with a final newline if it lacks
one). --task reads the task, a JSON
object {"id", "title", "intent"}; --data reads the builder's data, a JSON
object of named arguments. "-" reads standard input (for one of the two).
--bot-name and --note-prefix set the service's defaults. "promptkit
builders" lists the builders and the data keys each reads.

Example:
  echo '{"intent": "帮我查一下明天北京会不会下雨"}' | promptkit build title --data -
  promptkit build agent_system --task task.json --bot-name 小爱
  promptkit build rag_answer --data answer.json   # the message list, as JSON
`

func runBuild(c *cli, args []string) error {
	fs := c.newFlags("build", buildUsage)
	dir := c.dirFlag(fs, "template set directory (default: the embedded set)")
	taskFile := fs.String("task", "", "JSON file of the task, or - for stdin")
	dataFile := fs.String("data", "", "JSON file of the data, or - for stdin")
	botName := fs.String("bot-name", "", "default bot name (default: "+service.DefaultBotName+")")
	notePrefix := fs.String("note-prefix", "", "prefix of generated note ids (default: "+builders.DefaultNotePrefix+")")
	pos, err := c.parse(fs, buildUsage, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("build takes exactly one builder name\n\n%s", buildUsage)
	}
	if *taskFile == "-" && *dataFile == "-" {
		return usagef("--task and --data cannot both read standard input")
	}
	task, err := readTask(*taskFile, c.stdin)
	if err != nil {
		return err
	}
	data, err := readData(*dataFile, c.stdin)
	if err != nil {
		return err
	}
	m, err := openSet(*dir)
	if err != nil {
		return err
	}
	defer m.Close()
	set, err := setBuilders(m, *botName, *notePrefix)
	if err != nil {
		return err
	}
	if err := set.servable(pos[0]); err != nil {
		return err
	}
	out, err := set.svc.Build(pos[0], task, data)
	if err != nil {
		return err
	}
	if err := c.writePrompt(out); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// readInput reads a file, or standard input for "-".
func readInput(flag, name string, stdin io.Reader) ([]byte, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, usagef("--%s: %v", flag, err)
	}
	return b, nil
}

// readTask reads the task: a JSON object with id, title and intent only.
func readTask(name string, stdin io.Reader) (builders.Task, error) {
	var task builders.Task
	if name == "" {
		return task, nil
	}
	b, err := readInput("task", name, stdin)
	if err != nil {
		return task, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&task); err != nil {
		return task, usagef("--task %s: want a JSON object {\"id\", \"title\", \"intent\"}: %v", name, err)
	}
	if dec.More() {
		return task, usagef("--task %s: more than one JSON value", name)
	}
	return task, nil
}

// readData reads the data: a JSON object, numbers kept in their form.
func readData(name string, stdin io.Reader) (map[string]any, error) {
	if name == "" {
		return nil, nil
	}
	b, err := readInput("data", name, stdin)
	if err != nil {
		return nil, err
	}
	v, err := manager.DecodeJSON(b)
	if err != nil {
		return nil, usagef("--data %s: invalid JSON: %v", name, err)
	}
	data, ok := v.(map[string]any)
	if !ok {
		return nil, usagef("--data %s: want a JSON object of named arguments", name)
	}
	return data, nil
}
