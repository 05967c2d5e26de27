package rlcmac

// Radio block timing on a PDCH (TS 45.002 §6.3.2.2, 52-multiframe: 12 radio
// blocks of 4 TDMA frames, idle/PTCCH frames at FN mod 13 == 12) and the
// RRBP polling offsets (TS 44.060 §10.4.5, Table 10.4.5.1).

// HyperFrame is the TDMA frame number modulus (2048 * 51 * 26).
const HyperFrame = 2715648

// IsBlockStart reports whether fn starts a radio block (FN mod 13 in {0, 4, 8}).
func IsBlockStart(fn uint32) bool {
	m := fn % 13
	return m == 0 || m == 4 || m == 8
}

// BlockNr returns the radio block number 0..11 within the 52-multiframe of a
// block-start FN (-1 otherwise).
func BlockNr(fn uint32) int {
	m := fn % 52
	q, r := m/13, m%13
	if r == 12 || r%4 != 0 {
		return -1
	}
	return int(q*3 + r/4)
}

// NextBlockFN returns the first block start after fn.
func NextBlockFN(fn uint32) uint32 {
	for i := uint32(1); i <= 5; i++ {
		if IsBlockStart(fn + i) {
			return (fn + i) % HyperFrame
		}
	}
	return (fn + 1) % HyperFrame
}

// PollFN returns the FN of the uplink block reserved by RRBP in a downlink
// block starting at fn: N+13, N+17 or N+18, N+21 or N+22, N+26 (the shorter
// offset when it lands on a block start).
func PollFN(fn uint32, rrbp uint8) uint32 {
	var off uint32
	switch rrbp & 3 {
	case 0:
		off = 13
	case 1:
		off = 17
	case 2:
		off = 21
	case 3:
		off = 26
	}
	if !IsBlockStart(fn + off) {
		off++
	}
	return (fn + off) % HyperFrame
}

// RRBPFor returns the RRBP code whose reserved block is at pollFN for a
// downlink block sent at fn, or ok false if no RRBP reaches it.
func RRBPFor(fn, pollFN uint32) (rrbp uint8, ok bool) {
	for r := uint8(0); r < 4; r++ {
		if PollFN(fn, r) == pollFN%HyperFrame {
			return r, true
		}
	}
	return 0, false
}
