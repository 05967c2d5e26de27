package pcu

import "testing"

func TestBlockFN(t *testing.T) {
	fn := uint32(0)
	var seq []uint32
	for i := 0; i < 13; i++ {
		seq = append(seq, fn)
		fn = nextBlockFN(fn)
	}
	want := []uint32{0, 4, 8, 13, 17, 21, 26, 30, 34, 39, 43, 47, 52}
	for i := range want {
		if seq[i] != want[i] {
			t.Fatalf("block %d fn %d want %d", i, seq[i], want[i])
		}
	}
	if nextBlockFN(MaxFN-5) != 0 {
		t.Fatalf("wrap: %d", nextBlockFN(MaxFN-5))
	}
	if fnDelta(2, MaxFN-2) != 4 || fnDelta(MaxFN-2, 2) != -4 {
		t.Fatal("fnDelta wrap")
	}
}

func TestRRBP(t *testing.T) {
	// A DL block at B0 (fn 0): RRBP 0 -> 13 (B3), 1 -> 17, 2 -> 21, 3 -> 26.
	for rrbp, want := range []uint32{13, 17, 21, 26} {
		if got := rrbpFN(0, uint8(rrbp)); got != want {
			t.Fatalf("rrbp %d: %d want %d", rrbp, got, want)
		}
	}
	// From B2 (fn 8): 21, 26 (25 is idle -> 26), 30 (29 -> 30), 34.
	for rrbp, want := range []uint32{21, 26, 30, 34} {
		if got := rrbpFN(8, uint8(rrbp)); got != want {
			t.Fatalf("rrbp %d from 8: %d want %d", rrbp, got, want)
		}
	}
}

func TestRFN(t *testing.T) {
	// osmo-pcu tests/fn: cur 1320462, rfn 5066 -> 1320458.
	if got := rfnToFN(5066, 1320462); got != 1320458 {
		t.Fatalf("rfn: %d", got)
	}
}
