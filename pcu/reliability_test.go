package pcu

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

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

func gbInfo(t *testing.T) *pcuif.InfoInd {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1), InitialCS: 1,
		NSEI: 101, BVCI: 1800, MCC: 901, MNC: 70}
	ii.TRX[0].PDCHMask = 0x0f
	ii.TRX[0].ARFCN = 871
	return ii
}

func feedInfo(t *testing.T, e *Engine, ii *pcuif.InfoInd) {
	t.Helper()
	b, err := pcuif.Marshal(ii, pcuif.V12)
	if err != nil {
		t.Fatal(err)
	}
	e.handleMessage(b)
}

// TestGbReconfigureNewBind: an updated INFO_IND adds a second NS-VC on a
// new local port. The engine opens a socket for the new bind and the new
// NS-VC resets from it (issue 17 bug 1: the NS-VC failed with "no bind
// 1"; with --pcap, the driver's TestGbReconfigureCaptured).
func TestGbReconfigureNewBind(t *testing.T) {
	e := New(Config{SocketPath: "/nonexistent", Gb: true})
	attachUDPNS(e)
	defer e.gbClose()
	s0, s1 := testutil.UDP(t), testutil.UDP(t)
	p0, p1 := freeUDPPort(t), freeUDPPort(t)
	// datagrams already arriving while the socket opens
	stop := make(chan struct{})
	defer close(stop)
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
	ii := gbInfo(t)
	setNSVC(ii, 0, 1, p0, s0)
	feedInfo(t, e, ii)
	if from := waitNSReset(t, s0); from.Port() != p0 {
		t.Fatalf("NS-RESET of NS-VC 1 from port %d, want %d", from.Port(), p0)
	}
	setNSVC(ii, 1, 2, p1, s1)
	feedInfo(t, e, ii)
	if from := waitNSReset(t, s1); from.Port() != p1 {
		t.Fatalf("NS-RESET of NS-VC 2 from port %d, want %d", from.Port(), p1)
	}
	if len(e.gbl.socks) != 2 || e.gbl.socks[1] == nil {
		t.Fatalf("binds open: %v", e.gbl.socks)
	}
	// The bind goes away again with its NS-VC.
	ii.AddrType[1] = pcuif.AddrUnspec
	feedInfo(t, e, ii)
	if len(e.gbl.socks) != 1 {
		t.Fatalf("binds open after removing NS-VC 2: %d, want 1", len(e.gbl.socks))
	}
	if c, err := net.ListenUDP("udp4", &net.UDPAddr{Port: int(p1)}); err != nil {
		t.Fatalf("port %d still bound: %v", p1, err)
	} else {
		c.Close()
	}
}

// TestFNJumpIgnored: one RTS_REQ/TIME_IND with a wild FN (a corrupt
// message: the chaos suite's PCU socket fuzz found it froze radio time
// for 19 s, until the BTS clock caught up with the bogus FN) neither moves
// radio time nor stops it; a BTS whose clock really jumped is followed
// after fnResync agreeing FNs.
func TestFNJumpIgnored(t *testing.T) {
	e, bts := benchEngine(t)
	fn := uint32(1000)
	e.clockFN(bts, fn)
	step := func(n int) {
		for i := 0; i < n; i++ {
			fn += 4
			e.clockFN(bts, fn)
		}
	}
	step(10)
	t0 := e.now
	e.clockFN(bts, fn+MaxFN/3) // bogus, far ahead
	e.clockFN(bts, fn-5000)    // bogus, far behind
	if e.now != t0 {
		t.Fatalf("radio time moved by %v on bogus FNs", e.now-t0)
	}
	step(10)
	if want := t0 + 40*FramePeriod; e.now != want {
		t.Fatalf("radio time %v after 10 more blocks, want %v", e.now, want)
	}
	if got := e.l1ctr.Value(L1FNJump); got != 2 {
		t.Fatalf("rx:err:fn_jump %d, want 2", got)
	}
	// the BTS clock really jumps: followed after fnResync FNs, no time jump
	t1 := e.now
	fn += 100000
	for i := 0; i < fnResync; i++ {
		e.clockFN(bts, fn)
		fn += 4
	}
	step(5)
	if e.now <= t1 || e.now > t1+10*4*FramePeriod {
		t.Fatalf("after a real clock jump: radio time %v -> %v", t1, e.now)
	}
}
