//go:build !race

package testutils

// Race is true when the test binary is built with -race (see race.go).
const Race = false
