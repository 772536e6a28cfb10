package manager

// ErrorKinds returns every name ErrorKind gives an error of the manager,
// most specific first, and "other" last: the list a tool checks a kind
// named in a file against (a fixture's expected error, say).
func ErrorKinds() []string {
	out := make([]string, 0, len(errorKinds)+1)
	for _, k := range errorKinds {
		out = append(out, k.name)
	}
	return append(out, "other")
}
