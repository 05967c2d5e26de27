package pcu

import (
	"net/netip"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
)

// udpNS is the engine's NS socket opener in tests that run no driver:
// production NS sockets (nsudp, their datagram pools included) whose
// reader goroutines post each datagram on rx; the test, being the engine
// goroutine, hands them to HandleNS (take).
type udpNS struct {
	rx chan nsRx
}

type nsRx struct {
	s *udpNSSock
	d nsudp.Datagram
}

// udpNSSock is one socket; quit is closed before the socket, so that a
// reader blocked on a full rx lets go (Close waits for it).
type udpNSSock struct {
	u    *nsudp.UDP
	quit chan struct{}
}

// attachUDPNS gives e an NS opener over loopback-capable UDP sockets.
func attachUDPNS(e *Engine) *udpNS {
	o := &udpNS{rx: make(chan nsRx, 1024)}
	e.Attach(IO{NS: o})
	return o
}

func (o *udpNS) OpenNS(addr netip.AddrPort) (NSSocket, error) {
	s := &udpNSSock{quit: make(chan struct{})}
	u, err := nsudp.ListenUDP([]netip.AddrPort{addr}, func(d nsudp.Datagram) {
		select {
		case o.rx <- nsRx{s, d}:
		case <-s.quit:
			d.Release()
		}
	})
	if err != nil {
		return nil, err
	}
	s.u = u
	return s, nil
}

// take hands a received datagram to the engine and releases its buffer.
func (x nsRx) take(e *Engine) {
	e.HandleNS(x.s, x.d.From, x.d.Data)
	x.d.Release()
}

func (s *udpNSSock) Send(to netip.AddrPort, b []byte) error { return s.u.Send(0, to, b) }
func (s *udpNSSock) LocalAddr() netip.AddrPort              { return s.u.LocalAddr(0) }
func (s *udpNSSock) Close() error {
	close(s.quit)
	return s.u.Close()
}
