package vty

import "testing"

// BenchmarkFeedCommand is one typed command through the line discipline,
// matcher and handler (echo, execute, prompt).
func BenchmarkFeedCommand(b *testing.B) { benchFeed(b, "show vty-attributes\r") }

// benchFeed feeds a session the same keys b.N times.
func benchFeed(b *testing.B, keys string) {
	s := testSession()
	in := []byte(keys)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Feed(in)
	}
}

// BenchmarkRunningConfig renders the running configuration.
func BenchmarkRunningConfig(b *testing.B) {
	v := testTree()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = v.RunningConfig()
	}
}

// BenchmarkDescribe is a '?' listing on VIEW.
func BenchmarkDescribe(b *testing.B) { benchFeed(b, "show ?\x15") }
