package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/rlcmac"
)

// Replays of the network side of incidents in the two-phone lab
// (docs/reliability.md), on one PDCH (TS 7) as there.

// TestKeptOpenDLNotStarved replays the network side of phone 0's outage
// in the two-phone lab (docs/reliability.md, "A phone whose idle downlink
// TBF starved"). Two MSs have a DL TBF on the same PDCH, its control TS.
// One downloads without pause; the other's queue drains, the MS
// acknowledges everything and its TBF is kept open (X2031). Keep-open
// blocks rank below new data, so on a PDCH where another TBF always has
// new data the idle TBF gets no block at all: the MS's T3190 (5 s, TS
// 44.060 §13.1, restarted by each data block) ends its TBF, and an MS in
// downlink transfer that wants to send can ask for an uplink TBF only in a
// DL Ack/Nack (§8.1.2.5), which needs a poll. A TBF without a poll for
// min(T3190/2, X2031) goes first on its control TS whether or not it has
// unacknowledged blocks (osmo-pcu gprs_rlcmac_sched.cpp
// tbf_compute_priority(): DL_PRIO_HIGH_AGE ranks above DL_PRIO_NEW_DATA):
// it gets a block with a poll in time.
func TestKeptOpenDLNotStarved(t *testing.T) {
	s := newSuiteBTS(t, pdchTS7)
	const busyTLLI, busyIMSI = 0xc1200001, "001010000001201"
	const idleTLLI, idleIMSI = 0xc1200002, "001010000001202"
	s.block()
	busy := s.dlOnPCH(busyTLLI, busyIMSI, pattern(1400, 1))
	idle := s.dlOnPCH(idleTLLI, idleIMSI, pattern(60, 2))
	if busy.ctrlTS != 7 || idle.ctrlTS != 7 {
		t.Fatalf("control TS %d and %d, want both 7", busy.ctrlTS, idle.ctrlTS)
	}
	win := map[*TBF]*rlcmac.ReceiveWindow{}
	for _, d := range []*TBF{busy, idle} {
		win[d] = &rlcmac.ReceiveWindow{}
		win[d].Reset(false, rlcmac.GPRSWS)
	}
	busyMS := s.bts.ms.byTLLI[busyTLLI]
	var busyBlocks, idlePollsAfterDrain int
	var maxGap time.Duration
	lastIdle := s.e.now // the idle MS's T3190 runs from its last data block
	for end := s.e.now + 8*time.Second; s.e.now < end && (idle.state == TBFFlow || idle.state == TBFFinished); {
		if busyMS.Queue.Len() < 2 && busyMS.DL == busy { // the SGSN keeps sending
			s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: busyTLLI, IMSI: busyIMSI, Lifetime: 65535, LLC: pattern(1400, 3)})
		}
		blk := s.rts(7)[7]
		var d *TBF
		var b rlcmac.GPRSDLBlock
		if bb, ok := dlData(t, blk, busy.tfi); ok {
			d, b = busy, bb
			busyBlocks++
		} else if bb, ok := dlData(t, blk, idle.tfi); ok {
			d, b = idle, bb
			maxGap = max(maxGap, s.e.now-lastIdle)
			lastIdle = s.e.now
		}
		if d != nil {
			rw := win[d]
			rw.Receive(int(b.Header.BSN))
			rw.RaiseVQ()
			if b.Header.SP {
				if d == idle && idle.dl.drained >= 0 && idle.dl.sw.CountUnacked() <= 1 {
					idlePollsAfterDrain++
				}
				final := b.Header.FBI && rw.Complete()
				s.answerPoll(d.tfi, b.Header.RRBP, rw, final)
			}
		}
		s.end()
		if (idle.state == TBFFlow || idle.state == TBFFinished) && s.e.now-lastIdle >= s.e.params.T3190 {
			t.Fatalf("no data block for the kept-open DL TBF (%s, %d unacknowledged, drained %v) for %v while the other MS got %d: "+
				"its T3190 (%v) ends it at the MS", idle.state, idle.dl.sw.CountUnacked(), idle.dl.drained >= 0,
				s.e.now-lastIdle, busyBlocks, s.e.params.T3190)
		}
	}
	if busyBlocks < 100 {
		t.Fatalf("the downloading MS got %d data blocks", busyBlocks)
	}
	if limit := s.e.highAge() + 100*time.Millisecond; maxGap > limit {
		t.Errorf("the kept-open DL TBF went %v without a block, want at most min(T3190/2, X2031) = %v and a block", maxGap, s.e.highAge())
	}
	t.Logf("longest gap %v, polls after drain %d, TBF %s", maxGap, idlePollsAfterDrain, idle.state)
	if idlePollsAfterDrain == 0 {
		t.Fatal("the kept-open DL TBF was never polled after its queue drained: its MS could not ask for an uplink TBF")
	}
}

// TestCCCHAccessEndsLeftDLTBF replays the aftermath of phone 0's outage
// in the two-phone lab (docs/reliability.md, "A phone whose idle downlink
// TBF starved"). The MS has a DL TBF it acknowledged; then it stops
// answering (its T3190 ended the TBF, TS 44.060 §13.1) and accesses the
// cell on CCCH (one-phase access, its TLLI in the first UL block), which
// an MS does only in packet idle mode (TS 44.018 §3.5.2.1.2). New DL data
// for it is waiting. The network's DL TBF is dead: it goes at once, its
// unacknowledged frames back to the queue, and once contention resolution
// is done they get a new DL TBF on the UL TBF's PACCH (osmo-pcu
// tbf_ul_fsm.c frees the MS's DL TBF at TBF_EV_FIRST_UL_DATA_RECVD). Kept to its timers it went on for N3105
// polls and T3195, 12 s in the lab, while the MS needed a new access for
// every UL frame.
func TestCCCHAccessEndsLeftDLTBF(t *testing.T) {
	s := newSuiteBTS(t, pdchTS7)
	const tlli, imsi = 0xc1300001, "001010000001301"
	s.block()
	first := pattern(1000, 1) // longer than the blocks before the first poll (20)
	old := s.dlOnPCH(tlli, imsi, first)
	m := s.bts.ms.byTLLI[tlli]
	var rw rlcmac.ReceiveWindow
	rw.Reset(false, rlcmac.GPRSWS)
	// the MS takes the blocks until it has answered a poll, then it is
	// gone; the SGSN sends more
	for i := 0; !old.dl.everAcked || len(s.ulq) > 0; i++ {
		if i > 100 {
			t.Fatal("the MS acknowledged nothing")
		}
		blk := s.rts(7)[7]
		if b, ok := dlData(t, blk, old.tfi); ok && !old.dl.everAcked && len(s.ulq) == 0 {
			rw.Receive(int(b.Header.BSN))
			rw.RaiseVQ()
			if b.Header.SP {
				s.answerPoll(old.tfi, b.Header.RRBP, &rw, false)
			}
		}
		s.end()
	}
	later := pattern(30, 0xa0)
	s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, IMSI: imsi, Lifetime: 65535, LLC: later})
	for i := 0; i < 10; i++ {
		s.block(7)
	}
	if old.state != TBFFlow || old.dl.sw.CountUnacked() == 0 {
		t.Fatalf("DL TBF %s with %d unacknowledged blocks, want FLOW with some", old.state, old.dl.sw.CountUnacked())
	}
	dropped, requeued := s.bts.Ctr.Value(CtrLLCFrameDropped), s.e.l1ctr.Value(L1LLCRequeued)

	// one-phase access: the first UL block carries the TLLI
	ul := s.oneUL()
	_, usf := s.waitUSF(ul) // on TS 7, the only PDCH
	var bsn uint8
	s.queueUL(7, 0, ulData(t, ul.tfi, &bsn, tlli))
	s.block(7)
	if !old.released() {
		t.Fatalf("after the MS's access on CCCH its DL TBF is %s, want freed", old.state)
	}
	if d, r := s.bts.Ctr.Value(CtrLLCFrameDropped)-dropped, s.e.l1ctr.Value(L1LLCRequeued)-requeued; d != 0 || r != 2 {
		t.Errorf("llc:dropped +%d, llc:requeued +%d: want both frames, sent and not acknowledged, back in the queue", d, r)
	}
	var dl *TBF
	for i := 0; dl == nil; i++ {
		if i > 100 {
			t.Fatalf("no DL TBF on the UL TBF's PACCH (MS DL %v)", m.DL)
		}
		blk := s.rts(7)[7]
		if h, msg := dlCtrl(t, blk); msg != nil {
			switch x := msg.(type) {
			case *rlcmac.PacketDownlinkAssignment:
				if x.ID.Kind == rlcmac.IDGlobalTFI && !x.ID.GlobalTFI.Downlink && x.ID.GlobalTFI.TFI == ul.tfi {
					dl = m.DL
					s.queueUL(7, rrbpFN(s.fn, h.RRBP), ctrlAck(t, tlli))
				}
			case *rlcmac.PacketUplinkAckNack:
				if h.SP {
					s.queueUL(7, rrbpFN(s.fn, h.RRBP), ctrlAck(t, tlli))
				}
			}
		}
		if usfOf(blk) == usf {
			s.queueUL(7, 0, ulData(t, ul.tfi, &bsn, tlli))
		}
		s.end()
	}
	if dl == nil || dl == old || dl.ccch || dl.assignOn != ul {
		t.Fatalf("DL TBF %v: want a new one assigned on the UL TBF's PACCH", dl)
	}
	s.firstDataIs(dl, first)
}

// TestUnsentDLImmAssHoldsTFI replays the network side of the two-phone
// lab stall (docs/reliability.md, "A phone that stalled on the real
// network"). DL data comes for an idle MS: its DL TBF is assigned in an
// IMMEDIATE ASSIGNMENT on PCH, which the BTS keeps for the MS's paging
// block (no DATA_CNF yet). Meanwhile the MS accesses (one-phase access)
// and identifies itself in its first UL block: the CCCH TBF is freed (the
// MS is on the PDCH and will not read the PCH) and, once contention
// resolution is done, a new DL TBF is assigned on the UL TBF's PACCH. The
// IMMEDIATE ASSIGNMENT is still to be sent, naming its TFI on its PDCH:
// an MS that acts on it there (one back in packet idle mode by then, or
// the emulated MS of the lab, which restarted its running TBF) must not
// find another TBF under that TFI. The TFI stays out of use until the BTS
// has sent the assignment (DATA_CNF) or CCCH-CNF passed; in the lab the
// new TBF got the same TFI 0 and the IMMEDIATE ASSIGNMENT came 720 ms
// later.
func TestUnsentDLImmAssHoldsTFI(t *testing.T) {
	s := newSuiteBTS(t, pdchTS7)
	const tlli, imsi = 0xdaa750db, "901700000000001"
	s.block()
	before := s.immAss()
	s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, IMSI: imsi, Lifetime: 65535, LLC: pattern(60, 1)})
	m := s.bts.ms.byTLLI[tlli]
	if s.immAss() != before+1 || m == nil || m.DL == nil || !m.DL.ccch {
		t.Fatal("no IMMEDIATE ASSIGNMENT on PCH for the DL data")
	}
	stale := m.DL
	staleTFI := stale.tfi

	// the MS accesses: one-phase, its first UL block carries its TLLI
	ul := s.oneUL()
	ts, usf := s.waitUSF(ul)
	var bsn uint8
	s.queueUL(ts, 0, ulData(t, ul.tfi, &bsn, tlli))
	var dl *TBF
	for i := 0; dl == nil; i++ {
		if i > 200 {
			t.Fatalf("no DL TBF on PACCH (MS DL %v)", m.DL)
		}
		blk := s.rts(ts)[ts]
		if h, msg := dlCtrl(t, blk); msg != nil {
			switch x := msg.(type) {
			case *rlcmac.PacketDownlinkAssignment:
				if !x.ID.GlobalTFI.Downlink && x.ID.GlobalTFI.TFI == ul.tfi && x.HasDownlinkTFI {
					dl = m.DL
					if dl == nil || dl.tfi != x.DownlinkTFI {
						t.Fatalf("Packet Downlink Assignment of DL TFI %d, the MS's DL TBF is %v", x.DownlinkTFI, dl)
					}
				}
			case *rlcmac.PacketUplinkAckNack:
				if h.SP {
					s.queueUL(ts, rrbpFN(s.fn, h.RRBP), ctrlAck(t, tlli))
				}
			}
		}
		if usfOf(blk) == usf {
			s.queueUL(ts, 0, ulData(t, ul.tfi, &bsn, tlli))
		}
		s.end()
	}
	if !stale.released() {
		t.Fatalf("the CCCH DL TBF is %s, want freed once the MS is on the PDCH", stale.state)
	}
	if dl.tfi == staleTFI && dl.slots&(1<<stale.ctrlTS) != 0 {
		t.Errorf("the DL TBF on PACCH got TFI %d on TS %d: the IMMEDIATE ASSIGNMENT still queued on PCH names them", dl.tfi, stale.ctrlTS)
	}

	// The BTS sends the old assignment now (DATA_CNF): nothing happens to
	// the new TBF, and the TFI is free again.
	st := dl.state
	s.e.dlImmAssConfirmed(s.bts, tlli)
	if dl.state != st || dl.released() {
		t.Errorf("the DATA_CNF of the old assignment moved the PACCH DL TBF from %s to %s", st, dl.state)
	}
	if trx := &s.bts.TRX[0]; trx.dlTFIHeld&(1<<staleTFI) != 0 {
		t.Errorf("TFI %d still held after the DATA_CNF", staleTFI)
	}
}

// TestTFIHoldAllocation: a held DL TFI (holdTFI) is skipped while another
// is free and taken as the last one; UL TFIs are not affected; the hold
// ends at CCCH-CNF or with the DATA_CNF for its TLLI.
func TestTFIHoldAllocation(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	trx := &bts.TRX[0]
	trx.dlTFIHeld = 1<<0 | 1<<2
	trx.dlHold[0] = tfiHold{tlli: 0xc0000001, until: time.Second}
	trx.dlHold[2] = tfiHold{tlli: 0xc0000002, until: 2 * time.Second}
	freeTFI := func(_ *TRX, d Dir) (uint8, bool) { return bts.allocCell().TRX[0].FreeTFI(d) }
	if tfi, ok := freeTFI(trx, DirDL); !ok || tfi != 1 {
		t.Errorf("DL TFI %d (%v), want 1: 0 and 2 are held", tfi, ok)
	}
	if tfi, ok := freeTFI(trx, DirUL); !ok || tfi != 0 {
		t.Errorf("UL TFI %d (%v), want 0", tfi, ok)
	}
	trx.dlTFI = ^uint32(1 << 2)
	if tfi, ok := freeTFI(trx, DirDL); !ok || tfi != 2 {
		t.Errorf("DL TFI %d (%v), want the held 2 as the only one left", tfi, ok)
	}
	trx.dlTFI = 0
	e.now = time.Second
	e.expireTFIHolds(bts)
	if trx.dlTFIHeld != 1<<2 {
		t.Errorf("held %#b after 1 s, want TFI 2 only", trx.dlTFIHeld)
	}
	e.releaseTFIHolds(bts, 0xc0000001)
	if trx.dlTFIHeld != 1<<2 {
		t.Errorf("held %#b after the DATA_CNF of another TLLI, want TFI 2", trx.dlTFIHeld)
	}
	e.releaseTFIHolds(bts, 0xc0000002)
	if trx.dlTFIHeld != 0 {
		t.Errorf("held %#b after its DATA_CNF, want none", trx.dlTFIHeld)
	}
}
