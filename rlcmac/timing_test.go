package rlcmac

import "testing"

func TestPollFN(t *testing.T) {
	// Block starts 0, 4, 8 (mod 13). RRBP 1: +17 from 0 -> 17 (17 mod 13 = 4),
	// from 8 -> 25 (mod 13 = 12, idle) so +18 -> 26.
	for _, tc := range []struct {
		fn   uint32
		rrbp uint8
		want uint32
	}{
		{0, 0, 13}, {0, 1, 17}, {4, 1, 21}, {8, 1, 26}, {0, 2, 21}, {8, 2, 30}, {4, 2, 26}, {0, 3, 26}, {HyperFrame - 13, 0, 0},
	} {
		if got := PollFN(tc.fn, tc.rrbp); got != tc.want {
			t.Errorf("PollFN(%d, %d) = %d want %d", tc.fn, tc.rrbp, got, tc.want)
		}
		if !IsBlockStart(PollFN(tc.fn, tc.rrbp)) {
			t.Errorf("not a block start")
		}
		if r, ok := RRBPFor(tc.fn, tc.want); !ok || PollFN(tc.fn, r) != tc.want {
			t.Errorf("RRBPFor(%d, %d)", tc.fn, tc.want)
		}
	}
	if BlockNr(0) != 0 || BlockNr(4) != 1 || BlockNr(13) != 3 || BlockNr(47) != 11 || BlockNr(12) != -1 || BlockNr(5) != -1 {
		t.Fatal("BlockNr")
	}
	if NextBlockFN(8) != 13 || NextBlockFN(13) != 17 {
		t.Fatal("NextBlockFN")
	}
}

func TestRetxMCS(t *testing.T) {
	// Table 8.1.1.1/8.1.1.2 spot checks (osmo-pcu tbf_dl.cpp: an initial MCS-8 is resent as MCS-8).
	for _, tc := range []struct {
		init, cmd CodingScheme
		reseg     bool
		want      CodingScheme
	}{
		{MCS8, MCS8, true, MCS8}, {MCS8, MCS9, true, MCS8}, {MCS9, MCS1, true, MCS3}, {MCS9, MCS1, false, MCS6},
		{MCS7, MCS4, true, MCS2}, {MCS7, MCS4, false, MCS5}, {MCS4, MCS1, true, MCS1}, {MCS6, MCS9, false, MCS9},
		{CS2, MCS1, true, CS2},
	} {
		if got := RetxMCS(tc.init, tc.cmd, tc.reseg); got != tc.want {
			t.Errorf("%v->%v reseg=%v: %v want %v", tc.init, tc.cmd, tc.reseg, got, tc.want)
		}
	}
	if cs, pad := SingleUnitMCS(MCS8); cs != MCS6 || !pad {
		t.Fatal("MCS-8 single unit")
	}
}
