// Package gsmtapudp sends GSMTAP datagrams over UDP (`gsmtap-remote-host`).
// Package gsmtap (the header codec and the pcap writer) opens no socket;
// the daemon opens this one and hands it to the engine as its
// pcu.GSMTAPSink.
package gsmtapudp

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/gopcu/gopcu/gsmtap"
)

// UDPSender sends GSMTAP datagrams to one host's port 4729 (osmo-pcu's
// `gsmtap-remote-host`; libosmocore gsmtap_source_init()). The socket is
// unconnected, so an ICMP port unreachable from an earlier datagram does
// not stop later ones; Send never blocks longer than the kernel takes to
// queue a datagram.
type UDPSender struct {
	conn *net.UDPConn
	dst  netip.AddrPort
}

// DialUDP resolves host (a name or an address) and opens the socket.
func DialUDP(host string) (*UDPSender, error) {
	addrs, err := net.LookupHost(host)
	if err != nil {
		return nil, fmt.Errorf("gsmtapudp: host %q: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("gsmtapudp: host %q has no address", host)
	}
	ip, err := netip.ParseAddr(addrs[0])
	if err != nil {
		return nil, fmt.Errorf("gsmtapudp: host %q: %w", host, err)
	}
	network := "udp4"
	if ip.Is6() && !ip.Is4In6() {
		network = "udp6"
	}
	c, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, fmt.Errorf("gsmtapudp: %w", err)
	}
	return &UDPSender{conn: c, dst: netip.AddrPortFrom(ip.Unmap(), gsmtap.UDPPort)}, nil
}

// Send writes one datagram (a GSMTAP header and its payload).
func (s *UDPSender) Send(b []byte) error {
	_, err := s.conn.WriteToUDPAddrPort(b, s.dst)
	return err
}

// Dst is where the datagrams go.
func (s *UDPSender) Dst() netip.AddrPort { return s.dst }

// Close closes the socket.
func (s *UDPSender) Close() error { return s.conn.Close() }
