//go:build race

package manager_test

// slowdown scales the time bounds of the sandbox tests: the race detector
// makes code several times slower.
const slowdown = 8
