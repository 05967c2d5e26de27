package system

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// msView is the engine's view of the MS of tlli (ok false: none).
func msView(e *pcu.Engine, tlli uint32) (m pcu.MSView, ok bool) {
	e.Call(func() { m, ok = e.MSViewByTLLI(tlli) })
	return m, ok
}

func tbfStates(r *radioRig) []pcu.TBFState {
	var s []pcu.TBFState
	r.eng.Call(func() {
		for _, t := range r.eng.TBFViews(0, nil) {
			s = append(s, t.State)
		}
	})
	return s
}

// stepFor runs the cell for d of radio time (virtual).
func stepFor(t *testing.T, c *msemu.Cell, d time.Duration) {
	t.Helper()
	for n := int(d / (18 * time.Millisecond)); n > 0; n-- {
		if err := c.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestN3101T3169: an MS that stops using its USF grants exhausts N3101
// (10 empty granted blocks); the UL TBF goes to RELEASING and is freed when
// T3169 (5 s) expires (TS 44.060 §13.3, osmo-pcu tbf_ul_fsm.c).
func TestN3101T3169(t *testing.T) {
	r := startRadio(t, pcuif.V12, bulkParams(), 6)
	ms := r.cell.AddMS(0xc0006001, "901700000006001", 12)
	for i := 0; i < 30; i++ {
		ms.SendLLC(llcFrame(i, 1400))
	}
	stepFor(t, r.cell, time.Second) // UL TBF in FLOW, data flowing
	if r.btsCtr(pcu.CtrTBFULAlloc) != 1 {
		t.Fatal("no UL TBF")
	}
	ms.Mute = true
	stepFor(t, r.cell, time.Second) // 10 empty USF blocks take ~0.2 s
	if s := tbfStates(r); len(s) != 1 || s[0] != pcu.TBFReleasing {
		t.Fatalf("after N3101: TBF states %v", s)
	}
	stepFor(t, r.cell, 3500*time.Millisecond)
	if len(tbfStates(r)) != 1 {
		t.Fatal("freed before T3169")
	}
	stepFor(t, r.cell, 1500*time.Millisecond)
	if s := tbfStates(r); len(s) != 0 || r.btsCtr(pcu.CtrTBFULFreed) != 1 {
		t.Fatalf("after T3169: states %v, freed %d", s, r.btsCtr(pcu.CtrTBFULFreed))
	}
}

// TestN3105T3195: an MS that stops answering polls makes every DL
// Ack/Nack poll time out; at N3105 (8) the DL TBF goes to RELEASING and
// T3195 (5 s) frees it; the poll counters count it. As osmo-pcu (and the
// Osmocom TTCN-3 suite's TC_n3105_max_t3195), the unacknowledged frames of
// the failed TBF are discarded and reported (LLC-DISCARDED, llc:dropped),
// not put back, and the MS, which answered none of N3105 polls, gets no
// new DL TBF (no Immediate Assignment on CCCH) until new data arrives for
// it. Then the rest of the queue and the new frame reach it: every frame
// is either delivered or reported discarded.
func TestN3105T3195(t *testing.T) {
	r := startRadio(t, pcuif.V12, bulkParams(), 7)
	ms := r.cell.AddMS(0xc0006002, "901700000006002", 12)
	for i := 0; i < 200; i++ {
		r.dl(ms.TLLI, ms.IMSI, llcFrame(i, 1500))
	}
	got := 0
	ms.OnLLC = func([]byte) { got++ }
	stepFor(t, r.cell, time.Second)
	ms.Mute = true
	stepFor(t, r.cell, 4*time.Second)
	queued := func() int {
		m, _ := msView(r.eng, ms.TLLI)
		return m.QueueFrames
	}
	if s := tbfStates(r); len(s) != 1 || s[0] != pcu.TBFReleasing {
		t.Fatalf("after N3105: TBF states %v", s)
	}
	if n := r.btsCtr(pcu.CtrPktDLAckNackTimeout); n < 7 {
		t.Fatalf("pkt:dl_ack_nack_timeout %d", n)
	}
	if r.btsCtr(pcu.CtrPktDLAckNackFailed) != 1 || r.btsCtr(pcu.CtrRLCAckFailed) != 1 {
		t.Fatal("N3105 failure not counted")
	}
	stepFor(t, r.cell, 5500*time.Millisecond)
	// T3195 freed the TBF; no new one for the silent MS
	if s := tbfStates(r); r.btsCtr(pcu.CtrTBFDLFreed) != 1 || r.btsCtr(pcu.CtrTBFDLAlloc) != 1 || len(s) != 0 {
		t.Fatalf("after T3195: freed %d, allocated %d, states %v", r.btsCtr(pcu.CtrTBFDLFreed), r.btsCtr(pcu.CtrTBFDLAlloc), s)
	}
	stepFor(t, r.cell, 3*time.Second)
	if n := r.btsCtr(pcu.CtrTBFDLAlloc); n != 1 {
		t.Fatalf("a new DL TBF (%d allocated) for an MS that answered none of N3105 polls", n)
	}
	var requeued uint64
	r.eng.Call(func() { requeued = r.eng.L1Counters().Value(pcu.L1LLCRequeued) })
	dropped := int(r.btsCtr(pcu.CtrLLCFrameDropped))
	if requeued != 0 || dropped == 0 {
		t.Fatalf("after the N3105 release: %d frames put back, %d discarded", requeued, dropped)
	}
	// New data for the MS, which answers again: a new TBF carries the
	// queue's rest and the new frame.
	ms.Mute = false
	r.dl(ms.TLLI, ms.IMSI, llcFrame(200, 1500))
	for i := 0; i < 60 && got+dropped < 201; i++ {
		stepFor(t, r.cell, time.Second)
		dropped = int(r.btsCtr(pcu.CtrLLCFrameDropped))
	}
	if got+dropped != 201 || r.btsCtr(pcu.CtrTBFDLAlloc) != 2 {
		t.Fatalf("delivered %d + discarded %d of 201 frames (queued %d), %d DL TBFs", got, dropped, queued(), r.btsCtr(pcu.CtrTBFDLAlloc))
	}
}

// TestKeepOpenX2031T3193: after the last frame the DL TBF stays open for
// X2031 (2 s) sending LLC UI dummies, then ends with the final block; the
// final Ack moves it to WAIT_RELEASE and T3193 (1.6 s) frees it.
func TestKeepOpenX2031T3193(t *testing.T) {
	r := startRadio(t, pcuif.V12, bulkParams(), 8)
	ms := r.cell.AddMS(0xc0006003, "901700000006003", 12)
	got := 0
	ms.OnLLC = func([]byte) { got++ }
	r.dl(ms.TLLI, ms.IMSI, llcFrame(1, 200))
	for got == 0 {
		stepFor(t, r.cell, 20*time.Millisecond)
	}
	stepFor(t, r.cell, 1500*time.Millisecond)
	if s := tbfStates(r); len(s) != 1 || s[0] != pcu.TBFFlow {
		t.Fatalf("1.5 s after the last frame: %v (want FLOW, kept open)", s)
	}
	stepFor(t, r.cell, 1500*time.Millisecond)
	if s := tbfStates(r); len(s) != 1 || s[0] != pcu.TBFWaitRelease {
		t.Fatalf("after X2031 and the final ack: %v (want WAIT_RELEASE)", s)
	}
	stepFor(t, r.cell, 1700*time.Millisecond)
	if s := tbfStates(r); len(s) != 0 || r.btsCtr(pcu.CtrTBFDLFreed) != 1 {
		t.Fatalf("after T3193: %v", s)
	}
	// New data after the release: a new DL TBF on CCCH.
	r.dl(ms.TLLI, ms.IMSI, llcFrame(2, 200))
	for i := 0; got < 2 && i < 200; i++ {
		stepFor(t, r.cell, 20*time.Millisecond)
	}
	if got != 2 || r.btsCtr(pcu.CtrImmAssDL) != 2 {
		t.Fatalf("second frame %d, IMM ASS DL %d", got, r.btsCtr(pcu.CtrImmAssDL))
	}
}

// TestLinkAdaptation: the DL coding scheme climbs from the initial CS-2 to
// CS-4 on a clean radio and falls to CS-1 when 40 % of the blocks are lost
// (cs threshold 10 33).
func TestLinkAdaptation(t *testing.T) {
	for _, c := range []struct {
		loss float64
		want string
	}{{0, "CS-4"}, {0.4, "CS-1"}} {
		r := startRadio(t, pcuif.V12, bulkParams(), 9)
		r.cell.DLLoss = c.loss
		ms := r.cell.AddMS(0xc0006004, "901700000006004", 12)
		for i := 0; i < 100; i++ {
			r.dl(ms.TLLI, ms.IMSI, llcFrame(i, 1500))
		}
		stepFor(t, r.cell, 6*time.Second)
		if m, _ := msView(r.eng, ms.TLLI); m.CSDL.String() != c.want {
			t.Fatalf("loss %v: DL CS %s, want %s", c.loss, m.CSDL, c.want)
		}
	}
}

// TestTwoPhaseAccess: an MS asking for a single block (RA 0x70..0x77) gets
// an Immediate Assignment with a starting time, sends a Packet Resource
// Request with its TLLI and multislot class in that block, and receives a
// Packet Uplink Assignment on PACCH; its data then reaches the SGSN side.
func TestTwoPhaseAccess(t *testing.T) {
	r := startRadio(t, pcuif.V12, bulkParams(), 10)
	ms := r.cell.AddMS(0xc0006005, "901700000006005", 10)
	ms.TwoPhase = true
	ms.SendLLC(llcFrame(1, 500))
	stepFor(t, r.cell, 3*time.Second)
	if got := r.gb.frames(ms.TLLI); len(got) != 1 {
		t.Fatalf("SGSN got %d frames", len(got))
	}
	for _, c := range []struct {
		ctr  int
		want uint64
	}{{pcu.CtrRACHRequestsTwoPhase, 1}, {pcu.CtrImmAssULTwoPhase, 1}, {pcu.CtrSBAAllocated, 1}, {pcu.CtrSBAFreed, 1},
		{pcu.CtrPktULAssignment, 1}, {pcu.CtrSBATimedout, 0}} {
		if v := r.btsCtr(c.ctr); v != c.want {
			t.Errorf("%s = %d, want %d", pcu.BTSCounterDescs[c.ctr].Name, v, c.want)
		}
	}
	if m, _ := msView(r.eng, ms.TLLI); m.MSClass != 10 {
		t.Errorf("MS class %d from the Packet Resource Request, want 10", m.MSClass)
	}
}

// TestULLinkAdaptation: uplink blocks with a good C/I (15 dB, above the
// CS-2 and CS-3 windows) move the UL coding scheme up to CS-4; a poor one
// (3 dB) moves it down to CS-1 (cs link-quality-ranges defaults).
func TestULLinkAdaptation(t *testing.T) {
	for _, c := range []struct {
		lqual int16
		want  string
	}{{150, "CS-4"}, {30, "CS-1"}} {
		r := startRadio(t, pcuif.V12, bulkParams(), 11)
		r.cell.ULLqualCb = c.lqual
		ms := r.cell.AddMS(0xc0006006, "901700000006006", 12)
		for i := 0; i < 40; i++ {
			ms.SendLLC(llcFrame(i, 1000))
		}
		stepFor(t, r.cell, 3*time.Second)
		if m, _ := msView(r.eng, ms.TLLI); m.CSUL.String() != c.want {
			t.Fatalf("C/I %d cB: UL CS %s, want %s", c.lqual, m.CSUL, c.want)
		}
	}
}

// TestULMultislot: an MS of multislot class 14 (type 2, Rx 4, Tx 4) that
// asks for an uplink TBF with a Packet Resource Request (two-phase access,
// the assignment goes on PACCH and can name several USFs) gets 4 uplink
// slots and sends 100 kB at least 3 times as fast as a one-phase MS, which
// is assigned one slot on CCCH. (A type 1 MS such as class 12 gets at most
// 2 uplink slots, as in osmo-pcu: see pcu/alloc_test.go.)
func TestULMultislot(t *testing.T) {
	run := func(twoPhase bool) (int, string) {
		r := startRadio(t, pcuif.V12, nil, 31)
		ms := r.cell.AddMS(0xc0004201, "901700000004201", 14)
		ms.TwoPhase = twoPhase
		want := frames(100<<10, 1500)
		for _, f := range want {
			ms.SendLLC(f)
		}
		steps, tbf := 0, ""
		for ; steps < 40000 && len(r.gb.frames(ms.TLLI)) < len(want); steps++ {
			r.step(t)
			if steps == 300 {
				tbf = r.show("show tbf all")
			}
		}
		if n := len(r.gb.frames(ms.TLLI)); n != len(want) {
			t.Fatalf("two-phase %v: %d of %d frames", twoPhase, n, len(want))
		}
		return steps, tbf
	}
	one, _ := run(false)
	multi, tbf := run(true)
	t.Logf("100 kB uplink: %d block periods on one slot, %d with two-phase access", one, multi)
	if !strings.Contains(tbf, "TS_alloc=4! 5 6 7  ") {
		t.Fatalf("two-phase UL TBF:\n%s", tbf)
	}
	if multi*3 > one {
		t.Fatalf("multislot uplink took %d block periods, one slot %d", multi, one)
	}
}

// vtyConfigureParams runs VTY commands in the `pcu` node of the engine's
// VTY and applies the resulting parameters, with mod applied to them (for
// those the VTY has no command for).
func vtyConfigureParams(t *testing.T, r *radioRig, mod func(*pcu.Params), cmds ...string) {
	t.Helper()
	s := r.engineVTY(true, mod)
	defer s.Release()
	for _, c := range append([]string{"enable", "configure terminal", "pcu"}, cmds...) {
		if out := string(s.Feed([]byte(c + "\r"))); strings.Contains(out, "%") {
			t.Fatalf("%s: %s", c, out)
		}
	}
}

// TestT3190PollAge: T3190 is the MS's timer that ends its DL TBF when no
// data block arrives for it (TS 44.060 §13.1); the PCU polls a TBF whose
// blocks are unacknowledged after min(T3190/2, X2031) without a poll
// (osmo-pcu gprs_pcu.c T_defs_pcu, gprs_rlcmac_sched.cpp tbf_compute_priority()). With `timer T3190 2` and no delayed
// release (X2031 0), no preemptive retransmission and one slot, a DL TBF
// whose final block (FBI, polled) and first two re-polls are lost is
// polled again every second (217 to 222 frames: the next block after the
// age is reached; 13 frames more with OsmoPollAge, which counts the age
// from the poll's answer frame as osmo-pcu), each time by resending its
// final block with a poll; the
// lost polls count pkt:dl_ack_nack_timeout and N3105 but do not release
// it, and the answer to the third re-poll ends it (WAIT_RELEASE). With
// `timer T3190 1` the period is half a second.
func TestT3190PollAge(t *testing.T) {
	for _, c := range []struct {
		t3190      string
		osmo       bool
		minF, maxF uint32
	}{{"2", false, 217, 222}, {"1", false, 109, 114}, {"2", true, 230, 235}} {
		t.Run(fmt.Sprintf("T3190=%s/osmo=%v", c.t3190, c.osmo), func(t *testing.T) {
			r := startRadio(t, pcuif.V12, nil, 12)
			vtyConfigureParams(t, r, func(p *pcu.Params) { p.OsmoPollAge = c.osmo }, "timer T3190 "+c.t3190, "timer X2031 0", "no dl-tbf-preemptive-retransmission", "alloc-algorithm a")
			type polled struct {
				fn  uint32
				bsn uint8
				fbi bool
				tfi uint8
			}
			var mu sync.Mutex
			var polls []polled
			r.bts.OnDataReq(func(d pcuif.Data) {
				var h rlcmac.GPRSDLHeader
				if d.SAPI != pcuif.SAPIPDTCH || len(d.Payload) == 0 || d.Payload[0]>>6 != rlcmac.PTData || h.Unmarshal(d.Payload) != nil || !h.SP {
					return
				}
				mu.Lock()
				polls = append(polls, polled{d.FN, h.BSN, h.FBI, h.TFI})
				mu.Unlock()
			})
			npolls := func() int {
				mu.Lock()
				defer mu.Unlock()
				return len(polls)
			}
			ms := r.cell.AddMS(0xc0006010, "901700000006010", 12)
			got := 0
			ms.OnLLC = func([]byte) { got++ }
			r.cell.DLLoss = 1 // the MS gets the IMM ASS (CCCH) but no PDTCH block
			r.dl(ms.TLLI, ms.IMSI, llcFrame(1, 20))
			for i := 0; i < 2000 && npolls() < 3; i++ {
				stepFor(t, r.cell, 18*time.Millisecond)
				if s := tbfStates(r); npolls() > 0 && (len(s) != 1 || s[0] != pcu.TBFFinished) {
					t.Fatalf("after %d polls: TBF states %v, want FINISHED", npolls(), s)
				}
			}
			r.cell.DLLoss = 0
			for i := 0; i < 2000 && got == 0; i++ {
				stepFor(t, r.cell, 18*time.Millisecond)
			}
			stepFor(t, r.cell, 100*time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			if got != 1 || len(polls) != 4 {
				t.Fatalf("frames %d, polled data blocks %+v (want 1 frame, 4 polls)", got, polls)
			}
			for i, p := range polls {
				if p.bsn != 0 || !p.fbi || p.tfi != polls[0].tfi {
					t.Fatalf("poll %d: %+v, want the final block BSN 0 again", i, p)
				}
				if i == 0 {
					continue
				}
				if d := (p.fn - polls[i-1].fn + pcuif.MaxFN) % pcuif.MaxFN; d < c.minF || d > c.maxF {
					t.Fatalf("poll %d %d frames after the previous one, want %d..%d", i, d, c.minF, c.maxF)
				}
			}
			if s := tbfStates(r); len(s) != 1 || s[0] != pcu.TBFWaitRelease {
				t.Fatalf("after the answered poll: %v, want WAIT_RELEASE", s)
			}
			for _, cv := range []struct {
				ctr  int
				want uint64
			}{{pcu.CtrPktDLAckNackTimeout, 3}, {pcu.CtrRLCRestarted, 3}, {pcu.CtrRLCResent, 3},
				{pcu.CtrPktDLAckNackFailed, 0}, {pcu.CtrImmAssDL, 1}} {
				if v := r.btsCtr(cv.ctr); v != cv.want {
					t.Errorf("%s = %d, want %d", pcu.BTSCounterDescs[cv.ctr].Name, v, cv.want)
				}
			}
		})
	}
}
