package pcuif

import "time"

// TDMA frame arithmetic (TS 45.002) the PCU and the emulators share. A
// radio block on a PDCH occupies four frames; the 52-multiframe holds
// blocks B0..B11 starting at these frames and idle/PTCCH frames 12, 25,
// 38, 51 (TS 45.002 §6.3.2.2).

// FramePeriod is one TDMA frame (120/26 ms).
const FramePeriod = 120 * time.Millisecond / 26

var blockStarts = [12]uint32{0, 4, 8, 13, 17, 21, 26, 30, 34, 39, 43, 47}

// BlockNr returns the block number (0..11) of a block-start FN, or -1.
func BlockNr(fn uint32) int {
	m := fn % 52
	for i, s := range blockStarts {
		if s == m {
			return i
		}
	}
	return -1
}

// NextBlockFN is the first FN of the block after the one starting at fn
// (for an fn that starts no block: the next block start).
func NextBlockFN(fn uint32) uint32 {
	n := BlockNr(fn)
	if n < 0 {
		for f := fn + 1; ; f++ {
			if BlockNr(f%MaxFN) >= 0 {
				return f % MaxFN
			}
		}
	}
	if n == 11 {
		return (fn + 5) % MaxFN
	}
	return (fn - blockStarts[n] + blockStarts[n+1]) % MaxFN
}

// FNAdd adds d frames to fn modulo the hyperframe.
func FNAdd(fn uint32, d int) uint32 { return uint32((int64(fn) + int64(d) + MaxFN) % MaxFN) }

// FNDelta is a - b as a signed frame distance in (-MaxFN/2, MaxFN/2].
func FNDelta(a, b uint32) int {
	d := (int64(a) - int64(b)) % MaxFN
	if d > MaxFN/2 {
		d -= MaxFN
	} else if d <= -MaxFN/2 {
		d += MaxFN
	}
	return int(d)
}
