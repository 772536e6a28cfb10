// Package setdiff compares two versions of a template set, as promptkit
// diff does, so a prompt change is reviewed like a code change: what
// changed in the files, whether the change breaks the programs that
// render the set, and what it does to the prompts themselves.
//
// # Example
//
//	a, err := setdiff.Open("v1", os.DirFS("prompts-v1"))
//	…
//	b, err := setdiff.Open("v2", os.DirFS("prompts"))
//	…
//	r, err := setdiff.Compare(ctx, a, b)
//	if err != nil {
//		return err
//	}
//	r.WriteText(os.Stdout)
//	if r.Breaking() > 0 {
//		return errors.New("breaking changes")
//	}
//
// # What a report holds
//
// Templates added, removed and changed (a template changes when its hash
// does: its file or a file it includes), with the unified diff of the
// template's file; the set's other files that changed (index.json,
// included files, schema files), with theirs. The contract diff: every
// change of what a program that renders a template relies on, each found
// and classed breaking or compatible by one named rule (Rules). The
// rendered diff: every fixture of either set (package fixture) rendered in
// both — each set renders its own version of a fixture, or the other's
// where it has none — with the unified diff of the outputs, and, with
// WithCount, their numbers of tokens before and after.
//
// # The rules
//
// As Buf classes the changes of a protobuf schema, each rule names one
// kind of change and is tested on pairs of inputs. A rule checks one
// subject — a pair of templates, of variables, or of schemas (the walker
// pairs every subschema: properties, items, additional properties,
// alternatives, $refs into the set's files) — and returns what it found.
// A template or variable rule has one class: a removed template, a
// required variable added, a variable removed (promptkit refuses a
// variable it does not declare), a variable made required, an optional
// variable's default changed (a call that omits it renders another prompt)
// are breaking; a template or an optional variable added, a variable made
// optional are compatible.
//
// A schema rule's class depends on the direction the values flow
// (Direction). A variable's values flow into the template: the host sends
// them, so a schema that narrows (a type lost, an enum value removed, a
// property required, a bound tightened, other properties refused) breaks,
// and one that widens does not. Values that flow out to the host — a
// model's answer checked against an output schema, the arguments a model
// passes to a tool — break when the schema widens: the same rule, the
// other class. A change the rules do not analyse (a "not", an "if") is
// SCHEMA_KEYWORD_CHANGED, breaking either way, to be reviewed.
//
// A template's call contract is compared the same way: its tools by name
// (TOOL_REMOVED breaks a program built on the model calling it;
// TOOL_ADDED and TOOL_DESCRIPTION_CHANGED are compatible), each tool's
// parameters and the output schema by the schema rules in the Output
// direction — a model's arguments and answer flow out to the host — and
// OUTPUT_ADDED, OUTPUT_REMOVED, MODEL_SETTING_CHANGED and CACHE_CHANGED,
// each change reported at its path ("@tools.get_weather.days",
// "@output", "@model.temperature", "@cache").
package setdiff
