//go:build !linux

package btsemu

import (
	"net"
	"time"
)

// EnableRxStamps does nothing off Linux: reads carry no kernel stamp.
func EnableRxStamps(c *net.UnixConn) error { return nil }

// StampedReader reads messages; off Linux the stamp is the read time.
type StampedReader struct{ Stamped, Unstamped int }

// NewStampedReader returns a reader.
func NewStampedReader() *StampedReader { return &StampedReader{} }

// Read reads one message into b; at is the time of the read.
func (r *StampedReader) Read(c *net.UnixConn, b []byte) (n int, at time.Time, err error) {
	n, err = c.Read(b)
	r.Unstamped++
	return n, time.Now(), err
}
