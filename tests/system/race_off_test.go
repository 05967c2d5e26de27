//go:build !race

package system

// raceEnabled: built with -race (make test).
const raceEnabled = false
