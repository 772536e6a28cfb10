// Package suggest is promptkit's one rule for "did you mean": the name of
// a list closest to a misspelt one, if it is close enough to be a
// misspelling of it. The template front end uses it for variables and
// schema properties, the manager for passed variables, package message
// for the fields of a message's JSON.
package suggest

// Closest returns the name in names closest to name, if it is close enough
// to be a misspelling of it, or "". Names shorter than three characters
// get no suggestion: every short name is close to every other. Of two
// names at the same distance the one that sorts first wins, so the answer
// does not depend on the order of names.
func Closest(name string, names []string) string {
	if len([]rune(name)) < 3 {
		return ""
	}
	best, bestD := "", max(1, len([]rune(name))/3)+1
	for _, n := range names {
		if n == name {
			continue
		}
		if d := distance(name, n); d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours cost one each.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
