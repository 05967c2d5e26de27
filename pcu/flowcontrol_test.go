package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestFlowControlMeasured: FLOW-CONTROL-BVC's leak rate is the peak rate
// (PDCHs x CS-4 at 2500 octets/s) while nothing was delivered, and once
// an MS acknowledged blocks, osmo-pcu's blend of the measured rate and the
// peak rate, weighted by the share of the RTS blocks that were
// acknowledged or reported lost (osmo-pcu gprs_bssgp_pcu.c
// gprs_bssgp_tx_fc_bvc()). The measured rate is the data unit length of
// the acknowledged blocks over the acknowledged and lost blocks x 50 x
// PDCHs (tbf_dl.cpp analyse_errors()): a block counts whole whatever it
// carried, so a lossless cell is offered its peak rate even when its
// queues run short (the last block of a frame half empty), and losses
// lower it. The BVC Measurement is the mean sojourn of the frames sent.
// The measurement starts again after each FLOW-CONTROL-BVC.
func TestFlowControlMeasured(t *testing.T) {
	e, bts := benchEngine(t)
	const peak = 8 * 2500
	if p := e.flowParams(bts); p.LeakOctetsPerS != peak {
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
	rts := func(n int) {
		for i := 0; i < n; i++ {
			r := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: 3, BlockNr: uint8(blockNr(fn))}
			e.schedule(bts, p, &r)
			fn = nextBlockFN(fn)
		}
	}
	rts(20) // 9 blocks carry the 400 octets (CS-4, 50 octets each), the last one in part
	sent := dl.dl.sw.VS()
	e.dlAckNack(dl, &rlcmac.AckNackDescription{SSN: uint8(sent), RBB: ^uint64(0)})
	if bts.fc.recvBlocks != uint64(sent) || bts.fc.recvBytes != uint64(sent)*50 {
		t.Fatalf("measured %d blocks / %d octets, sent %d blocks of 50", bts.fc.recvBlocks, bts.fc.recvBytes, sent)
	}
	got := e.flowParams(bts)
	if got.LeakOctetsPerS != peak {
		t.Fatalf("lossless: leak %d, want the peak %d", got.LeakOctetsPerS, peak)
	}
	if got.QueueDelay != 300*time.Millisecond {
		t.Fatalf("queue delay %v, want 300ms", got.QueueDelay)
	}
	if again := e.flowParams(bts); again.LeakOctetsPerS != peak || again.QueueDelay != 0 {
		t.Fatalf("not restarted: %+v", again)
	}

	// 400 octets more; the MS reports the first two of the new blocks
	// missing, then all of them received
	m.Queue.Enqueue(e.now, frame, 0xffff)
	rts(20)
	vs := dl.dl.sw.VS()
	n := vs - sent
	e.dlAckNack(dl, &rlcmac.AckNackDescription{SSN: uint8(vs), RBB: ^uint64(0) &^ (3 << uint(n-2))})
	e.dlAckNack(dl, &rlcmac.AckNackDescription{SSN: uint8(vs), RBB: ^uint64(0)})
	blocks, octets, rtsN := uint64(n+2), uint64(n)*50, bts.fc.rtsBlocks
	if bts.fc.recvBlocks != blocks || bts.fc.recvBytes != octets {
		t.Fatalf("with 2 lost: measured %d blocks / %d octets, want %d / %d", bts.fc.recvBlocks, bts.fc.recvBytes, blocks, octets)
	}
	usage := blocks * 1000 / rtsN
	measured := octets * 1000 * 8 / (20 * blocks)
	want := int((measured*usage + peak*(1000-usage)) / 1000)
	if got := e.flowParams(bts); got.LeakOctetsPerS != want || got.LeakOctetsPerS >= peak {
		t.Fatalf("with 2 lost: leak %d, want %d (usage %d permille, measured %d octets/s)", got.LeakOctetsPerS, want, usage, measured)
	}
}

// TestFlowControlCodingScheme: FLOW-CONTROL-BVC's peak rate per PDCH is
// that of the coding scheme osmo-pcu's max_coding_scheme_dl() picks: with
// link adaptation the highest the cell allows within `cs max` / `mcs max`,
// without it the INFO_IND's initial one (gprs_bssgp_max_leak_rate(): data
// unit octets x units per block x 50 blocks/s).
func TestFlowControlCodingScheme(t *testing.T) {
	for _, c := range []struct {
		name             string
		csMask           uint8
		mcsMask          uint16
		initCS, initMCS  uint8
		adjust           bool
		csMax, mcsMax    int
		want             rlcmac.CodingScheme
		peakPerPDCHOctet int
	}{
		{"adaptation: the highest CS", 0x0f, 0, 2, 0, true, 4, 9, rlcmac.CS4, 2500},
		{"no adaptation: the initial CS", 0x0f, 0, 2, 0, false, 4, 9, rlcmac.CS2, 1500},
		{"cs max 3", 0x0f, 0, 1, 0, true, 3, 9, rlcmac.CS3, 1800},
		{"CS-3 not allowed", 0x0b, 0, 1, 0, true, 3, 9, rlcmac.CS2, 1500},
		{"EGPRS: the highest MCS", 0x0f, 0x1ff, 2, 6, true, 4, 9, rlcmac.MCS9, 7400},
		{"EGPRS, mcs max 6", 0x0f, 0x1ff, 2, 1, true, 4, 6, rlcmac.MCS6, 3700},
		{"EGPRS, no adaptation: the initial MCS", 0x0f, 0x1ff, 2, 6, false, 4, 9, rlcmac.MCS6, 3700},
	} {
		e, bts := benchEngine(t)
		bts.CSMask, bts.MCSMask = c.csMask, c.mcsMask
		bts.Info.InitialCS, bts.Info.InitialMCS = c.initCS, c.initMCS
		e.params.CSAdjust, e.params.CSMaxDL, e.params.MCSMaxDL = c.adjust, c.csMax, c.mcsMax
		if cs := e.fcCodingScheme(bts); cs != c.want {
			t.Errorf("%s: %v, want %v", c.name, cs, c.want)
		}
		n := max(bts.EnabledPDCHs(), 1)
		if p := e.flowParams(bts); p.LeakOctetsPerS != c.peakPerPDCHOctet*n {
			t.Errorf("%s: leak %d, want %d x %d PDCHs", c.name, p.LeakOctetsPerS, c.peakPerPDCHOctet, n)
		}
	}
}
