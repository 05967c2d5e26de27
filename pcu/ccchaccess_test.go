package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

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
	s := newSuiteBTS(t, func(ii *pcuif.InfoInd) { ii.TRX[0].PDCHMask = 0x80 })
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
