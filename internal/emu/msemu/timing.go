package msemu

import (
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Frame number arithmetic (TS 45.002), mirrored from the BTS emulator:
// block frames, RRBP, starting times.

// reverse turns a TIMESLOT_ALLOCATION (bit 7 = TN 0) into a slot mask
// (bit n = TN n).
func reverse(x uint8) uint8 {
	var r uint8
	for i := 0; i < 8; i++ {
		if x&(0x80>>i) != 0 {
			r |= 1 << i
		}
	}
	return r
}

func ulBlockFN(fn uint32) uint32 { return btsemu.NextBlockFN(fn) }

// tbfWatchdogFrames is 5 s of frames (see beforeBlock).
const tbfWatchdogFrames = 5000 * 26 / 120

// t3190Frames is T3190, 5 s, in TDMA frames (TS 44.060 §13.1: the MS's
// wait for a valid downlink RLC data block of its TBF).
const t3190Frames = 5000 * 26 / 120

// t3192Frames is T3192's SI13 default, 1500 ms, in TDMA frames.
const t3192Frames = 1500 * 26 / 120

func rrbpFN(fn uint32, rrbp uint8) uint32 {
	add := func(d uint32) uint32 { return (fn + d) % pcuif.MaxFN }
	switch rrbp {
	case 0:
		return add(13)
	case 1:
		if f := add(17); btsemu.BlockNr(f) >= 0 {
			return f
		}
		return add(18)
	case 2:
		if f := add(21); btsemu.BlockNr(f) >= 0 {
			return f
		}
		return add(22)
	}
	return add(26)
}

// startFN finds the frame at or after from whose T1'/T3/T2 are given
// (TS 44.018 §10.5.2.38: the starting time is an RFN).
func startFN(from uint32, t1, t3, t2 uint8) uint32 {
	for d := uint32(0); d < 42432; d++ {
		f := (from + d) % pcuif.MaxFN
		a, b, c := rlcmac.StartingTimeFromFN(f)
		if a == t1 && b == t3 && c == t2 {
			return f
		}
	}
	return from
}
