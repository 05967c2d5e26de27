// Package multislot is the multislot side of 3GPP TS 45.002 Annex B for a
// PCU's allocator: the multislot class table (Table B.1) and the search for
// the uplink and downlink timeslot windows a class may use (algorithm B of
// osmo-pcu alloc_algo.cpp). It is pure: timeslot sets are uint8 masks (bit
// n: TS n), the load of the TRX is the caller's score function. The
// allocator, package pcu/alloc, runs algorithm B with it (pcu/alloc/slots.go).
package multislot

import "math/bits"

// Class is a row of 3GPP TS 45.002 Annex B Table B.1: the maximum
// number of Rx, Tx and Rx+Tx slots (sum 0: no limit), the minimum numbers
// of slots Tta, Ttb, Tra, Trb, and the type (1: no simultaneous Tx and
// Rx; 2: full duplex).
type Class struct{ Rx, Tx, Sum, Tta, Ttb, Tra, Trb, Type uint8 }

// table is Table B.1 for classes 1-45. The table's letters are taken
// as for a cell without frequency hopping and an MS without TA offset (as
// osmo-pcu does): Ttb a = 0, b = 1; Tra t0 = 1; Trb a = 0, c = 1, t0 = 0.
// Tta is not applicable to type 2 (0 here).
var table = [46]Class{
	{}, // 0: unknown (Row gives class 12)
	{1, 1, 2, 3, 2, 4, 2, 1}, {2, 1, 3, 3, 2, 3, 1, 1}, {2, 2, 3, 3, 2, 3, 1, 1}, {3, 1, 4, 3, 1, 3, 1, 1},
	{2, 2, 4, 3, 1, 3, 1, 1}, {3, 2, 4, 3, 1, 3, 1, 1}, {3, 3, 4, 3, 1, 3, 1, 1}, {4, 1, 5, 3, 1, 2, 1, 1},
	{3, 2, 5, 3, 1, 2, 1, 1}, {4, 2, 5, 3, 1, 2, 1, 1}, {4, 3, 5, 3, 1, 2, 1, 1}, {4, 4, 5, 2, 1, 2, 1, 1},
	// 13-18: type 2
	{3, 3, 0, 0, 0, 3, 0, 2}, {4, 4, 0, 0, 0, 3, 0, 2}, {5, 5, 0, 0, 0, 3, 0, 2},
	{6, 6, 0, 0, 0, 2, 0, 2}, {7, 7, 0, 0, 0, 1, 0, 2}, {8, 8, 0, 0, 0, 0, 0, 2},
	// 19-29: type 1 without Rx+Tx limit
	{6, 2, 0, 3, 1, 2, 1, 1}, {6, 3, 0, 3, 1, 2, 1, 1}, {6, 4, 0, 3, 1, 2, 1, 1}, {6, 4, 0, 2, 1, 2, 1, 1},
	{6, 6, 0, 2, 1, 2, 1, 1}, {8, 2, 0, 3, 1, 2, 1, 1}, {8, 3, 0, 3, 1, 2, 1, 1}, {8, 4, 0, 3, 1, 2, 1, 1},
	{8, 4, 0, 2, 1, 2, 1, 1}, {8, 6, 0, 2, 1, 2, 1, 1}, {8, 8, 0, 2, 1, 2, 1, 1},
	// 30-45
	{5, 1, 6, 2, 1, 1, 1, 1}, {5, 2, 6, 2, 1, 1, 1, 1}, {5, 3, 6, 2, 1, 1, 1, 1}, {5, 4, 6, 2, 1, 1, 1, 1},
	{5, 5, 6, 2, 1, 1, 1, 1}, {5, 1, 6, 2, 1, 1, 1, 1}, {5, 2, 6, 2, 1, 1, 1, 1}, {5, 3, 6, 2, 1, 1, 1, 1},
	{5, 4, 6, 2, 1, 1, 1, 1}, {5, 5, 6, 2, 1, 1, 1, 1}, {6, 1, 7, 1, 1, 1, 0, 1}, {6, 2, 7, 1, 1, 1, 0, 1},
	{6, 3, 7, 1, 1, 1, 0, 1}, {6, 4, 7, 1, 1, 1, 0, 1}, {6, 5, 7, 1, 1, 1, 0, 1}, {6, 6, 7, 1, 1, 1, 0, 1},
}

// Row is the row of class (1-45; any other: class 12, osmo-pcu's
// default), shared: callers must not modify it.
func Row(class int) *Class {
	if class < 1 || class > 45 {
		class = 12
	}
	return &table[class]
}

// Table is Table B.1, a copy (index 0: an unknown class, all zero).
func Table() [46]Class { return table }

// MaxDLSlots is the number of downlink slots a class can use while it
// also transmits on txSlots uplink slots.
func MaxDLSlots(class, txSlots int) int {
	c := Row(class)
	rx := int(c.Rx)
	if c.Sum > 0 && txSlots > 0 && rx+txSlots > int(c.Sum) {
		rx = int(c.Sum) - txSlots
	}
	return max(rx, 1)
}

func rotl8(x uint8, n int) uint8 { return bits.RotateLeft8(x, n&7) }

// Window is n consecutive timeslots from TS start, wrapping after TS 7.
func Window(start, n int) uint8 {
	if n >= 8 {
		return 0xff
	}
	return rotl8(uint8(1)<<n-1, start)
}

// rxRange is the set of positions p (timeslots counted from the start of
// the first uplink slot, in uplink timing) where a type 1 MS can receive
// around ntx uplink slots: at least trb (switch to Rx) after the last Tx
// slot and at least tt (switch to Tx) before the next frame's first one.
func rxRange(ntx, trb, tt int) uint8 {
	var m uint8
	for p := ntx + trb; p < 8-tt; p++ {
		m |= 1 << p
	}
	return m
}

// Search is algorithm B's reservation (TS 45.002 Annex B, §6.4.2.2) for
// an MS of class c: over uplink windows of 1..Tx slots (TS order: size,
// then start) and downlink windows of min(Rx, Sum-Tx) slots, with the
// minimum slot distances of Tta/Trb or Ttb/Tra, it keeps the first pair
// (ul, dl) of the highest score (> 0). A type 1 MS's windows do not wrap
// past TS 7, it transmits on at most 2 slots, and its common slots are
// min(Tx, Rx, 2); a type 2 MS's are min(Tx, Rx). ulAvail/dlAvail are the
// slots it may use, needCommon the slots its common slots must hold,
// needDL those its downlink slots must hold. Uplink TS n starts 3
// timeslots after downlink TS n. score rates a candidate (the caller's
// view of the TRX's load); Search keeps it no longer than the call.
func Search(c *Class, ulAvail, dlAvail, needCommon, needDL uint8, score func(rx, tx uint8) int) (ul, dl uint8, ok bool) {
	type1 := c.Type == 1
	bestCap := 0
	for ntx := 1; ntx <= int(c.Tx); ntx++ {
		nrx := int(c.Rx)
		if c.Sum > 0 && int(c.Sum)-ntx < nrx {
			nrx = int(c.Sum) - ntx
		}
		// receive positions relative to the uplink start: [0] with the
		// distances Tta, Trb; [1] with Ttb, Tra
		rel := [2]uint8{0xff, 0xff}
		if type1 {
			rel[0] = rxRange(ntx, int(c.Trb), int(max(c.Tta, c.Ttb)))
			rel[1] = rxRange(ntx, int(max(c.Trb, c.Tra)), int(c.Ttb))
		}
		for u0 := range 8 {
			txWin := Window(u0, ntx)
			if type1 && ntx < 8 && txWin&0x81 == 0x81 {
				continue
			}
			tx := txWin & ulAvail
			if tx&(1<<u0) == 0 || tx&(1<<((u0+ntx-1)&7)) == 0 {
				continue
			}
			ntxSlots := bits.OnesCount8(tx)
			var allowed [2]uint8
			for v := range 2 {
				allowed[v] = dlAvail
				if type1 {
					allowed[v] &= rotl8(rel[v], u0+3)
				}
			}
			for d0 := range 8 {
				rxWin := Window(d0, nrx)
				if type1 && nrx < 8 && rxWin&0x81 == 0x81 {
					continue
				}
				for v := range 2 {
					rx := allowed[v] & rxWin
					if rx == 0 {
						continue
					}
					nrxSlots := bits.OnesCount8(rx)
					common := min(ntxSlots, nrxSlots)
					if type1 {
						// at most 2 Tx slots; up to 6 slots in all the
						// distances Ttb/Tra apply, beyond Tta/Trb (as
						// osmo-pcu reads TS 45.002 Table 6.4.2.2.1)
						if ntxSlots >= 3 || (nrxSlots+ntxSlots <= 6) != (v == 1) {
							continue
						}
						common = min(common, 2)
					}
					if bits.OnesCount8(rx&tx) != common || rx&tx&needCommon != needCommon || rx&needDL != needDL {
						continue
					}
					if capa := score(rx, tx); capa > bestCap {
						bestCap, ul, dl = capa, tx, rx
					}
				}
			}
		}
	}
	return ul, dl, bestCap > 0
}
