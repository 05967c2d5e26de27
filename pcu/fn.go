package pcu

import "github.com/gopcu/gopcu/pcu/pcuif"

// TDMA frame arithmetic (TS 45.002), pcuif's (shared with the emulators)
// under the engine's names.

// MaxFN is the hyperframe length in TDMA frames.
const MaxFN = pcuif.MaxFN

// FramePeriod is one TDMA frame (120/26 ms).
const FramePeriod = pcuif.FramePeriod

// blockNr returns the block number (0..11) of a block-start FN, or -1.
func blockNr(fn uint32) int { return pcuif.BlockNr(fn) }

// nextBlockFN is the first FN of the block after the one starting at fn.
func nextBlockFN(fn uint32) uint32 { return pcuif.NextBlockFN(fn) }

// fnAdd adds frames modulo the hyperframe.
func fnAdd(fn uint32, d int) uint32 { return pcuif.FNAdd(fn, d) }

// fnDelta is a - b as a signed frame distance in (-MaxFN/2, MaxFN/2].
func fnDelta(a, b uint32) int { return pcuif.FNDelta(a, b) }

// ulBlockFN is the FN of the uplink block that a USF in the downlink block
// sent at fn grants: the next block period (TS 44.060 §10.4.1; osmo-pcu gprs_rlcmac_sched.cpp gprs_rlcmac_rcv_rts_block()).
func ulBlockFN(fn uint32) uint32 { return nextBlockFN(fn) }

// rrbpOffsets are the RRBP answer offsets in frames for codes 0..3 (TS
// 44.060 Table 10.4.5.1): N+13, N+17 or N+18, N+21 or N+22, N+26, the
// alternative taken when the first is not a block start.
func rrbpFN(fn uint32, rrbp uint8) uint32 {
	switch rrbp {
	case 0:
		return fnAdd(fn, 13)
	case 1:
		if f := fnAdd(fn, 17); blockNr(f) >= 0 {
			return f
		}
		return fnAdd(fn, 18)
	case 2:
		if f := fnAdd(fn, 21); blockNr(f) >= 0 {
			return f
		}
		return fnAdd(fn, 22)
	}
	return fnAdd(fn, 26)
}

// rfnToFN reconstructs a full FN from an RFN (FN mod 42432) as seen on
// RACH, relative to the current FN (osmo-pcu bts.cpp bts_rfn_to_fn()).
func rfnToFN(rfn, cur uint32) uint32 {
	const rfnMod = 42432
	rfn %= rfnMod
	base := cur - cur%rfnMod
	fn := base + rfn
	if int64(fn)-int64(cur) > rfnMod/2 {
		fn -= rfnMod
	} else if int64(cur)-int64(fn) > rfnMod/2 {
		fn += rfnMod
	}
	return fn % MaxFN
}
