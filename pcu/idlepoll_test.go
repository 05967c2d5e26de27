package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

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
	s := newSuiteBTS(t, func(ii *pcuif.InfoInd) { ii.TRX[0].PDCHMask = 0x80 })
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
