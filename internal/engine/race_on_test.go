//go:build race

package engine_test

// raceEnabled: the race detector is on, and sync.Pool drops what it is
// given at random, so allocation counts are not the render's.
const raceEnabled = true
