//go:build linux

package driver

import (
	"bytes"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// nullCapture is a PacketCapture that only counts.
type nullCapture struct{ n atomic.Int64 }

func (c *nullCapture) UDP(time.Time, netip.AddrPort, netip.AddrPort, []byte) bool {
	c.n.Add(1)
	return true
}
func (c *nullCapture) GSMTAPDatagram(time.Time, []byte) bool { return true }

// freeUDPPort is a UDP port that was free on the wildcard address a moment ago.
func freeUDPPort(t *testing.T) uint16 {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

// setNSVC fills INFO_IND NS-VC entry i: local port, the SGSN at c.
func setNSVC(ii *pcuif.InfoInd, i int, nsvci, local uint16, c *net.UDPConn) {
	a := c.LocalAddr().(*net.UDPAddr).AddrPort()
	ii.NSVCI[i], ii.LocalPort[i], ii.RemotePort[i] = nsvci, local, a.Port()
	ii.AddrType[i] = pcuif.AddrIPv4
	ip := a.Addr().Unmap().As4()
	copy(ii.RemoteIP[i][:], ip[:])
}

// waitNSReset reads from c until an NS-RESET arrives and returns its
// source address.
func waitNSReset(t *testing.T, c *net.UDPConn) netip.AddrPort {
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

func gbInfo() *pcuif.InfoInd {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1), InitialCS: 1,
		NSEI: 101, BVCI: 1800, MCC: 901, MNC: 70}
	ii.TRX[0].PDCHMask = 0x0f
	ii.TRX[0].ARFCN = 871
	return ii
}

// feedInfo hands the engine an INFO_IND as if the BTS sent it (in the
// engine goroutine: the driver runs).
func feedInfo(t *testing.T, e *pcu.Engine, ii *pcuif.InfoInd) {
	t.Helper()
	b, err := pcuif.Marshal(ii, pcuif.V12)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Call(func() { e.HandlePCUIF(b) }); err != nil {
		t.Fatal(err)
	}
}

// goid is the running goroutine's id (tests only).
func goid() uint64 {
	var b [64]byte
	s := b[:runtime.Stack(b[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	if i := bytes.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseUint(string(s), 10, 64)
	return id
}
