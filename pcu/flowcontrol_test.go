package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestFlowControlMeasured: FLOW-CONTROL-BVC's leak rate is the peak rate
// (PDCHs x CS-4 at 2500 octets/s) while nothing was delivered, and once
// an MS acknowledged blocks, osmo-pcu's blend of the measured rate
// (octets per acknowledged block x 50 x PDCHs) and the peak rate, weighted
// by the share of blocks that delivered data (osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_tx_fc_bvc()); the
// BVC Measurement is the mean sojourn of the frames sent. The measurement
// starts again after each FLOW-CONTROL-BVC.
func TestFlowControlMeasured(t *testing.T) {
	e, bts := benchEngine(t)
	if p := e.flowParams(bts); p.LeakOctetsPerS != 8*2500 {
		t.Fatalf("idle cell: leak %d, want 8 PDCHs x 2500", p.LeakOctetsPerS)
	}
	m := e.newMS(bts, 0xc0000001)
	dl := flowingDL(e, m, 0, 0, 3, rlcmac.CS4)
	frame := make([]byte, 400)
	frame[0], frame[1] = 0x03, 0xc0
	m.Queue.Enqueue(e.now, frame, 0xffff)
	e.now += 300 * time.Millisecond // the frame waited 300 ms
	p := &bts.TRX[0].PDCH[3]
	fn := uint32(0)
	for i := 0; i < 20; i++ { // 20 RTS: 9 carry the 400 octets (CS-4, 50 octets each)
		rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: 3, BlockNr: uint8(blockNr(fn))}
		e.schedule(bts, p, &rts)
		fn = nextBlockFN(fn)
	}
	sent := dl.dl.sw.VS()
	e.dlAckNack(dl, &rlcmac.AckNackDescription{SSN: uint8(sent), RBB: ^uint64(0)})
	if bts.fc.recvBlocks != uint64(sent) || bts.fc.recvBytes < 400 {
		t.Fatalf("measured %d blocks / %d octets, sent %d blocks", bts.fc.recvBlocks, bts.fc.recvBytes, sent)
	}
	rts, blocks, octets := bts.fc.rtsBlocks, bts.fc.recvBlocks, bts.fc.recvBytes
	usage := blocks * 1000 / rts
	measured := octets * 1000 * 8 / (20 * blocks)
	want := int((measured*usage + 8*2500*(1000-usage)) / 1000)
	got := e.flowParams(bts)
	if got.LeakOctetsPerS != want || got.LeakOctetsPerS >= 8*2500 {
		t.Fatalf("leak %d, want %d (usage %d permille, measured %d octets/s)", got.LeakOctetsPerS, want, usage, measured)
	}
	if got.QueueDelay != 300*time.Millisecond {
		t.Fatalf("queue delay %v, want 300ms", got.QueueDelay)
	}
	if again := e.flowParams(bts); again.LeakOctetsPerS != 8*2500 || again.QueueDelay != 0 {
		t.Fatalf("not restarted: %+v", again)
	}
}
