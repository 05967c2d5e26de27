//go:build linux

package mmsg

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

func hdrs(bufs [][]byte) []Hdr {
	hs := make([]Hdr, len(bufs))
	iov := make([]unix.Iovec, len(bufs))
	for i, b := range bufs {
		iov[i].Base = &b[0]
		iov[i].SetLen(len(b))
		hs[i].Hdr.Iov = &iov[i]
		hs[i].Hdr.SetIovlen(1)
	}
	return hs
}

// Recv takes each message of a SEQPACKET socket as its own, in order, up
// to len(hs) per call, and gives EAGAIN on an empty socket.
func TestRecvSeqpacket(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Skipf("no SEQPACKET socketpair: %v", err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	msgs := [][]byte{[]byte("one"), []byte("second message"), {0, 1, 2, 3, 4, 5, 6}, []byte("four")}
	for _, m := range msgs {
		if _, err := unix.Write(fds[0], m); err != nil {
			t.Fatal(err)
		}
	}
	rx := make([][]byte, 3)
	for i := range rx {
		rx[i] = make([]byte, 64)
	}
	rh := hdrs(rx)
	var got [][]byte
	for len(got) < len(msgs) {
		n, errno := Recv(fds[1], rh)
		if errno != 0 || n == 0 || n > len(rh) {
			t.Fatalf("Recv: %d, %v after %d messages", n, errno, len(got))
		}
		for i := 0; i < n; i++ {
			got = append(got, append([]byte(nil), rx[i][:rh[i].N]...))
		}
	}
	for i, m := range msgs {
		if !bytes.Equal(got[i], m) {
			t.Errorf("message %d: % x, want % x", i, got[i], m)
		}
	}
	if n, errno := Recv(fds[1], rh); errno != unix.EAGAIN {
		t.Fatalf("Recv on an empty socket: %d, %v", n, errno)
	}
}
