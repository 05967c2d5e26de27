//go:build linux

package nsudp

import (
	"bytes"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

// TestReadNow: a UDP made without readers is read by its owner: every
// waiting datagram with its source, in order, in batches and up to max;
// an oversized one dropped and counted; nothing when the socket is empty;
// IPv4 and IPv6.
func TestReadNow(t *testing.T) {
	for _, lo := range []string{"127.0.0.1", "::1"} {
		u, err := ListenUDP([]netip.AddrPort{netip.MustParseAddrPort(net.JoinHostPort(lo, "0"))}, nil)
		if err != nil {
			t.Logf("%s: %v (skipped)", lo, err)
			continue
		}
		if fd, err := u.Fd(0); err != nil || fd < 0 {
			t.Fatalf("%s: Fd %d %v", lo, fd, err)
		}
		var got []Datagram
		collect := func(d Datagram) bool { got = append(got, d); return true }
		if n, err := u.ReadNow(0, 100, collect); n != 0 || err != nil {
			t.Fatalf("%s: empty socket: %d %v", lo, n, err)
		}
		c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(u.LocalAddr(0)))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		from := c.LocalAddr().(*net.UDPAddr).AddrPort()
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		for i := 0; i < 40; i++ {
			if i == 20 {
				c.Write(make([]byte, MaxDatagram+1)) // oversized
			}
			c.Write(bytes.Repeat([]byte{byte(i)}, 10+i))
		}
		testutil.Poll(5*time.Second, func() bool { // loopback delivery
			for {
				n, err := u.ReadNow(0, 25, collect)
				if err != nil || n > 25 {
					t.Fatalf("%s: ReadNow %d %v", lo, n, err)
				}
				if n == 0 || len(got) >= 40 {
					return len(got) >= 40
				}
			}
		})
		if len(got) != 40 || u.Oversized() != 1 {
			t.Fatalf("%s: %d datagrams, %d oversized", lo, len(got), u.Oversized())
		}
		for i, d := range got {
			if d.From != from || d.Local != u.LocalAddr(0) || !bytes.Equal(d.Data, bytes.Repeat([]byte{byte(i)}, 10+i)) {
				t.Fatalf("%s: datagram %d from %v (want %v) local %v, %d octets", lo, i, d.From, from, d.Local, len(d.Data))
			}
			d.Release()
		}
		u.Close()
	}
}
