// Package gbtest has the Gb test helpers that the engine's tests (package
// pcu) and the driver's (pcu/driver) share: an INFO_IND with NS-VCs
// towards an SGSN on a loopback socket, and the steps of the test of a
// Gb bind added and removed by a later INFO_IND (issue 17 bug 1). Tests
// only.
package gbtest

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// FreeUDPPort is a UDP port that was free on the wildcard address a moment ago.
func FreeUDPPort(t testing.TB) uint16 {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

// SetNSVC fills INFO_IND NS-VC entry i: local port, the SGSN at c.
func SetNSVC(ii *pcuif.InfoInd, i int, nsvci, local uint16, c *net.UDPConn) {
	a := c.LocalAddr().(*net.UDPAddr).AddrPort()
	ii.NSVCI[i], ii.LocalPort[i], ii.RemotePort[i] = nsvci, local, a.Port()
	ii.AddrType[i] = pcuif.AddrIPv4
	ip := a.Addr().Unmap().As4()
	copy(ii.RemoteIP[i][:], ip[:])
}

// WaitNSReset reads from c until an NS-RESET arrives and returns its
// source address.
func WaitNSReset(t testing.TB, c *net.UDPConn) netip.AddrPort {
	t.Helper()
	buf := make([]byte, 2048)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		n, from, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatalf("no NS-RESET: %v", err)
		}
		if n > 0 && ns.PDUType(buf[0]) == ns.PDUReset {
			return netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		}
	}
}

// Info is an active BTS's INFO_IND with Gb (NSEI 101, BVCI 1800), CS-1,
// four PDCHs on TRX 0 and no NS-VC yet (SetNSVC).
func Info() *pcuif.InfoInd {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1), InitialCS: 1,
		NSEI: 101, BVCI: 1800, MCC: 901, MNC: 70}
	ii.TRX[0].PDCHMask = 0x0f
	ii.TRX[0].ARFCN = 871
	return ii
}

// AddRemoveBind runs the steps of a Gb bind added and removed again
// (issue 17 bug 1): an INFO_IND (fed to the engine by feed) with NS-VC 1
// on a free local port while NS-ALIVEs flood that port (from before the
// INFO_IND to the test's end); NS-VC 1 must reset from it. Then one that
// adds NS-VC 2 on a second local port, which must reset from there;
// added (if not nil) checks the engine then. Last one without NS-VC 2.
// It returns NS-VC 2's local port, for the caller to check that the
// bind has gone (PortFree).
func AddRemoveBind(t testing.TB, feed func(*pcuif.InfoInd), added func()) uint16 {
	t.Helper()
	s0, s1 := testutil.UDP(t), testutil.UDP(t)
	p0, p1 := FreeUDPPort(t), FreeUDPPort(t)
	// datagrams already arriving while the socket opens, until the test ends
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(p0)}
		for {
			select {
			case <-stop:
				return
			default:
				s0.WriteToUDP([]byte{byte(ns.PDUAlive)}, to)
				time.Sleep(50 * time.Microsecond) // paces the flood, on purpose
			}
		}
	}()
	ii := Info()
	SetNSVC(ii, 0, 1, p0, s0)
	feed(ii)
	if from := WaitNSReset(t, s0); from.Port() != p0 {
		t.Fatalf("NS-RESET of NS-VC 1 from port %d, want %d", from.Port(), p0)
	}
	SetNSVC(ii, 1, 2, p1, s1)
	feed(ii)
	if from := WaitNSReset(t, s1); from.Port() != p1 {
		t.Fatalf("NS-RESET of NS-VC 2 from port %d, want %d", from.Port(), p1)
	}
	if added != nil {
		added()
	}
	// the bind goes away again with its NS-VC
	ii.AddrType[1] = pcuif.AddrUnspec
	feed(ii)
	return p1
}

// PortFree fails the test unless UDP port p can be bound (no socket of
// the engine holds it).
func PortFree(t testing.TB, p uint16) {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{Port: int(p)})
	if err != nil {
		t.Fatalf("port %d still bound: %v", p, err)
	}
	c.Close()
}
