package statsd

import (
	"context"
	"net/netip"
	"testing"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/tests/netns"
)

// runEngine runs eng until the test ends.
func runEngine(t *testing.T, eng *pcu.Engine) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { eng.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// listenIn opens the engine's NS sockets inside the network namespace n.
func listenIn(n *netns.NS) func([]netip.AddrPort, func(ns.Datagram)) (*ns.UDP, error) {
	return func(binds []netip.AddrPort, deliver func(ns.Datagram)) (*ns.UDP, error) {
		var u *ns.UDP
		err := n.Do(func() (err error) { u, err = ns.ListenUDP(binds, deliver); return })
		return u, err
	}
}
