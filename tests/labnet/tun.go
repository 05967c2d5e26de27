package labnet

import (
	"context"
	"net/netip"
	"os"
	"os/exec"

	"github.com/gopcu/gopcu/internal/emu/netns"
)

// AddNamespace creates a network namespace with lo up and IPv6 off (so a
// TUN device in it sends no router solicitations).
func AddNamespace(name string) error {
	if err := netns.IP("netns", "add", name); err != nil {
		return err
	}
	if err := netns.IP("-n", name, "link", "set", "lo", "up"); err != nil {
		return err
	}
	return (&netns.NS{Name: name}).DisableIPv6()
}

// DeleteNamespace removes a namespace (its TUN devices go with it).
func DeleteNamespace(name string) { exec.Command("ip", "netns", "delete", name).Run() }

// OpenTUN creates the TUN device ifname (IFF_TUN|IFF_NO_PI: bare IP
// packets) inside namespace ns, gives it addr/32, a default route and the
// MTU, and brings it up (netns.NS.OpenTUN). Closing the file removes the
// device.
func OpenTUN(ns, ifname string, addr netip.Addr, mtu int) (*os.File, error) {
	return (&netns.NS{Name: ns}).OpenTUN(ifname, addr.String(), "default", mtu)
}

// MaxULQueue is how many LLC frames an MS holds for the uplink before it
// drops IP packets from its TUN (a phone's buffer is finite too).
const MaxULQueue = 256

// ConnectTUN carries the phone's PDP context through a TUN device: packets
// Linux sends on it go up in SNDCP, packets from the network are written to
// it. It returns when ctx ends or the device fails.
func (r *Radio) ConnectTUN(ctx context.Context, p *Phone, tun *os.File) error {
	r.Post(func() {
		p.Stack.OnIP = func(pkt []byte) { tun.Write(pkt) }
	})
	go func() { <-ctx.Done(); tun.Close() }()
	buf := make([]byte, 65536)
	for {
		n, err := tun.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		pkt := append([]byte(nil), buf[:n]...)
		r.Post(func() {
			if p.MS.ULPending() >= MaxULQueue {
				p.Dropped++
				return
			}
			p.Stack.SendIP(pkt)
		})
	}
}
