//go:build linux

package driver

import (
	"net/netip"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/pcu"
)

// nsSock is one NS bind's UDP socket, the engine's pcu.NSSocket: its
// descriptor is in the loop's epoll set and the loop reads it (readNS),
// as it reads the PCU socket: an NS datagram wakes the loop as an
// RTS_REQ does, with no goroutine, no channel and no eventfd in between
// (issue 16 item 2).
type nsSock struct {
	l      *loop
	udp    *nsudp.UDP
	fd     int
	polled bool                      // fd is in the epoll set
	closed bool                      // Close was called (ReadNow stops)
	rx     func(nsudp.Datagram) bool // ReadNow's deliver (made once)
}

// OpenNS is the engine's pcu.NSOpener: a socket bound to addr, in the
// epoll set.
func (l *loop) OpenNS(addr netip.AddrPort) (pcu.NSSocket, error) {
	u, err := l.o.ListenUDP([]netip.AddrPort{addr}, nil)
	if err != nil {
		return nil, err
	}
	fd, err := u.Fd(0)
	if err == nil {
		err = l.p.add(fd, unix.EPOLLIN)
	}
	if err != nil {
		u.Close()
		return nil, err
	}
	s := &nsSock{l: l, udp: u, fd: fd, polled: true}
	capt := l.cfg.Capture
	s.rx = func(d nsudp.Datagram) bool {
		if capt != nil {
			capt.UDP(time.Now(), d.From, l.res.local(d.Local, d.From), d.Data)
		}
		// the engine keeps no slice of the datagram (pcu.Engine.HandleNS):
		// its buffer goes back to the socket's pool at once
		l.e.HandleNS(s, d.From, d.Data)
		d.Release()
		return !s.closed
	}
	l.ns = append(l.ns, s)
	return s, nil
}

// Send sends one datagram, captured when --pcap is on.
func (s *nsSock) Send(to netip.AddrPort, b []byte) error {
	if c := s.l.cfg.Capture; c != nil {
		c.UDP(time.Now(), s.l.res.local(s.udp.LocalAddr(0), to), to, b)
	}
	return s.udp.Send(0, to, b)
}

func (s *nsSock) LocalAddr() netip.AddrPort { return s.udp.LocalAddr(0) }

func (s *nsSock) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.unpoll()
	s.l.ns = slices.DeleteFunc(s.l.ns, func(x *nsSock) bool { return x == s })
	return s.udp.Close()
}

// unpoll takes the socket out of the epoll set.
func (s *nsSock) unpoll() {
	if s.polled {
		s.l.p.del(s.fd)
		s.polled = false
	}
}

// readNS reads the NS socket whose descriptor is fd (at most inputBatch
// datagrams: a flood must not starve the BTS socket; the level-triggered
// set reports the rest at the next wait).
func (l *loop) readNS(fd int) {
	for _, s := range l.ns {
		if s.polled && s.fd == fd {
			if _, err := s.udp.ReadNow(0, inputBatch, s.rx); err != nil && s.polled {
				// not again on every wake-up (a level-triggered error)
				l.gbLog.Error("NS socket read failed, no longer read", "addr", s.udp.LocalAddr(0), "err", err)
				s.unpoll()
			}
			return
		}
	}
}

// localResolver gives the local address a capture shows for a datagram of
// a bind: the bind's address, or for a wildcard bind the source address
// the kernel picks towards the peer, looked up once per peer. Any
// goroutine may call it; it remembers at most localResolverPeers peers
// (datagrams from others, e.g. spoofed sources, show the wildcard
// address), so a flood of strangers costs neither memory nor a lookup
// each.
type localResolver struct {
	mu    sync.Mutex
	cache map[netip.AddrPort]netip.Addr
}

const localResolverPeers = 16

func (r *localResolver) local(la, peer netip.AddrPort) netip.AddrPort {
	if !la.Addr().IsUnspecified() {
		return la
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.cache[peer]
	if !ok {
		if len(r.cache) >= localResolverPeers {
			return la
		}
		var err error
		if a, err = nsudp.SourceAddrTowards(peer); err != nil {
			a = la.Addr()
		}
		if r.cache == nil {
			r.cache = map[netip.AddrPort]netip.Addr{}
		}
		r.cache[peer] = a
	}
	return netip.AddrPortFrom(a, la.Port())
}
