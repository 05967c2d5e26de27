//go:build linux

package btsemu

import (
	"net"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

// TestRxStamps: a message read long after it was sent carries the time
// of the send, not of the read.
func TestRxStamps(t *testing.T) {
	ln, path := testutil.PCUSocket(t)
	cli, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: path, Net: "unixpacket"})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	srv, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := EnableRxStamps(srv); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if _, err := cli.Write([]byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	time.Sleep(50 * time.Millisecond) // the read is late on purpose: the stamp must not move
	r := NewStampedReader()
	b := make([]byte, 16)
	n, at, err := r.Read(srv, b)
	if err != nil || n != 3 {
		t.Fatalf("read %d, %v", n, err)
	}
	if r.Stamped != 1 {
		t.Fatalf("no kernel stamp (stamped %d, unstamped %d)", r.Stamped, r.Unstamped)
	}
	// wall-clock comparison (the stamp has no monotonic reading)
	if at.Before(before.Round(0).Add(-time.Millisecond)) || at.After(after.Round(0).Add(time.Millisecond)) {
		t.Fatalf("stamp %v not between send %v and %v", at, before, after)
	}
}
