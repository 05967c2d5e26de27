package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/pcu/internal/gbtest"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// feedInfo hands the engine an INFO_IND as if the BTS sent it.
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
	p1 := gbtest.AddRemoveBind(t, func(ii *pcuif.InfoInd) { feedInfo(t, e, ii) }, func() {
		if len(e.gbl.socks) != 2 || e.gbl.socks[1] == nil {
			t.Fatalf("binds open: %v", e.gbl.socks)
		}
	})
	if len(e.gbl.socks) != 1 {
		t.Fatalf("binds open after removing NS-VC 2: %d, want 1", len(e.gbl.socks))
	}
	gbtest.PortFree(t, p1)
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
