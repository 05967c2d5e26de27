package pcuif

import "testing"

// TestBlockFN walks every frame of a 52-multiframe: the block starts
// (TS 45.002 §6.3.2.2) have their block number and the next start after
// them, every other frame has none and leads to the next start; at the end
// of the hyperframe the blocks wrap to frame 0, and the signed distance
// and the sum wrap with them.
func TestBlockFN(t *testing.T) {
	starts := map[uint32]int{0: 0, 4: 1, 8: 2, 13: 3, 17: 4, 21: 5, 26: 6, 30: 7, 34: 8, 39: 9, 43: 10, 47: 11}
	for fn := uint32(52 * 7); fn < 52*8; fn++ {
		nr, isStart := starts[fn%52]
		if !isStart {
			nr = -1
		}
		next := fn + 1
		for _, ok := starts[next%52]; !ok; _, ok = starts[next%52] {
			next++
		}
		if BlockNr(fn) != nr || NextBlockFN(fn) != next {
			t.Fatalf("fn %d: block %d, next %d; want %d, %d", fn, BlockNr(fn), NextBlockFN(fn), nr, next)
		}
	}
	if NextBlockFN(MaxFN-5) != 0 || NextBlockFN(MaxFN-1) != 0 {
		t.Fatalf("wrap: %d %d", NextBlockFN(MaxFN-5), NextBlockFN(MaxFN-1))
	}
	if FNDelta(2, MaxFN-2) != 4 || FNDelta(MaxFN-2, 2) != -4 || FNAdd(MaxFN-2, 4) != 2 || FNAdd(2, -4) != MaxFN-2 {
		t.Fatal("FNDelta/FNAdd wrap")
	}
}
