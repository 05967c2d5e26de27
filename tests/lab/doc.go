// Package lab runs gopcu against real Osmocom programs in a network
// namespace; see lab_test.go and LAB-NOTES.md.
package lab
