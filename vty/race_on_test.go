//go:build race

package vty

const raceEnabled = true
