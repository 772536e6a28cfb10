package engine

import "fmt"

// passCaller gives the body of a {% call %} to a macro that does not read
// caller itself, as Jinja passes it: as the keyword argument caller=…. It
// binds a parameter named caller ({% macro m(caller=none) %}; one passed
// by position too is an error), or else goes into the macro's kwargs; a
// macro with neither refuses it, as Jinja does. A call that is not a
// {% call %} passes no caller.
func passCaller(st *state, at *site, d *macroDef, act *activation, bound []bool, caller Value) {
	if caller.k == Undefined || d.caller >= 0 {
		return
	}
	for j, p := range d.params {
		if p.name == "caller" {
			if bound[j] {
				break
			}
			act.slots[p.slot] = caller
			return
		}
	}
	if kw, ok := act.slots[max(d.kwargs, 0)].ref.(*OrderedDict); ok && d.kwargs >= 0 {
		kw.SetString("caller", caller)
		return
	}
	st.fail(at, fmt.Errorf("macro %s was invoked with two values for the special caller argument", d.name))
}
