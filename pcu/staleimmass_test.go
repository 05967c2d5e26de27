package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

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
	s := newSuiteBTS(t, func(ii *pcuif.InfoInd) { ii.TRX[0].PDCHMask = 0x80 })
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
	freeTFI := func(_ *TRX, d Dir) (uint8, bool) { return bts.allocCell().TRX[0].FreeTFI(allocDir(d)) }
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
