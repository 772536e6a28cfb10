//go:build race

package tokens

func init() { raceEnabled = true }
