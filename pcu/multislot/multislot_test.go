package multislot

import (
	"math/bits"
	"testing"
)

// TestRow: rows of TS 45.002 Annex B Table B.1 and the class-12 default.
func TestRow(t *testing.T) {
	for class, want := range map[int]Class{
		1:  {Rx: 1, Tx: 1, Sum: 2, Tta: 3, Ttb: 2, Tra: 4, Trb: 2, Type: 1},
		12: {Rx: 4, Tx: 4, Sum: 5, Tta: 2, Ttb: 1, Tra: 2, Trb: 1, Type: 1},
		10: {Rx: 4, Tx: 2, Sum: 5, Tta: 3, Ttb: 1, Tra: 2, Trb: 1, Type: 1},
		13: {Rx: 3, Tx: 3, Tra: 3, Type: 2},
		18: {Rx: 8, Tx: 8, Tra: 0, Type: 2},
		29: {Rx: 8, Tx: 8, Tta: 2, Ttb: 1, Tra: 2, Trb: 1, Type: 1},
		33: {Rx: 5, Tx: 4, Sum: 6, Tta: 2, Ttb: 1, Tra: 1, Trb: 1, Type: 1},
		38: {Rx: 5, Tx: 4, Sum: 6, Tta: 2, Ttb: 1, Tra: 1, Trb: 1, Type: 1},
		45: {Rx: 6, Tx: 6, Sum: 7, Tta: 1, Ttb: 1, Tra: 1, Type: 1},
		0:  {Rx: 4, Tx: 4, Sum: 5, Tta: 2, Ttb: 1, Tra: 2, Trb: 1, Type: 1}, // unknown: 12
		46: {Rx: 4, Tx: 4, Sum: 5, Tta: 2, Ttb: 1, Tra: 2, Trb: 1, Type: 1},
	} {
		if got := *Row(class); got != want {
			t.Errorf("class %d: %+v, want %+v", class, got, want)
		}
	}
	if MaxDLSlots(12, 0) != 4 || MaxDLSlots(12, 2) != 3 || MaxDLSlots(29, 8) != 8 || MaxDLSlots(1, 1) != 1 ||
		MaxDLSlots(0, 0) != 4 || MaxDLSlots(10, 2) != 3 {
		t.Errorf("MaxDLSlots: %d %d %d %d %d %d", MaxDLSlots(12, 0), MaxDLSlots(12, 2), MaxDLSlots(29, 8), MaxDLSlots(1, 1),
			MaxDLSlots(0, 0), MaxDLSlots(10, 2))
	}
	if Window(6, 3) != 0b11000001 || Window(0, 8) != 0xff {
		t.Errorf("Window: %08b %08b", Window(6, 3), Window(0, 8))
	}
}

// idle scores a reservation on an idle TRX as osmo-pcu's capacity does:
// 32 per downlink slot and per common slot.
func idle(rx, tx uint8) int { return 32*bits.OnesCount8(rx) + 32*bits.OnesCount8(rx&tx) }

// TestSearch: the reservation of an MS alone on the TRX (osmo-pcu
// MslotTest, as pcu/alloc TestFindMultiSlots), and the holding constraints.
func TestSearch(t *testing.T) {
	for _, c := range []struct {
		avail  uint8
		class  int
		ul, dl uint8
	}{
		{0x1c, 12, 0b00011000, 0b00011100},
		{0x1c, 18, 0b00011100, 0b00011100},
		{0x81, 12, 0b00000001, 0b00000001},
		{0x81, 13, 0b10000001, 0b10000001},
		{0x81, 29, 0b00000001, 0b10000001},
	} {
		ul, dl, ok := Search(Row(c.class), c.avail, c.avail, 0, 0, idle)
		if !ok || ul != c.ul || dl != c.dl {
			t.Errorf("slots %08b class %d: UL %08b DL %08b %v, want UL %08b DL %08b", c.avail, c.class, ul, dl, ok, c.ul, c.dl)
		}
	}
	// a class-12 MS on 8 free slots: 4 downlink slots; holding TS 6 in
	// its common slots moves the windows there
	ul, dl, ok := Search(Row(12), 0xff, 0xff, 0, 0, idle)
	if !ok || bits.OnesCount8(dl) != 4 || bits.OnesCount8(ul&dl) == 0 {
		t.Fatalf("class 12, 8 slots: UL %08b DL %08b %v", ul, dl, ok)
	}
	ul, dl, ok = Search(Row(12), 0xff, 0xff, 1<<6, 0, idle)
	if !ok || ul&dl&(1<<6) == 0 {
		t.Fatalf("class 12 holding TS 6: UL %08b DL %08b %v", ul, dl, ok)
	}
	if _, _, ok := Search(Row(12), 0, 0, 0, 0, idle); ok {
		t.Fatal("a reservation without slots")
	}
}
