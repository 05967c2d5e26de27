//go:build linux

// Package mmsg is recvmmsg(2) for the loops that take a batch of
// datagrams or SEQPACKET messages per system call (the engine's PCU
// socket, the NS UDP sockets).
package mmsg

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Hdr is struct mmsghdr: a msghdr and the length received (Go pads it to
// the C layout).
type Hdr struct {
	Hdr unix.Msghdr
	N   uint32
}

// Recv takes up to len(hs) messages from fd without blocking
// (MSG_DONTWAIT) in one raw system call (no scheduler hand-off). The
// errno is 0 on success; EAGAIN when nothing waits.
func Recv(fd int, hs []Hdr) (int, unix.Errno) {
	n, _, errno := unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(fd), uintptr(unsafe.Pointer(&hs[0])), uintptr(len(hs)),
		unix.MSG_DONTWAIT, 0, 0)
	return int(n), errno
}
