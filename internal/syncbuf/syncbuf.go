// Package syncbuf is a bytes.Buffer that goroutines may write to while
// another reads it (a child process's output, a log handler's), and a
// List of the same kind (what a callback recorded).
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer behind a mutex; the zero value is empty.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// List is a slice that goroutines may append to while another reads it:
// what a callback recorded. The zero value is empty.
type List[T any] struct {
	mu sync.Mutex
	s  []T
}

// Append adds v.
func (l *List[T]) Append(v ...T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.s = append(l.s, v...)
}

// All returns a copy of what was appended so far.
func (l *List[T]) All() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.s...)
}

// Take returns what was appended since the last Take and forgets it.
func (l *List[T]) Take() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.s
	l.s = nil
	return s
}
