package system

import (
	"testing"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestTimingAdvanceLoop: two MSs uploading on one PDCH get distinct Timing
// Advance Indices in their Immediate Assignments and their TA (from the
// RACH) in their PTCCH/D slots; when one MS's bursts start arriving two
// symbols late, its TA grows by 2 in the next PTCCH/D and Packet Uplink
// Ack/Nack, once (the loop waits for the MS to apply it), and the other
// MS's TA stays. osmo-pcu assigns no TAI and has no TA loop.
func TestTimingAdvanceLoop(t *testing.T) {
	info := btsemu.DefaultInfo(pcuif.V12)
	info.TRX[0].PDCHMask = 0x10 // TS 4 only
	r := startRadioInfo(t, info, bulkParams(), 21, 1)
	ms1 := r.cell.AddMS(0xc0004101, "901700000004101", 12)
	ms2 := r.cell.AddMS(0xc0004102, "901700000004102", 12)
	ms1.DistanceQbits, ms2.DistanceQbits = 40, 80 // TA 10 and 20
	for i := 0; i < 400; i++ {
		ms1.SendLLC(llcFrame(i, 1500))
		ms2.SendLLC(llcFrame(i, 1500))
	}
	step := func(n int, done func() bool) {
		t.Helper()
		for i := 0; i < n && !done(); i++ {
			r.step(t)
		}
	}
	step(2000, func() bool { return ms1.TAFromPTCCH() >= 0 && ms2.TAFromPTCCH() >= 0 })
	if ms1.TAI() < 0 || ms2.TAI() < 0 || ms1.TAI() == ms2.TAI() {
		t.Fatalf("TAIs %d and %d", ms1.TAI(), ms2.TAI())
	}
	if ms1.TA() != 10 || ms2.TA() != 20 || ms1.TAFromPTCCH() != 10 || ms2.TAFromPTCCH() != 20 {
		t.Fatalf("TA %d/%d, PTCCH/D %d/%d, want 10/20", ms1.TA(), ms2.TA(), ms1.TAFromPTCCH(), ms2.TAFromPTCCH())
	}
	ms1.DistanceQbits += 8 // two symbols further away
	step(2000, func() bool { return ms1.TAFromPTCCH() == 12 && ms1.TAFromAck() == 12 })
	if ms1.TAFromPTCCH() != 12 || ms1.TAFromAck() != 12 {
		t.Fatalf("after the drift: PTCCH/D %d, Packet Uplink Ack/Nack %d, want 12", ms1.TAFromPTCCH(), ms1.TAFromAck())
	}
	step(500, func() bool { return false })
	if ms1.TA() != 12 || ms2.TA() != 20 {
		t.Fatalf("TA settled at %d/%d, want 12/20", ms1.TA(), ms2.TA())
	}
	var updates uint64
	r.eng.Call(func() { updates = r.eng.L1Counters().Value(pcu.L1TALoopUpdates) })
	if updates != 1 {
		t.Fatalf("%d TA loop updates, want 1", updates)
	}
	// an access burst on PTCCH/U in MS2's sub-slot measures TA 15
	sub := [16]uint32{12, 38, 64, 90, 116, 142, 168, 194, 220, 246, 272, 298, 324, 350, 376, 402}[ms2.TAI()]
	fn := r.bts.FN()
	fn = fn - fn%416 + sub
	if err := r.bts.Send(&pcuif.RACHInd{SAPI: pcuif.SAPIPTCCH, FN: fn, QTA: 60, ARFCN: 871, TS: 4, BurstType: 1}); err != nil {
		t.Fatal(err)
	}
	step(500, func() bool { return ms2.TAFromPTCCH() == 15 })
	if ms2.TAFromPTCCH() != 15 || ms1.TAFromPTCCH() != 12 {
		t.Fatalf("after the PTCCH/U burst: PTCCH/D %d/%d, want 12/15", ms1.TAFromPTCCH(), ms2.TAFromPTCCH())
	}
}
