package nsudp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/gopcu/gopcu/internal/poison"
)

// Datagram is one received NS datagram, handed to the owner goroutine.
// Data is a buffer of the receiving UDP's pool: the owner may give it back
// with Release once nothing refers to it any more, so that the reader does
// not allocate for the next datagram. A Datagram never released is
// garbage-collected like any slice.
type Datagram struct {
	Bind  int
	From  netip.AddrPort
	Local netip.AddrPort // the receiving socket's bound address (may be a wildcard)
	Data  []byte
	pool  *pool
}

// Release gives Data's buffer back to the pool of the UDP that received
// the datagram. Call it at most once per received datagram (on one of its
// copies), after the last use of Data and of every slice of it; a
// Datagram not made by a UDP reader is left alone. With the test hook
// internal/poison enabled the buffer is overwritten on release.
func (d Datagram) Release() {
	if d.pool != nil {
		d.pool.put(d.Data)
	}
}

// pool is the free list of datagram buffers (cap MaxDatagram) shared by
// the readers of a UDP and the goroutine that releases them: a buffered
// channel, never waited on (empty: allocate, full: drop the buffer).
type pool struct {
	free chan []byte
}

// poolSize bounds the free buffers kept per UDP (1 MiB).
const poolSize = 256

func (p *pool) get() []byte {
	select {
	case b := <-p.free:
		return b
	default:
		return make([]byte, MaxDatagram)
	}
}

func (p *pool) put(b []byte) {
	if cap(b) != MaxDatagram {
		return
	}
	poison.Fill(b)
	select {
	case p.free <- b[:MaxDatagram]:
	default:
	}
}

// UDP is the production Transport: one net.UDPConn per local bind and one
// reader goroutine per socket that does nothing but forward raw datagrams to
// deliver (which should post them to the engine loop, e.g. a channel send).
type UDP struct {
	pool      pool
	conns     []*net.UDPConn
	wg        sync.WaitGroup
	oversized atomic.Uint64
	rx        *readNow // ReadNow's batch (made at its first call)
}

// MaxDatagram is the largest datagram the readers pass on: an NS PDU
// carries at most 1600 octets of NS SDU (TS 48.016 §9.2.10, the Gb's
// NS-UNITDATA over IP), SNS PDUs with the 8 NS-VCs of an NSE are far
// shorter. Larger datagrams are dropped and counted (Oversized), so what
// waits in the owner's channel is bounded per datagram.
const MaxDatagram = 4096

// ListenUDP binds one socket per address in binds (osmo-pcu binds the
// wildcard address on INFO_IND local_port[i]: "0.0.0.0:23001" or "[::]:23001")
// and starts the readers. deliver is called from the reader goroutines.
// With deliver nil no reader starts: the owner reads in its own loop, with
// ReadNow whenever the socket's descriptor (Fd) is readable (readnow_linux.go).
func ListenUDP(binds []netip.AddrPort, deliver func(Datagram)) (*UDP, error) {
	u := &UDP{pool: pool{free: make(chan []byte, poolSize)}}
	for _, b := range binds {
		// udp4/udp6 so that "[::]:p" (IPV6_V6ONLY) and "0.0.0.0:p" coexist.
		network := "udp4"
		if b.Addr().Is6() && !b.Addr().Is4In6() {
			network = "udp6"
		}
		c, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(b))
		if err != nil {
			u.Close()
			return nil, fmt.Errorf("ns: bind %v: %w", b, err)
		}
		u.conns = append(u.conns, c)
	}
	if deliver == nil {
		return u, nil
	}
	for i, c := range u.conns {
		u.wg.Add(1)
		go u.read(i, c, deliver)
	}
	return u, nil
}

func (u *UDP) read(bind int, c *net.UDPConn, deliver func(Datagram)) {
	defer u.wg.Done()
	local := c.LocalAddr().(*net.UDPAddr).AddrPort()
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	buf := make([]byte, 65536)
	for {
		n, from, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // e.g. ICMP port unreachable surfaced as ECONNREFUSED
		}
		if n > MaxDatagram {
			u.oversized.Add(1)
			continue
		}
		// read into the big buffer, so that an oversized datagram is seen
		// as such, then into a pooled one (the copy costs far less than
		// the syscall)
		d := u.pool.get()[:n]
		copy(d, buf[:n])
		deliver(Datagram{Bind: bind, From: netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), Local: local, Data: d, pool: &u.pool})
	}
}

// Send implements Transport.
func (u *UDP) Send(bind int, to netip.AddrPort, b []byte) error {
	if bind < 0 || bind >= len(u.conns) {
		return fmt.Errorf("ns: no bind %d", bind)
	}
	_, err := u.conns[bind].WriteToUDPAddrPort(b, to)
	return err
}

// LocalAddr returns the bound address of bind i (the zero AddrPort when
// there is no such bind).
func (u *UDP) LocalAddr(i int) netip.AddrPort {
	if i < 0 || i >= len(u.conns) {
		return netip.AddrPort{}
	}
	return u.conns[i].LocalAddr().(*net.UDPAddr).AddrPort()
}

// Oversized counts datagrams dropped for being longer than MaxDatagram.
func (u *UDP) Oversized() uint64 { return u.oversized.Load() }

// Binds is the number of sockets.
func (u *UDP) Binds() int { return len(u.conns) }

// Close closes the sockets and waits for the readers to exit. A reader
// blocked in deliver holds Close up: deliver must return promptly once the
// owner closes the UDP (e.g. select on a channel the owner closes first).
func (u *UDP) Close() error {
	var first error
	for _, c := range u.conns {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	u.wg.Wait()
	return first
}

// SourceAddrTowards returns the local IP the kernel would use to reach
// remote (for the IP-SNS endpoint list when the bind is a wildcard).
func SourceAddrTowards(remote netip.AddrPort) (netip.Addr, error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(remote))
	if err != nil {
		return netip.Addr{}, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap(), nil
}
