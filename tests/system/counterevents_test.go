package system

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Scenarios for the BTS counters no other test of this package moves
// (TestMain checks that every counter moves somewhere). Each asserts its
// counter.

// btsCtr reads counter i of BTS 0.
func (r *rig) btsCtr(i int) uint64 {
	var v uint64
	r.eng.Call(func() { b, _ := r.eng.BTSView(0); v = b.Ctr.Value(i) })
	return v
}

// stepUntil steps radio blocks until cond holds; each block runs before
// cond is checked. Between blocks after every 8 it sleeps pause (timers
// on the wall clock).
func (r *radioRig) stepUntil(t *testing.T, what string, max int, pause time.Duration, cond func() bool) {
	t.Helper()
	for i := 0; i < max; i++ {
		if cond() {
			return
		}
		r.step(t)
		if pause > 0 && i%8 == 7 { // a pace for wall-clock timers, on purpose
			time.Sleep(pause)
		}
	}
	if !cond() {
		t.Fatalf("%s: not after %d blocks", what, max)
	}
}

// ulTransfer has ms send the frames want, then steps radio blocks until
// the SGSN has as many frames of ms or max blocks ran; it returns the
// frames the SGSN got and the blocks stepped.
func (r *radioRig) ulTransfer(t *testing.T, ms *msemu.MS, want [][]byte, max int) ([][]byte, int) {
	t.Helper()
	for _, f := range want {
		ms.SendLLC(f)
	}
	steps := 0
	for ; steps < max && len(r.gb.frames(ms.TLLI)) < len(want); steps++ {
		r.step(t)
	}
	return r.gb.frames(ms.TLLI), steps
}

// UL data blocks at CS-1 and CS-3 (`cs 2 1`, `cs 2 3`) count
// gprs:uplink_cs1 / cs3.
func TestCounterULCodingSchemes(t *testing.T) {
	for _, cs := range []int{1, 3} {
		p := bulkParams()
		p.ForceCSUL = cs
		r := startRadio(t, pcuif.V12, p, 11)
		ms := r.cell.AddMS(0xc0007001, "901700000007001", 12)
		ms.SendLLC(llcFrame(1, 200))
		r.stepUntil(t, "UL frame", 2000, 0, func() bool { return len(r.gb.frames(ms.TLLI)) == 1 })
		if n := r.btsCtr(pcu.CtrGPRSULCS1 + cs - 1); n == 0 {
			t.Errorf("gprs:uplink_cs%d not counted", cs)
		}
	}
}

// A DL LLC frame whose PDU lifetime (10 ms) ends before it can be sent
// is dropped and counted in llc:timeout (and llc:dl_dropped).
//
// The lifetime runs on the engine's monotonic clock (pcu.Config.Clock),
// here one the test moves: 30 ms pass between the enqueue and the first
// RTS after it, so the frame is due before any block could carry it.
func TestCounterLLCLifetime(t *testing.T) {
	p := bulkParams()
	clk := &testClock{}
	r := startRadioConfig(t, pcuif.V12, btsemu.DefaultInfo(pcuif.V12),
		pcu.Config{MinBackoff: 20 * time.Millisecond, Params: p, GSMTAP: dialGSMTAP(t, p), Clock: clk}, 12, 4)
	ms := r.cell.AddMS(0xc0007002, "901700000007002", 12)
	f := llcFrame(1, 300)
	r.eng.Call(func() {
		r.eng.HandleDLUnitdata(0, &pcu.DLUnitdata{TLLI: ms.TLLI, IMSI: ms.IMSI, Lifetime: 1, MSClass: 12, LLC: f})
		clk.t.Add(int64(30 * time.Millisecond))
	})
	r.stepUntil(t, "llc:timeout", 400, time.Millisecond, func() bool { return r.btsCtr(pcu.CtrLLCFrameTimedout) > 0 })
	if n := r.btsCtr(pcu.CtrLLCFrameDropped); n == 0 {
		t.Error("llc:dl_dropped not counted")
	}
}

// PS and CS paging from the SGSN for an MS the PCU does not know: the
// pcu:sgsn group counts them, the PS one goes out on PCH (pch:requests).
func TestCounterPagingFromSGSN(t *testing.T) {
	g := startGb(t, pcuif.V12)
	imsi, _ := bssgp.EncodeIMSI("901700000007004")
	var err1, err2 error
	g.sgsn.Do(func(sg *sgsnemu.SGSN, now time.Duration) {
		err1 = sg.SendPagingPS(1800, "901700000007003", 0xc0007003, true)
		err2 = sg.SendPDU(0, &bssgp.PagingCS{IMSI: imsi, Area: bssgp.PagingArea{BVCI: 1800, HasBVCI: true}, TMSI: 0x12345678, HasTMSI: true})
	})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	testutil.Eventually(t, 3*time.Second, func() bool { return g.btsCtr(pcu.CtrPCHRequests) > 0 }, "pch:requests not counted")
}

// One PDCH, 8 MSs asking for UL TBFs: 7 get one (USF 0-6), the eighth
// finds no USF (tbf:alloc:failed, no_usf) and, while the 7 send, every
// PDCH is allocated (pdch:all_allocated, whole seconds on the wall
// clock). 33 MSs with DL data on one TRX: the 33rd finds no TFI.
func TestCounterAllocationFailures(t *testing.T) {
	info := btsemu.DefaultInfo(pcuif.V12)
	info.TRX[0].PDCHMask = 0x80
	r := startRadioVersion(t, pcuif.V12, info, bulkParams(), 13, 1)
	var mss []*msemu.MS
	for i := range 8 {
		ms := r.cell.AddMS(0xc0007100+uint32(i), fmt.Sprintf("90170000000710%d", i), 12)
		for j := range 20 {
			ms.SendLLC(llcFrame(j, 1000))
		}
		mss = append(mss, ms)
	}
	r.stepUntil(t, "no USF for the eighth", 2000, 0, func() bool { return r.btsCtr(pcu.CtrTBFAllocFailedNoUSF) > 0 })
	r.stepUntil(t, "pdch:all_allocated", 20000, 4*time.Millisecond, func() bool { return r.btsCtr(pcu.CtrPDCHAllAllocated) > 0 })
	if r.btsCtr(pcu.CtrTBFAllocFailed) == 0 {
		t.Error("tbf:alloc:failed not counted")
	}
	_ = mss

	r = startRadio(t, pcuif.V12, bulkParams(), 14)
	for i := range 33 {
		r.eng.Call(func() {
			r.eng.HandleDLUnitdata(0, &pcu.DLUnitdata{TLLI: 0xc0007200 + uint32(i), Lifetime: 0xffff, MSClass: 12, LLC: llcFrame(i, 100)})
		})
	}
	r.stepUntil(t, "no TFI for the 33rd", 200, 0, func() bool { return r.btsCtr(pcu.CtrTBFAllocFailedNoTFI) > 0 })
}

// MSs that fall silent at the wrong moment (msemu Mute): after their
// single block (sba:timedout), after a polled Packet Uplink Assignment on
// PACCH (ul:assignment_poll_timeout).
func TestCounterSilentMS(t *testing.T) {
	t.Run("single block", func(t *testing.T) {
		// A two-phase access burst from nobody: the single block stays empty.
		r := startRadio(t, pcuif.V12, bulkParams(), 15)
		r.stepUntil(t, "clock", 100, 0, func() bool { return r.bts.FN() > 100 })
		if err := r.bts.Send(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x70, FN: r.bts.FN(), ARFCN: 871}); err != nil {
			t.Fatal(err)
		}
		r.stepUntil(t, "sba:timedout", 400, 0, func() bool { return r.btsCtr(pcu.CtrSBATimedout) > 0 })
	})
	t.Run("uplink assignment on PACCH", func(t *testing.T) {
		r := startRadio(t, pcuif.V12, bulkParams(), 16)
		ms := r.cell.AddMS(0xc0007302, "901700000007302", 12)
		ms.BeforeControl = func(m rlcmac.Message) {
			if _, ok := m.(*rlcmac.PacketUplinkAssignment); ok {
				ms.Mute = true
			}
		}
		for i := range 20 {
			r.dl(ms.TLLI, ms.IMSI, llcFrame(i, 1000))
		}
		r.stepUntil(t, "DL TBF running", 400, 0, func() bool { return ms.Busy() })
		ms.SendLLC(llcFrame(99, 200)) // asked for in the next DL Ack/Nack
		r.stepUntil(t, "ul:assignment_poll_timeout", 4000, 0, func() bool { return r.btsCtr(pcu.CtrULAssPollTimeout) > 0 })
	})
}

// A DATA_IND whose FN lies 26 frames behind the clock counts
// rlc:late-block.
func TestCounterLateBlock(t *testing.T) {
	r := startRadio(t, pcuif.V12, bulkParams(), 19)
	r.stepUntil(t, "clock", 100, 0, func() bool { return r.bts.FN() > 100 })
	fn := r.bts.FN()
	if err := r.bts.Send(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIPDTCH, FN: fn - 26, ARFCN: 871, TRX: 0, TS: 7,
		Payload: make([]byte, 23)}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 2*time.Second, func() bool { return r.btsCtr(pcu.CtrRLCLateBlock) > 0 }, "rlc:late-block not counted")
}

// testClock is a pcu.Clock the test moves (read by the engine goroutine).
type testClock struct{ t atomic.Int64 }

func (c *testClock) Now() time.Duration { return time.Duration(c.t.Load()) }
