package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestPollOnControlTS: a DL TBF polls only on its control TS. TBF A (TS 2
// and its control TS 3) is ahead in airtime of TBF B (TS 3 only), so by
// airtime alone B would take every block of TS 3 and A, sending on TS 2,
// would fill its whole window without a poll and stall (seen in the demo
// with two MSs: 64 blocks and 1.3 s between polls). A TBF due for a poll
// (20 blocks since the last) goes first on its control TS.
func TestPollOnControlTS(t *testing.T) {
	e, bts := benchEngine(t)
	frame := make([]byte, 1500)
	frame[0], frame[1] = 0x03, 0xc0
	tt := t
	mk := func(tlli uint32, slots, ctrl uint8, airtime uint64) *TBF {
		m := e.newMS(bts, tlli)
		t := &TBF{dir: DirDL, ms: m, bts: bts, trx: 0, tfi: uint8(tlli & 7), slots: slots, ctrlTS: ctrl, cs: rlcmac.CS2, dl: &dlTBF{drained: -1}}
		e.attach(t)
		e.setupDLWindow(t)
		t.dl.airtime = airtime
		m.DL = t
		drive(tt, e, t, TBFFlow)
		for i := 0; i < 20; i++ {
			m.Queue.Enqueue(e.now, frame, 0xffff)
		}
		return t
	}
	a := mk(0xc0000001, 1<<2|1<<3, 3, 1000)
	b := mk(0xc0000002, 1<<3, 3, 0)
	fn := uint32(0)
	maxDist := 0
	for i := 0; i < 200 && !a.dl.sw.Stalled(); i++ {
		for _, ts := range []uint8{2, 3} {
			rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: ts, BlockNr: uint8(blockNr(fn))}
			e.schedule(bts, &bts.TRX[0].PDCH[ts], &rts)
		}
		maxDist = max(maxDist, a.dl.sw.Distance())
		if a.dl.pollOut { // A's poll went out: the MS acknowledges everything
			a.dl.pollOut, a.dl.sincePoll = false, 0
			e.dlAckNack(a, &rlcmac.AckNackDescription{SSN: uint8(a.dl.sw.VS()), RBB: ^uint64(0)})
		}
		if b.dl.pollOut {
			b.dl.pollOut = false
			e.dlAckNack(b, &rlcmac.AckNackDescription{SSN: uint8(b.dl.sw.VS()), RBB: ^uint64(0)})
		}
		bts.TRX[0].PDCH[2].resv = bts.TRX[0].PDCH[2].resv[:0]
		bts.TRX[0].PDCH[3].resv = bts.TRX[0].PDCH[3].resv[:0]
		fn = nextBlockFN(fn)
	}
	if a.dl.sw.Stalled() || maxDist > 24 {
		t.Fatalf("TBF A went up to %d unacknowledged blocks (stalled %v): not polled on its control TS", maxDist, a.dl.sw.Stalled())
	}
}
