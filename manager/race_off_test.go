//go:build !race

package manager_test

const slowdown = 1
