package alloc

import (
	"math/bits"

	"github.com/gopcu/gopcu/pcu/multislot"
)

// The TRX's side of algorithm B (TS 45.002 Annex B; osmo-pcu
// alloc_algo.cpp): which PDCHs a multislot MS can use together, the
// capacity a reservation would have, the search for the best one
// (multislot.Search over these), and where an MS of unknown class goes.

// placementClass is the class whose reservation places the one slot of an
// MS whose class is not known yet (Class gives it class 1): osmo-pcu's
// default class 12 (DEFAULT_MSLOT_CLASS, mslot_class.h). osmo-pcu reserves
// for that class and puts a one-phase access's UL TBF on a common TS of the
// reservation; gopcu places it where that class receives on the most
// slots (placeUnknown), with a reservation of that TS alone.
// When the class becomes known (the SGSN's MS Radio Access Capability, or
// the MS object of the subscriber's previous TLLI), the new reservation
// must hold that TS (the UL TBF's, where the MS reads its USF): placed
// there, a usual class receives on 4 slots around it; placed anywhere
// (TS 4 of TS 4-7, say) class 10 receives on 2 at most (TS 45.002 Annex B,
// its Ttb and Tra around the uplink slot).
const placementClass = 12

// placeUnknown is the TS for the one slot of an MS whose class is not
// known yet, placed where placementClass receives on many downlink slots
// and where few TBFs of direction dir are (for uplink: with a free USF).
// It takes the TS of the lowest cost, the TBFs on it plus the downlink
// slots it gives fewer than the best TS (of 8 PDCHs: 4 around TS 2-6, 3
// around TS 1 and 7, 2 around TS 0); on a tie the one with more downlink
// slots, then the lowest. A lone phone so gets the widest window (in
// tests/labnet, a phone whose uplink TBF went to TS 5 of TS 4-7 received
// on 3 slots instead of 4), and a TS with k slots fewer takes an MS once
// it carries more than k TBFs fewer: 16 MSs on 8 PDCHs use TS 1-7, TS 0
// takes the 20th.
// The TS is not chosen from the capacity search (findMultiSlots) alone:
// these MSs reserve their one slot only, so that search hardly sees them
// and kept finding the window over the idle edge slots. 16 one-phase
// accesses on 8 PDCHs put 6 uplink TBFs on TS 2 and none on TS 0, 1 and 7
// (pcubench ul-bulk, 32 MSs on 2 x 8 PDCHs: 60 % of the radio blocks' USFs
// carried data, 84 % with osmo-pcu 1.1.0, which reserves the default class's whole
// window for such an MS and so spreads them).
func (t *TRX) placeUnknown(dir Dir) int {
	var rx [8]int
	maxRx := 0
	usable := t.multislotPDCHs(true)
	for ts := range 8 {
		if usable&(1<<ts) == 0 {
			continue
		}
		if dir == UL && !t.PDCH[ts].HasUSF {
			continue
		}
		if _, dl, ok := t.searchMultiSlots(multislot.Row(placementClass), 0, 0, 1<<ts, 0, rxCount); ok {
			rx[ts] = bits.OnesCount8(dl)
			maxRx = max(maxRx, rx[ts])
		}
	}
	best, bestCost, bestRx := -1, 0, 0
	for ts := range 8 {
		if rx[ts] == 0 {
			continue
		}
		cost := t.PDCH[ts].load(dir) + maxRx - rx[ts]
		if best < 0 || cost < bestCost || cost == bestCost && rx[ts] > bestRx {
			best, bestCost, bestRx = ts, cost, rx[ts]
		}
	}
	return best
}

// leastBusy is the TS in mask with the fewest TBFs of direction dir (the
// lowest on a tie), -1 for an empty mask.
func (t *TRX) leastBusy(dir Dir, mask uint8) int {
	best, bestN := -1, 1<<30
	for ts := range 8 {
		if mask&(1<<ts) != 0 {
			if n := t.PDCH[ts].load(dir); n < bestN {
				best, bestN = ts, n
			}
		}
	}
	return best
}

// multislotPDCHs are the enabled PDCHs of a TRX usable together: a
// multislot MS needs one training sequence (TS 45.002 §6.4.2), so only
// PDCHs with the TSC of the lowest enabled one count.
func (t *TRX) multislotPDCHs(multi bool) uint8 {
	var m uint8
	tsc := -1
	for ts := range 8 {
		p := &t.PDCH[ts]
		if !p.Enabled {
			continue
		}
		if multi {
			if tsc < 0 {
				tsc = int(p.TSC)
			} else if int(p.TSC) != tsc {
				continue
			}
		}
		m |= 1 << ts
	}
	return m
}

// findMultiSlots is algorithm B's reservation (TS 45.002 Annex B, §6.4.2.2):
// over uplink windows of 1..Tx slots (TS order: size, then start) and
// downlink windows of min(Rx, Sum-Tx) slots, with the minimum slot
// distances of Tta/Trb or Ttb/Tra, it keeps the first pair of the highest
// capacity: every downlink slot counts max(32 - MSs reserving it, 1), every
// common slot with a free USF the same for uplink. A type 1 MS's windows
// do not wrap past TS 7, it transmits on at most 2 slots, and its common
// slots are min(Tx, Rx, 2); a type 2 MS's are min(Tx, Rx). ulIn/dlIn (0:
// any) limit the slots. Uplink TS n starts 3 timeslots after downlink TS n.
func (t *TRX) findMultiSlots(c *multislot.Class, ulIn, dlIn uint8) (ul, dl uint8, ok bool) {
	return t.findMultiSlotsHolding(c, ulIn, dlIn, 0, 0)
}

// findMultiSlotsHolding is findMultiSlots among the reservations whose
// common slots hold needCommon and whose downlink slots hold needDL.
func (t *TRX) findMultiSlotsHolding(c *multislot.Class, ulIn, dlIn, needCommon, needDL uint8) (ul, dl uint8, ok bool) {
	return t.searchMultiSlots(c, ulIn, dlIn, needCommon, needDL, capacity)
}

// rxCount scores a reservation by its downlink slots alone.
func rxCount(_ *TRX, rx, _ uint8) int { return bits.OnesCount8(rx) }

// searchMultiSlots is findMultiSlotsHolding keeping the first reservation
// of the highest score (> 0): multislot.Search over the TRX's PDCHs usable
// together.
func (t *TRX) searchMultiSlots(c *multislot.Class, ulIn, dlIn, needCommon, needDL uint8, score func(t *TRX, rx, tx uint8) int) (ul, dl uint8, ok bool) {
	usable := t.multislotPDCHs(max(c.Rx, c.Tx) > 1)
	if ulIn == 0 {
		ulIn = 0xff
	}
	if dlIn == 0 {
		dlIn = 0xff
	}
	return multislot.Search(c, ulIn&usable, dlIn&usable, needCommon, needDL,
		func(rx, tx uint8) int { return score(t, rx, tx) })
}

// capacity of a reservation: per downlink slot max(32 - MSs reserving it,
// 1), plus the same for uplink per common slot with a free USF.
func capacity(t *TRX, rx, tx uint8) int {
	n := 0
	for ts := range 8 {
		if rx&(1<<ts) == 0 {
			continue
		}
		n += max(32-int(t.Reserved.DL[ts]), 1)
		if tx&(1<<ts) != 0 && t.PDCH[ts].HasUSF {
			n += max(32-int(t.Reserved.UL[ts]), 1)
		}
	}
	return n
}
