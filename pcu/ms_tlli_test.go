package pcu

import (
	"encoding/binary"
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// labCell is the cell of tests/labnet: one TRX with PDCHs on TS 4-7,
// gopcu's default allocation (dynamic, no `multislot-class default`).
func labCell(t *testing.T) (*Engine, *BTS) {
	t.Helper()
	e, bts := fsmEngine(t, &fakeClock{}, func(ii *pcuif.InfoInd) { ii.TRX[0].PDCHMask = 0xf0 })
	e.params.AllocAlgo = "dynamic"
	e.params.MultislotDefault = 0
	return e, bts
}

// onePhaseAccess is an MS's one-phase access (TS 44.060 §7.1.2.1): a
// RACH, the UL TBF on CCCH, and its first RLC data block carrying tlli,
// which resolves the contention. It returns the UL TBF.
func onePhaseAccess(t *testing.T, e *Engine, bts *BTS, tlli uint32) *TBF {
	t.Helper()
	before := map[*TBF]bool{}
	for _, x := range bts.tbfs {
		before[x] = true
	}
	e.onRACH(bts, &pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x78, FN: 0})
	var ul *TBF
	for _, x := range bts.tbfs {
		if x.dir == DirUL && !before[x] {
			ul = x
		}
	}
	if ul == nil {
		t.Fatal("no UL TBF for the RACH")
	}
	e.fire(ul, timeoutEv(tmX2002))
	unit := make([]byte, rlcmac.CS1.DataLen())
	binary.BigEndian.PutUint32(unit, tlli)
	var blk [rlcmac.MaxBlockLen]byte
	n, err := rlcmac.EncodeGPRSUL(blk[:], rlcmac.CS1, &rlcmac.GPRSULHeader{CV: 15, TFI: ul.tfi, TI: true, E: true}, unit)
	if err != nil {
		t.Fatal(err)
	}
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TRX: 0, TS: uint8(lowestSlot(ul.slots)), ARFCN: 871, Payload: blk[:n], LqualCb: 100})
	if ul.ms.TLLI != tlli {
		t.Fatalf("UL TBF's MS has TLLI %08x, want %08x", ul.ms.TLLI, tlli)
	}
	return ul
}

// TestTLLIChangeKeepsMultislot: the sequence of tests/labnet's Routing
// Area Update (the MS's second TLLI change). The MS (IMSI known, class 10)
// has a DL TBF on TS 4-7 that has just ended (WAIT_RELEASE, T3193). It
// moves to its new local TLLI: a one-phase access creates a new MS object
// (class unknown, one UL slot on CCCH), whose first block names the new
// TLLI; then the SGSN's next DL-UNITDATA (new TLLI, IMSI) merges the two
// objects, and the MS gets a DL TBF on the UL TBF's PACCH.
//
// gopcu gave that DL TBF TS 4 alone, and kept it for the whole download:
// the reservation for the now known class 10 also had to hold the old DL
// TBF's slots (TS 4-7 around an uplink on TS 6, which mergeMS had moved
// over), impossible together with the new UL TBF's TS 4, so the one-slot
// reservation of the unknown class stayed. And that one slot was TS 4,
// where class 10 receives on 2 slots at most (TS 45.002 Annex B: Ttb and
// Tra around the uplink slot). osmo-pcu 1.1.0 reserves for its default
// class 12 at the access (UL TS 5-6, DL TS 4-6 here: the old MS's
// reservation still counts), puts the UL TBF on the least busy common TS
// (5) and gives the DL TBF the reserved TS 4-6. gopcu places the one slot
// in the same reservation, on the common TS around which class 12 receives
// on the most slots (6: TS 4-7), and the DL TBF gets class 10's TS 4-7.
func TestTLLIChangeKeepsMultislot(t *testing.T) {
	e, bts := labCell(t)
	const imsi = "901700000000001"
	const oldTLLI, newTLLI = 0xd88fca86, 0xe2b0bcee
	frame := []byte{0x41, 0xc0, 1, 2, 3}

	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: oldTLLI, IMSI: imsi, MSClass: 10, Lifetime: 0xffff, LLC: append([]byte(nil), frame...)})
	old := bts.ms.byTLLI[oldTLLI]
	if old == nil || old.DL == nil {
		t.Fatal("no DL TBF for the MS")
	}
	dl := old.DL
	// its multislot upgrade after the CCCH assignment, then the end
	e.fire(dl, timeoutEv(tmX2002))
	if popcount8(dl.slots) != 4 {
		t.Fatalf("first DL TBF on %08b, want TS 4-7", dl.slots)
	}
	old.Queue.Clear()
	drive(t, e, dl, TBFWaitRelease)

	ul := onePhaseAccess(t, e, bts, newTLLI)
	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: newTLLI, IMSI: imsi, Lifetime: 0xffff, LLC: append([]byte(nil), frame...)})
	ms := bts.ms.byTLLI[newTLLI]
	if ms == nil || ms.MSClass != 10 || bts.ms.byIMSI[imsi] != ms || ms.UL != ul {
		t.Fatalf("after the DL-UNITDATA for the new TLLI: MS %v (class %d), by IMSI %v, UL TBF kept %v",
			ms, ms.MSClass, bts.ms.byIMSI[imsi], ms.UL == ul)
	}
	if ms.DL == nil || ms.DL == dl {
		t.Fatalf("no new DL TBF for the MS (DL %v)", ms.DL)
	}
	if ul.slots != 1<<6 || ms.DL.slots != 0xf0 || ms.DL.ctrlTS != 6 {
		t.Fatalf("UL TBF on %08b, DL TBF on %08b (control TS %d); want TS 6 and TS 4-7 (control TS 6)", ul.slots, ms.DL.slots, ms.DL.ctrlTS)
	}
}

// TestSecondPhoneMultislot: tests/labnet's two phones (class 10, TS 4-7).
// Phone 0 downloads on TS 4-7 (uplink TS 6). Phone 1's one-phase access
// under its new TLLI (class unknown) gets one slot, then the SGSN's
// DL-UNITDATA with its class 10 (merging the object of its previous TLLI)
// a DL TBF on PACCH. gopcu put that one slot where a class-1 reservation
// had the most capacity (TS 4 here, TS 7 in the lab), around which class
// 10 receives on two slots or one: the phones' downloads took 33 s and
// 129 s. Now the slot goes where a class-12 reservation receives on the
// most slots, and phone 1 gets at least three too.
func TestSecondPhoneMultislot(t *testing.T) {
	e, bts := labCell(t)
	frame := []byte{0x41, 0xc0, 1, 2, 3}
	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: 0xd0000001, IMSI: "901700000000001", MSClass: 10, Lifetime: 0xffff, LLC: append([]byte(nil), frame...)})
	p0 := bts.ms.byTLLI[0xd0000001]
	e.fire(p0.DL, timeoutEv(tmX2002)) // the multislot upgrade
	if p0.DL.slots != 0xf0 {
		t.Fatalf("phone 0's DL TBF on %08b, want TS 4-7", p0.DL.slots)
	}
	// phone 1: its previous MS object (class 10) is idle, its new TLLI
	// comes with a one-phase access
	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: 0xd0000002, IMSI: "901700000000002", MSClass: 10, Lifetime: 0xffff, LLC: append([]byte(nil), frame...)})
	old := bts.ms.byTLLI[0xd0000002]
	old.Queue.Clear()
	e.fireRelease(old.DL, relNone)
	ul := onePhaseAccess(t, e, bts, 0xd0000003)
	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: 0xd0000003, IMSI: "901700000000002", Lifetime: 0xffff, LLC: append([]byte(nil), frame...)})
	p1 := bts.ms.byTLLI[0xd0000003]
	// the Packet Uplink Ack/Nack resolves the contention, then the DL TBF
	// is assigned on the UL TBF's PACCH
	fn := uint32(0)
	for i := 0; i < 2 && p1 != nil && p1.DL == nil; i++ {
		scheduleOn(t, e, bts, ul.ctrlTS, &fn)
	}
	if p1 == nil || p1.DL == nil || p1.MSClass != 10 {
		t.Fatalf("phone 1 %v: DL %v, class %d; old %v by IMSI %v", p1, p1.DL, p1.MSClass, old, bts.ms.byIMSI["901700000000002"])
	}
	if n := popcount8(p1.DL.slots); n < 3 || p1.DL.slots&ul.slots != ul.slots {
		t.Fatalf("phone 1's DL TBF on %08b (%d slots), UL TBF on %08b; want at least 3 slots holding the UL TBF's", p1.DL.slots, n, ul.slots)
	}
	t.Logf("phone 0: DL %08b; phone 1: UL %08b, DL %08b", p0.DL.slots, ul.slots, p1.DL.slots)
}
