package alloc

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/multislot"
)

// The engine's tests (pcu/alloc_test.go) run the allocator with a BTS,
// MSs and TBFs against osmo-pcu's allocation results; these test its
// parts on a Cell built by hand.

// idleTRX is a TRX whose PDCHs in mask are enabled and carry no TBF.
func idleTRX(mask uint8) TRX {
	var t TRX
	for ts := range 8 {
		t.PDCH[ts] = PDCH{Enabled: mask&(1<<ts) != 0, HasUSF: true}
	}
	return t
}

// TestFindMultiSlots: algorithm B's reservation for an MS alone on the
// TRX (MslotTest, "sequential"), per set of enabled PDCHs and class.
func TestFindMultiSlots(t *testing.T) {
	for _, c := range []struct {
		pdch   uint8
		class  int
		ul, dl uint8
	}{
		{0x01, 1, 0b00000001, 0b00000001},
		{0x01, 4, 0b00000001, 0b00000001},
		{0x01, 10, 0b00000001, 0b00000001},
		{0x01, 12, 0b00000001, 0b00000001},
		{0x01, 13, 0b00000001, 0b00000001},
		{0x01, 14, 0b00000001, 0b00000001},
		{0x01, 18, 0b00000001, 0b00000001},
		{0x01, 23, 0b00000001, 0b00000001},
		{0x01, 29, 0b00000001, 0b00000001},
		{0x01, 33, 0b00000001, 0b00000001},
		{0x01, 38, 0b00000001, 0b00000001},
		{0x01, 45, 0b00000001, 0b00000001},
		{0x03, 1, 0b00000001, 0b00000001},
		{0x03, 4, 0b00000001, 0b00000011},
		{0x03, 10, 0b00000011, 0b00000011},
		{0x03, 12, 0b00000011, 0b00000011},
		{0x03, 13, 0b00000011, 0b00000011},
		{0x03, 14, 0b00000011, 0b00000011},
		{0x03, 18, 0b00000011, 0b00000011},
		{0x03, 23, 0b00000011, 0b00000011},
		{0x03, 29, 0b00000011, 0b00000011},
		{0x03, 33, 0b00000011, 0b00000011},
		{0x03, 38, 0b00000011, 0b00000011},
		{0x03, 45, 0b00000011, 0b00000011},
		{0x0f, 1, 0b00000001, 0b00000001},
		{0x0f, 4, 0b00000010, 0b00000111},
		{0x0f, 10, 0b00000100, 0b00001111},
		{0x0f, 12, 0b00000100, 0b00001111},
		{0x0f, 13, 0b00000111, 0b00000111},
		{0x0f, 14, 0b00001111, 0b00001111},
		{0x0f, 18, 0b00001111, 0b00001111},
		{0x0f, 23, 0b00000100, 0b00001111},
		{0x0f, 29, 0b00000100, 0b00001111},
		{0x0f, 33, 0b00001100, 0b00001111},
		{0x0f, 38, 0b00001100, 0b00001111},
		{0x0f, 45, 0b00001100, 0b00001111},
		{0x1f, 1, 0b00000001, 0b00000001},
		{0x1f, 4, 0b00000010, 0b00000111},
		{0x1f, 10, 0b00000100, 0b00001111},
		{0x1f, 12, 0b00000100, 0b00001111},
		{0x1f, 13, 0b00000111, 0b00000111},
		{0x1f, 14, 0b00001111, 0b00001111},
		{0x1f, 18, 0b00011111, 0b00011111},
		{0x1f, 23, 0b00000100, 0b00001111},
		{0x1f, 29, 0b00000100, 0b00001111},
		{0x1f, 33, 0b00001000, 0b00011111},
		{0x1f, 38, 0b00001000, 0b00011111},
		{0x1f, 45, 0b00011000, 0b00011111},
		{0xff, 1, 0b00000001, 0b00000001},
		{0xff, 4, 0b00000010, 0b00000111},
		{0xff, 10, 0b00000100, 0b00001111},
		{0xff, 12, 0b00000100, 0b00001111},
		{0xff, 13, 0b00000111, 0b00000111},
		{0xff, 14, 0b00001111, 0b00001111},
		{0xff, 18, 0b11111111, 0b11111111},
		{0xff, 23, 0b00000100, 0b00001111},
		{0xff, 29, 0b00000001, 0b11000011},
		{0xff, 33, 0b00001000, 0b00011111},
		{0xff, 38, 0b00001000, 0b00011111},
		{0xff, 45, 0b00010000, 0b00111111},
		{0xf0, 1, 0b00010000, 0b00010000},
		{0xf0, 4, 0b00100000, 0b01110000},
		{0xf0, 10, 0b01000000, 0b11110000},
		{0xf0, 12, 0b01000000, 0b11110000},
		{0xf0, 13, 0b01110000, 0b01110000},
		{0xf0, 14, 0b11110000, 0b11110000},
		{0xf0, 18, 0b11110000, 0b11110000},
		{0xf0, 23, 0b01000000, 0b11110000},
		{0xf0, 29, 0b01000000, 0b11110000},
		{0xf0, 33, 0b11000000, 0b11110000},
		{0xf0, 38, 0b11000000, 0b11110000},
		{0xf0, 45, 0b11000000, 0b11110000},
		{0xe0, 1, 0b00100000, 0b00100000},
		{0xe0, 4, 0b01000000, 0b11100000},
		{0xe0, 10, 0b11000000, 0b11100000},
		{0xe0, 12, 0b11000000, 0b11100000},
		{0xe0, 13, 0b11100000, 0b11100000},
		{0xe0, 14, 0b11100000, 0b11100000},
		{0xe0, 18, 0b11100000, 0b11100000},
		{0xe0, 23, 0b11000000, 0b11100000},
		{0xe0, 29, 0b11000000, 0b11100000},
		{0xe0, 33, 0b11000000, 0b11100000},
		{0xe0, 38, 0b11000000, 0b11100000},
		{0xe0, 45, 0b11000000, 0b11100000},
		{0x80, 1, 0b10000000, 0b10000000},
		{0x80, 4, 0b10000000, 0b10000000},
		{0x80, 10, 0b10000000, 0b10000000},
		{0x80, 12, 0b10000000, 0b10000000},
		{0x80, 13, 0b10000000, 0b10000000},
		{0x80, 14, 0b10000000, 0b10000000},
		{0x80, 18, 0b10000000, 0b10000000},
		{0x80, 23, 0b10000000, 0b10000000},
		{0x80, 29, 0b10000000, 0b10000000},
		{0x80, 33, 0b10000000, 0b10000000},
		{0x80, 38, 0b10000000, 0b10000000},
		{0x80, 45, 0b10000000, 0b10000000},
		{0x1c, 1, 0b00000100, 0b00000100},
		{0x1c, 4, 0b00001000, 0b00011100},
		{0x1c, 10, 0b00011000, 0b00011100},
		{0x1c, 12, 0b00011000, 0b00011100},
		{0x1c, 13, 0b00011100, 0b00011100},
		{0x1c, 14, 0b00011100, 0b00011100},
		{0x1c, 18, 0b00011100, 0b00011100},
		{0x1c, 23, 0b00011000, 0b00011100},
		{0x1c, 29, 0b00011000, 0b00011100},
		{0x1c, 33, 0b00011000, 0b00011100},
		{0x1c, 38, 0b00011000, 0b00011100},
		{0x1c, 45, 0b00011000, 0b00011100},
		{0x81, 1, 0b00000001, 0b00000001},
		{0x81, 4, 0b00000001, 0b00000001},
		{0x81, 10, 0b00000001, 0b00000001},
		{0x81, 12, 0b00000001, 0b00000001},
		{0x81, 13, 0b10000001, 0b10000001},
		{0x81, 14, 0b10000001, 0b10000001},
		{0x81, 18, 0b10000001, 0b10000001},
		{0x81, 23, 0b00000001, 0b00000001},
		{0x81, 29, 0b00000001, 0b10000001},
		{0x81, 33, 0b00000001, 0b00000001},
		{0x81, 38, 0b00000001, 0b00000001},
		{0x81, 45, 0b00000001, 0b00000001},
	} {
		trx := idleTRX(c.pdch)
		ul, dl, ok := trx.findMultiSlots(multislot.Row(c.class), 0, 0)
		if !ok || ul != c.ul || dl != c.dl {
			t.Errorf("PDCHs %08b class %d: UL %08b DL %08b ok %v, want UL %08b DL %08b", c.pdch, c.class, ul, dl, ok, c.ul, c.dl)
		}
	}
	// a multislot MS uses one training sequence: TS 2 has another TSC
	trx := idleTRX(0xff)
	trx.PDCH[2].TSC = 3
	if ul, dl, _ := trx.findMultiSlots(multislot.Row(12), 0, 0); (ul|dl)&(1<<2) != 0 {
		t.Errorf("TS with another TSC used: UL %08b DL %08b", ul, dl)
	}
}

// TestPlaceUnknown: the one slot of an MS of unknown class on PDCHs TS
// 2-5 (class 12 receives on 4 slots around TS 4, on 3 around TS 3 and 5,
// on 2 around TS 2). With the uplink TBFs the engine's
// TestUnknownClassPlacementEdges puts there (TS 4, 4, 3, 5, 4, 3), the
// downlink weighs the DL TBFs, not the UL ones; with no free USF on any
// PDCH there is no TS for an uplink TBF.
func TestPlaceUnknown(t *testing.T) {
	trx := idleTRX(0x3c)
	if ts := trx.placeUnknown(UL); ts != 4 {
		t.Fatalf("uplink on an idle TRX: TS %d, want 4", ts)
	}
	trx.PDCH[3].UL, trx.PDCH[4].UL, trx.PDCH[5].UL = 2, 3, 1
	if ts := trx.placeUnknown(UL); ts != 5 {
		t.Fatalf("uplink with 2, 3, 1 UL TBFs on TS 3-5: TS %d, want 5", ts)
	}
	if ts := trx.placeUnknown(DL); ts != 4 {
		t.Fatalf("downlink on an idle downlink: TS %d, want 4", ts)
	}
	trx.PDCH[4].DL = 1
	if ts := trx.placeUnknown(DL); ts != 4 {
		t.Fatalf("downlink with a DL TBF on TS 4: TS %d, want 4 (one TBF more, one slot more)", ts)
	}
	trx.PDCH[4].DL = 2
	if ts := trx.placeUnknown(DL); ts != 3 {
		t.Fatalf("downlink with two DL TBFs on TS 4: TS %d, want 3", ts)
	}
	for ts := range trx.PDCH {
		trx.PDCH[ts].HasUSF = false
	}
	if ts := trx.placeUnknown(UL); ts != -1 {
		t.Fatalf("uplink with every USF taken: TS %d, want none", ts)
	}
}

func TestClassAndAlgo(t *testing.T) {
	for _, c := range []struct {
		gprs, egprs, def int
		class            int
		known            bool
	}{
		{10, 12, 4, 10, true}, {0, 12, 4, 12, true}, {46, 0, 4, 4, true}, {0, 0, 0, 1, false}, {0, 0, 46, 1, false},
	} {
		if class, known := Class(c.gprs, c.egprs, c.def); class != c.class || known != c.known {
			t.Errorf("Class(%d, %d, %d) = %d, %v; want %d, %v", c.gprs, c.egprs, c.def, class, known, c.class, c.known)
		}
	}
	for s, want := range map[string]Algo{"a": AlgoA, "b": AlgoB, "dynamic": Dynamic, "": Dynamic, "x": Dynamic} {
		if got := ParseAlgo(s); got != want {
			t.Errorf("ParseAlgo(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestAllocateCauses: B's failure causes come back to be counted, also
// when dynamic then succeeds with A (and falls back to A until a PDCH
// carries at most one DL TBF); A's failures have none.
func TestAllocateCauses(t *testing.T) {
	var c Cell
	c.TRX[0] = idleTRX(0x80)
	q := Request{Dir: UL, TRX: -1, Class: 12, ClassKnown: true}
	var r Result
	c.TRX[0].PDCH[7].HasUSF = false
	if ok, cause := c.Allocate(AlgoB, &q, &r); ok || cause != NoUSF {
		t.Fatalf("B without a USF: %v %d, want no_usf", ok, cause)
	}
	if ok, cause := c.Allocate(AlgoA, &q, &r); ok || cause != NoCause {
		t.Fatalf("A without a USF: %v %d, want no cause", ok, cause)
	}
	c.TRX[0].PDCH[7].HasUSF = true
	c.TRX[0].DLTFI = allTFIs
	q.Dir = DL
	if ok, cause := c.Allocate(AlgoB, &q, &r); ok || cause != NoTFI {
		t.Fatalf("B without a DL TFI: %v %d, want no_tfi", ok, cause)
	}
	c.TRX[0].DLTFI = 0
	// the MS's uplink slot, TS 7, has another training sequence than TS
	// 6, the lowest PDCH: no multislot reservation holds it
	c.TRX[0].PDCH[6] = PDCH{Enabled: true, TSC: 3, HasUSF: true, DL: 2}
	c.TRX[0].PDCH[7].DL = 2
	q.MS = Reservation{On: true, UL: 1 << 7, First: 7 + 1}
	ok, cause := c.Allocate(Dynamic, &q, &r)
	if !ok || cause != NoSlotCombi || !r.AlgoA || r.Slots != 1<<7 || !c.MultislotOff {
		t.Fatalf("dynamic: %v %d %+v, multislot off %v; want A on TS 7 after B's no_slot_combi", ok, cause, r, c.MultislotOff)
	}
	if c.MultislotEnabled(Dynamic) {
		t.Fatal("multislot enabled with no idle PDCH")
	}
	c.TRX[0].PDCH[7].DL = 1
	if !c.MultislotEnabled(Dynamic) {
		t.Fatal("multislot disabled with an idle PDCH")
	}
}

// TestReserve: reservations are counted per TS and direction, once.
func TestReserve(t *testing.T) {
	var c Cell
	var a, b Reservation
	c.Reserve(&a, 1, 0b0100, 0b1110)
	c.Reserve(&b, 1, 0b0100, 0b0100)
	c.Commit(&a, &Result{TRX: 1, ResUL: 0b0100, ResDL: 0b1110, First: 2, Class: 12}) // unchanged: not counted again
	if n := c.TRX[1].Reserved; n.UL[2] != 2 || n.DL[1] != 1 || n.DL[2] != 2 || n.DL[3] != 1 || a.FirstTS() != 2 || a.Class != 12 {
		t.Fatalf("counts %+v, first TS %d class %d", n, a.FirstTS(), a.Class)
	}
	c.Release(&a)
	c.Unreserve(&b)
	c.Unreserve(&b)
	if c.TRX[1].Reserved != (Reserved{}) || a.On || a.First != 0 || b.On {
		t.Fatalf("after release: counts %+v, reservation %+v", c.TRX[1].Reserved, a)
	}
}

// TestAllAllocated: pdch:all_allocated counts whole seconds with the
// remainder rounded at half (libosmocore osmo_time_cc), from the first
// sample on.
func TestAllAllocated(t *testing.T) {
	var c Cell
	c.TRX[0] = idleTRX(0x80)
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	if c.AllAllocated() || c.SampleAllAllocated(sec(0)) != 0 {
		t.Fatal("an idle PDCH is allocated")
	}
	c.TRX[0].PDCH[7].HasUSF = false
	var n uint64
	for _, s := range []float64{1, 2, 3} {
		n += c.SampleAllAllocated(sec(s))
	}
	c.TRX[0].PDCH[7].HasUSF = true
	n += c.SampleAllAllocated(sec(3.6))
	if n != 3 {
		t.Fatalf("%d s counted for 2.6 s, want 3", n)
	}
	if got := c.SampleAllAllocated(sec(100)); got != 0 {
		t.Fatalf("%d s counted while not allocated", got)
	}
}
