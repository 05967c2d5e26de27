package vty

import "testing"

// BenchmarkFeedCommand is one typed command through the line discipline,
// matcher and handler (echo, execute, prompt).
func BenchmarkFeedCommand(b *testing.B) {
	v := testTree()
	s := v.NewSession(nil)
	s.Start()
	in := []byte("show vty-attributes\r")
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
func BenchmarkDescribe(b *testing.B) {
	v := testTree()
	s := v.NewSession(nil)
	s.Start()
	in := []byte("show ?\x15")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Feed(in)
	}
}
