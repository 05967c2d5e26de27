//go:build linux

package nsudp

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/internal/mmsg"
)

// readBatch is how many datagrams one recvmmsg(2) takes at most.
const readBatch = 16

// readNow is ReadNow's state: the descriptors and one recvmmsg batch of
// pooled buffers with their source addresses.
type readNow struct {
	fds   []int
	local []netip.AddrPort
	bufs  [readBatch][]byte
	names [readBatch]unix.RawSockaddrInet6 // large enough for IPv4 and IPv6
	iov   [readBatch]unix.Iovec
	hdrs  [readBatch]mmsg.Hdr
}

// errNoFd is returned when a socket's descriptor cannot be had.
var errNoFd = errors.New("nsudp: no file descriptor")

func (u *UDP) readState() (*readNow, error) {
	if u.rx != nil {
		return u.rx, nil
	}
	r := &readNow{}
	for _, c := range u.conns {
		rc, err := c.SyscallConn()
		if err != nil {
			return nil, err
		}
		fd := -1
		if err := rc.Control(func(f uintptr) { fd = int(f) }); err != nil || fd < 0 {
			return nil, errNoFd
		}
		r.fds = append(r.fds, fd)
		l := u.LocalAddr(len(r.local))
		r.local = append(r.local, netip.AddrPortFrom(l.Addr().Unmap(), l.Port()))
	}
	u.rx = r
	return r, nil
}

// Fd is the descriptor of socket i, for the owner's event loop (epoll) of a
// UDP made without readers. It stays valid until Close.
func (u *UDP) Fd(i int) (int, error) {
	r, err := u.readState()
	if err != nil {
		return -1, err
	}
	if i < 0 || i >= len(r.fds) {
		return -1, errNoFd
	}
	return r.fds[i], nil
}

// ReadNow takes the datagrams waiting on socket i, at most max, without
// blocking, and hands each to deliver in the calling goroutine, with a
// pooled buffer as the readers do (Release gives it back); deliver
// returning false stops it (e.g. the owner closed the UDP meanwhile). One
// recvmmsg(2) takes up to 16. A datagram longer than MaxDatagram is
// dropped and counted (Oversized). It returns how many it delivered; more
// may wait when that is max. Only for a UDP made without readers, from
// one goroutine.
func (u *UDP) ReadNow(i, max int, deliver func(Datagram) bool) (int, error) {
	r, err := u.readState()
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= len(r.fds) {
		return 0, errNoFd
	}
	got := 0
	for got < max {
		k := min(readBatch, max-got)
		for j := 0; j < k; j++ {
			if r.bufs[j] == nil {
				r.bufs[j] = u.pool.get()
			}
			r.iov[j].Base = &r.bufs[j][0]
			r.iov[j].SetLen(MaxDatagram)
			h := &r.hdrs[j].Hdr
			h.Name = (*byte)(unsafe.Pointer(&r.names[j]))
			h.Namelen = uint32(unsafe.Sizeof(r.names[j]))
			h.Iov = &r.iov[j]
			h.SetIovlen(1)
			h.Control, h.Controllen, h.Flags = nil, 0, 0
		}
		n, errno := mmsg.Recv(r.fds[i], r.hdrs[:k])
		if errno == unix.EAGAIN || errno == unix.EINTR {
			return got, nil
		}
		if errno == unix.ECONNREFUSED { // an ICMP port unreachable surfaced: the next read goes on
			continue
		}
		if errno != 0 {
			return got, errno
		}
		for j := 0; j < int(n); j++ {
			h := &r.hdrs[j]
			if h.Hdr.Flags&unix.MSG_TRUNC != 0 {
				u.oversized.Add(1)
				continue // its buffer is reused
			}
			b := r.bufs[j][:h.N]
			r.bufs[j] = nil // the datagram owns it now
			from := sockaddrPort(&r.names[j])
			got++
			if !deliver(Datagram{Bind: i, From: from, Local: r.local[i], Data: b, pool: &u.pool}) {
				return got, nil // the rest of the batch is dropped (its buffers stay for the next)
			}
		}
		if int(n) < k {
			return got, nil // the socket is empty
		}
	}
	return got, nil
}

// sockaddrPort reads a sockaddr_in or sockaddr_in6 (IPv4-mapped addresses
// unmapped, as the readers do).
func sockaddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
	switch sa.Family {
	case unix.AF_INET:
		a := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&a.Port))[:])
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), port)
	case unix.AF_INET6:
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:])
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), port)
	}
	return netip.AddrPort{}
}
