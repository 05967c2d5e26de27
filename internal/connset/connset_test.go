package connset

import (
	"net"
	"testing"
)

// TestSet: connections are served up to the bound, leave the set and are
// closed when served; Close closes those still open, waits for them and
// refuses new ones; Go's goroutines are waited for too.
func TestSet(t *testing.T) {
	var s Set
	release := make(chan struct{})
	served := make(chan net.Conn, 4)
	serve := func(c net.Conn) { served <- c; <-release }
	a, a2 := net.Pipe()
	defer a2.Close()
	if full, closed := s.Serve(a, 1, serve); full || closed {
		t.Fatalf("first: full %v closed %v", full, closed)
	}
	<-served
	b, b2 := net.Pipe()
	defer b2.Close()
	if full, closed := s.Serve(b, 1, serve); !full || closed || s.Len() != 1 {
		t.Fatalf("second at bound 1: full %v closed %v, %d open", full, closed, s.Len())
	}
	ran := make(chan struct{})
	if !s.Go(func() { <-release; close(ran) }) {
		t.Fatal("Go refused on an open set")
	}
	close(release)
	s.Close()
	select {
	case <-ran:
	default:
		t.Fatal("Close returned before Go's goroutine")
	}
	if s.Len() != 0 || !s.Closed() {
		t.Fatalf("after Close: %d open, closed %v", s.Len(), s.Closed())
	}
	if _, err := a2.Write([]byte{1}); err == nil {
		t.Fatal("served connection not closed")
	}
	if full, closed := s.Serve(b, 0, serve); full || !closed {
		t.Fatalf("after Close: full %v closed %v", full, closed)
	}
	if _, err := b2.Write([]byte{1}); err == nil {
		t.Fatal("connection to a closed set not closed")
	}
	if s.Go(func() {}) {
		t.Fatal("Go ran on a closed set")
	}
}
