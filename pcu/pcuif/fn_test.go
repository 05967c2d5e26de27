package pcuif

import "testing"

// TestBlockFN: the block starts of a 52-multiframe, the wrap at the end
// of the hyperframe, the signed distance across it.
func TestBlockFN(t *testing.T) {
	fn := uint32(0)
	var seq []uint32
	for i := 0; i < 13; i++ {
		seq = append(seq, fn)
		fn = NextBlockFN(fn)
	}
	want := []uint32{0, 4, 8, 13, 17, 21, 26, 30, 34, 39, 43, 47, 52}
	for i := range want {
		if seq[i] != want[i] || BlockNr(want[i]) != i%12 {
			t.Fatalf("block %d fn %d want %d", i, seq[i], want[i])
		}
	}
	if BlockNr(12) != -1 || NextBlockFN(12) != 13 || NextBlockFN(MaxFN-5) != 0 {
		t.Fatalf("idle frame / wrap: %d %d %d", BlockNr(12), NextBlockFN(12), NextBlockFN(MaxFN-5))
	}
	if FNDelta(2, MaxFN-2) != 4 || FNDelta(MaxFN-2, 2) != -4 || FNAdd(MaxFN-2, 4) != 2 || FNAdd(2, -4) != MaxFN-2 {
		t.Fatal("FNDelta/FNAdd wrap")
	}
}
