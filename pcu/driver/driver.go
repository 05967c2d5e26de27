// Package driver runs a pcu.Engine: it owns the engine goroutine and all
// of the engine's I/O. On Linux that is one epoll loop (loop_linux.go)
// over the PCU socket (unix SOCK_SEQPACKET, connected and reconnected
// here), the NS UDP sockets (bssgp/ns/nsudp, opened for the engine through
// pcu.IO.NS, ns_linux.go) and an eventfd that other goroutines wake it
// with; the CTRL client of `neighbor resolution` (ctrl.go) has goroutines
// of its own and posts into the engine. The engine calls nothing here but
// the sinks it was given (pcu.BTSWriter, pcu.NSSocket, pcu.CtrlClient).
//
// gopcu runs next to OsmoBTS, which is Linux only, and OsmoBTS's PCU
// socket is a Linux unix SOCK_SEQPACKET socket: elsewhere Run returns an
// error at once (driver_other.go).
package driver

import (
	"context"
	"net"
	"net/netip"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/pcu"
)

// Options are the driver's own settings; the engine's Config has the
// rest (socket path, reconnect backoff, logs, clock, capture).
type Options struct {
	// ListenUDP opens the NS sockets (default nsudp.ListenUDP), called with
	// one bind at a time and no deliver function (the loop reads them):
	// tests use it to open them inside a network namespace.
	ListenUDP func(binds []netip.AddrPort, deliver func(nsudp.Datagram)) (*nsudp.UDP, error)
	// Dial, when set, opens the CTRL connection of `neighbor resolution`
	// (tests use it to dial inside a network namespace); nil: net.Dialer
	// with a 1 s timeout.
	Dial func(network, addr string) (net.Conn, error)
}

// Run runs e until ctx ends: it attaches itself to e (pcu.Engine.Attach),
// runs the loop, and returns after every goroutine it started has ended.
//
// The stop path runs in a fixed order: first the engine stops taking
// commands (Do and Call fail with pcu.ErrStopped from then on; a command
// taken before has run completely), then the Gb sockets and the CTRL
// client close, then the PCU socket connection ends.
func Run(ctx context.Context, e *pcu.Engine, o Options) error {
	l, err := newLoop(e, o)
	if err != nil {
		e.Stop()
		return err
	}
	return l.run(ctx)
}
