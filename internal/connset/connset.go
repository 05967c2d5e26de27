// Package connset is the set of a TCP server's open connections, for the
// VTY's telnet server and the /metrics server: each connection is served
// on a goroutine of its own, up to a bound, and Close closes them all and
// waits for their goroutines.
package connset

import (
	"net"
	"sync"
)

// Set holds the connections being served; the zero value is empty and
// open.
type Set struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Serve runs serve(c) on a goroutine of its own; when serve returns, c
// leaves the set and is closed. A closed set closes c at once (closed
// true). A set that holds max connections already (max <= 0: no bound)
// leaves c to the caller (full true).
func (s *Set) Serve(c net.Conn, max int, serve func(net.Conn)) (full, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return false, true
	}
	if max > 0 && len(s.conns) >= max {
		return true, false
	}
	if s.conns == nil {
		s.conns = map[net.Conn]struct{}{}
	}
	s.conns[c] = struct{}{}
	s.wg.Go(func() {
		defer func() {
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
		serve(c)
	})
	return false, false
}

// Go runs f on a goroutine that Close waits for (a refusal's message),
// unless the set is closed; it reports whether f runs.
func (s *Set) Go(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Go(f)
	return true
}

// Len is the number of connections being served.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Closed reports whether Close was called.
func (s *Set) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close closes every connection, refuses new ones and waits for the
// goroutines of Serve and Go.
func (s *Set) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
