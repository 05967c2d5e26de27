package vty

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/gopcu/gopcu/internal/connset"
	"github.com/gopcu/gopcu/internal/logx"
)

// Executor runs command handlers where the application's state lives. Do
// must arrange for f to run (typically by posting it to the engine's event
// loop) and may return before f has run; the session waits for f itself.
// The engine never waits for a session: handler output goes to a
// per-session buffer that the session's own goroutine sends.
type Executor interface {
	Do(f func())
}

// StopNotifier is implemented by an Executor that can stop running
// handlers (its owner's event loop ended): Stopped is closed then. A
// session waiting for a handler that will never run answers "% Command not
// executed" and closes instead of waiting forever; handlers never run
// anywhere else.
type StopNotifier interface {
	Stopped() <-chan struct{}
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(f func())

// Do calls e(f).
func (e ExecutorFunc) Do(f func()) { e(f) }

// LockedExecutor runs handlers directly under a mutex (tools and tests).
type LockedExecutor struct{ mu sync.Mutex }

// Do runs f under the lock.
func (l *LockedExecutor) Do(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

// Server serves the VTY over telnet.
type Server struct {
	V  *VTY
	Ex Executor
	// WriteTimeout bounds one write to a client; a client that does not
	// read for this long is disconnected. Default 30 s.
	WriteTimeout time.Duration
	// MaxSessions bounds the telnet sessions open at once (libosmocore
	// has no limit): a connection beyond it is told so and closed.
	// Default DefaultMaxSessions; negative: no limit.
	MaxSessions int

	conns   connset.Set
	mu      sync.Mutex
	ln      net.Listener
	refused uint64
}

// Sessions is the number of open sessions; Refused counts the connections
// turned away at MaxSessions.
func (s *Server) Sessions() (open int, refused uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns.Len(), s.refused
}

// DefaultMaxSessions is the default Server.MaxSessions.
const DefaultMaxSessions = 32

// NewServer makes a telnet server for the tree executing through ex.
func NewServer(v *VTY, ex Executor) *Server {
	return &Server{V: v, Ex: ex, WriteTimeout: 30 * time.Second, MaxSessions: DefaultMaxSessions}
}

// sessionsFull is written to a connection beyond MaxSessions.
const sessionsFull = "%% Too many VTY sessions (%d), closing.\r\n"

// refuse tells a connection beyond MaxSessions and closes it, without
// holding up Serve.
func (s *Server) refuse(c net.Conn, n int) {
	if !s.conns.Go(func() {
		c.SetWriteDeadline(time.Now().Add(time.Second))
		fmt.Fprintf(c, sessionsFull, n)
		c.Close()
	}) {
		c.Close()
	}
}

// ListenAndServe listens on addr (e.g. v.BindAddr(4240)) and serves.
func (s *Server) ListenAndServe(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve accepts connections until Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.conns.Closed() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		full, closed := s.conns.Serve(c, s.MaxSessions, s.handle)
		if closed {
			return nil
		}
		if full {
			s.mu.Lock()
			s.refused++
			s.mu.Unlock()
			s.refuse(c, s.MaxSessions)
		}
	}
}

// Addr returns the listening address once Serve runs.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Close stops accepting, closes every session and waits for them.
func (s *Server) Close() error {
	s.conns.Close()
	s.mu.Lock()
	if s.ln != nil {
		s.ln.Close()
	}
	s.mu.Unlock()
	return nil
}

// handle runs a telnet session on c (connset closes c after).
func (s *Server) handle(c net.Conn) {
	var run func(func())
	if s.Ex != nil {
		run = s.Ex.Do
	}
	// One writer goroutine per connection sends queued output: command
	// output blocks only this session when the client is slow; log lines
	// (from any goroutine) are dropped when the queue is full.
	q := make(chan []byte, 64)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		failed := false
		for b := range q {
			if failed {
				continue
			}
			if s.WriteTimeout > 0 {
				c.SetWriteDeadline(time.Now().Add(s.WriteTimeout))
			}
			if _, err := c.Write(b); err != nil {
				failed = true
				c.Close() // unblocks the reader
			}
		}
	}()
	sess := s.V.NewSession(run)
	if sn, ok := s.Ex.(StopNotifier); ok {
		sess.SetStopped(sn.Stopped())
	}
	send := func(b []byte) {
		if len(b) > 0 {
			q <- b
		}
	}
	sess.flush = send
	var qmu sync.Mutex
	qclosed := false
	sess.setNotify(func(b []byte) {
		qmu.Lock()
		defer qmu.Unlock()
		if qclosed {
			return
		}
		select {
		case q <- b:
		default:
		}
	})
	defer func() {
		sess.Release()
		qmu.Lock()
		qclosed = true
		close(q)
		qmu.Unlock()
		<-writerDone
	}()
	send(sess.Start())
	if sess.Closed() {
		return
	}
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			out := sess.Feed(buf[:n])
			if sess.Closed() {
				send(out) // empty, except the notice of a stopped executor
				return
			}
			send(out)
		}
		if err != nil {
			return
		}
	}
}

// LogHandler returns a slog handler that passes records to next and copies
// them to every session that ran `logging enable`, filtered and formatted
// by that session's logging settings as libosmocore's vty target does
// (records carry logx's "cat" attribute). Install it with
// logx.Registry.SetHandler; the VTY's Logging.Registry is then kept
// emitting what the sessions want (Logging.SyncSessions).
func (s *Server) LogHandler(next slog.Handler) slog.Handler {
	f := logx.NewFanout(next)
	lg := s.V.Logging
	lg.syncMu.Lock()
	lg.sessOut = f
	lg.syncMu.Unlock()
	lg.SyncSessions()
	return f
}
