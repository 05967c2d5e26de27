package pcu

import (
	"math/bits"

	"github.com/gopcu/gopcu/pcu/multislot"
)

// Multislot classes and the per-MS slot reservation (TS 45.002 Annex B;
// osmo-pcu alloc_algo.cpp, gprs_ms.c): which timeslot sets a class may use,
// the search for the window with the most free capacity, and the
// reservation an MS holds while it has TBFs. The allocation algorithms
// that use them are in alloc.go.

// msClass is a row of TS 45.002 Annex B Table B.1 (pcu/multislot).
type msClass multislot.Class

// msClasses is Table B.1 for classes 1-45.
var msClasses = func() (t [46]msClass) {
	for i, c := range multislot.Table() {
		t[i] = msClass(c)
	}
	return t
}()

func classRow(class int) *msClass { return (*msClass)(multislot.Row(class)) }

// maxDLSlots is the number of downlink slots a class can use while it also
// transmits on txSlots uplink slots.
func maxDLSlots(class, txSlots int) int { return multislot.MaxDLSlots(class, txSlots) }

// msSlots is an MS's slot reservation (see the top of this file).
type msSlots struct {
	on     bool
	trx    uint8
	ul, dl uint8
	first  uint8 // first common TS + 1; 0: none
	class  uint8 // the multislot class algorithm B reserved for; 0: not B's
}

// allocClass is the multislot class algorithm B allocates for: the MS's
// GPRS class, else its EGPRS class (TS 45.002 Annex B has one table for
// both), else `multislot-class default` when it is configured, else
// class 1. A network that does not know an MS's class only knows that it
// receives and transmits on one timeslot (every row of TS 45.002 Table
// B.1 has Rx, Tx >= 1); osmo-pcu assumes its default class 12 (4 slots),
// which an MS of a lower class cannot use (TTCN-3
// TC_dl_multislot_tbf_ms_class_unknown expects 1 slot).
func (e *Engine) allocClass(ms *MS) int {
	switch {
	case ms.MSClass >= 1 && ms.MSClass <= 45:
		return ms.MSClass
	case ms.EGPRSClass >= 1 && ms.EGPRSClass <= 45:
		return ms.EGPRSClass
	case e.params.MultislotDefault >= 1 && e.params.MultislotDefault <= 45:
		return e.params.MultislotDefault
	}
	return 1
}

// placementClass is the class whose reservation places the one slot of an
// MS whose class is not known yet (allocClass gives it class 1): osmo-pcu's
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
func placeUnknown(trx *TRX, dir Dir) int {
	var rx [8]int
	maxRx := 0
	usable := multislotPDCHs(trx, true)
	for ts := range 8 {
		if usable&(1<<ts) == 0 {
			continue
		}
		if dir == DirUL {
			if _, ok := freeUSF(&trx.PDCH[ts]); !ok {
				continue
			}
		}
		if _, dl, ok := searchMultiSlots(trx, classRow(placementClass), 0, 0, 1<<ts, 0, rxCount); ok {
			rx[ts] = bits.OnesCount8(dl)
			maxRx = max(maxRx, rx[ts])
		}
	}
	best, bestCost, bestRx := -1, 0, 0
	for ts := range 8 {
		if rx[ts] == 0 {
			continue
		}
		cost := trx.PDCH[ts].load(dir) + maxRx - rx[ts]
		if best < 0 || cost < bestCost || cost == bestCost && rx[ts] > bestRx {
			best, bestCost, bestRx = ts, cost, rx[ts]
		}
	}
	return best
}

// classKnown reports whether allocClass has a class for the MS (its own,
// or `multislot-class default`) rather than its guess of class 1.
func (e *Engine) classKnown(ms *MS) bool {
	in := func(c int) bool { return c >= 1 && c <= 45 }
	return in(ms.MSClass) || in(ms.EGPRSClass) || in(e.params.MultislotDefault)
}

func (s *msSlots) firstTS() int { return int(s.first) - 1 }

// trxSlots counts, per TS, the MSs reserving it for uplink and downlink.
type trxSlots struct{ ul, dl [8]uint16 }

// setSlots makes (trx, ul, dl) the reservation of ms.
func (e *Engine) setSlots(ms *MS, trx int, ul, dl uint8) {
	e.unreserve(ms)
	ms.slots.on, ms.slots.trx, ms.slots.ul, ms.slots.dl = true, uint8(trx), ul, dl
	c := &ms.bts.TRX[trx].slots
	for ts := range 8 {
		if ul&(1<<ts) != 0 {
			c.ul[ts]++
		}
		if dl&(1<<ts) != 0 {
			c.dl[ts]++
		}
	}
}

func (e *Engine) unreserve(ms *MS) {
	s := &ms.slots
	if !s.on {
		return
	}
	c := &ms.bts.TRX[s.trx].slots
	for ts := range 8 {
		if s.ul&(1<<ts) != 0 && c.ul[ts] > 0 {
			c.ul[ts]--
		}
		if s.dl&(1<<ts) != 0 && c.dl[ts] > 0 {
			c.dl[ts]--
		}
	}
	s.on, s.ul, s.dl, s.class = false, 0, 0, 0
}

// releaseSlots ends the reservation of an MS that has no TBF left (or is
// freed), with its first common TS.
func (e *Engine) releaseSlots(ms *MS) {
	e.unreserve(ms)
	ms.slots.first = 0
}

// mergeSlots: the TBFs of old move to m (same subscriber): so does the
// reservation unless m has its own.
func (e *Engine) mergeSlots(m, old *MS) {
	if !m.slots.on && old.slots.on && m.bts == old.bts {
		m.slots, old.slots = old.slots, msSlots{}
		return
	}
	e.releaseSlots(old)
}

// adoptSlots gives an MS that took over a TBF of another MS object (its
// TLLI became known) a reservation built from that TBF: its slots in its
// direction, the other direction still open; its control TS is the first
// common TS.
func (e *Engine) adoptSlots(ms *MS) {
	if ms.slots.on {
		return
	}
	for _, t := range [2]*TBF{ms.UL, ms.DL} {
		if t == nil || !t.attached || t.slots == 0 {
			continue
		}
		if t.dir == DirUL {
			e.setSlots(ms, int(t.trx), t.slots, 0)
		} else {
			e.setSlots(ms, int(t.trx), 0, t.slots)
		}
		ms.slots.first = t.ctrlTS + 1
		return
	}
}

// tbfSlots is what a new reservation of ms on TRX trx must hold to keep
// its TBFs where they are: as common slots its first common TS and its
// uplink TBF's slots (it reads its USFs on the downlink), as downlink
// slots its downlink TBF's. ok=false: a TBF is on another TRX.
func tbfSlots(ms *MS, trx int) (common, dl uint8, ok bool) {
	if fc := ms.slots.firstTS(); fc >= 0 {
		common |= 1 << fc
	}
	if t := ms.UL; t != nil {
		if int(t.trx) != trx {
			return 0, 0, false
		}
		common |= t.slots
	}
	if t := ms.DL; t != nil && t.state != TBFWaitRelease && t.state != TBFReleasing {
		// a DL TBF that has ended (WAIT_RELEASE: kept only to carry the
		// next assignment on its PACCH; RELEASING) holds no slots: the
		// next DL TBF replaces it
		if int(t.trx) != trx {
			return 0, 0, false
		}
		dl |= t.slots
	}
	return common, dl, true
}

// leastBusy is the TS in mask with the fewest TBFs of direction dir (the
// lowest on a tie), -1 for an empty mask.
func leastBusy(trx *TRX, dir Dir, mask uint8) int {
	best, bestN := -1, 1<<30
	for ts := range 8 {
		if mask&(1<<ts) != 0 {
			if n := trx.PDCH[ts].load(dir); n < bestN {
				best, bestN = ts, n
			}
		}
	}
	return best
}

// multislotPDCHs are the enabled PDCHs of a TRX usable together: a
// multislot MS needs one training sequence (TS 45.002 §6.4.2), so only
// PDCHs with the TSC of the lowest enabled one count.
func multislotPDCHs(trx *TRX, multi bool) uint8 {
	var m uint8
	tsc := -1
	for ts := range 8 {
		p := &trx.PDCH[ts]
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
func findMultiSlots(trx *TRX, c *msClass, ulIn, dlIn uint8) (ul, dl uint8, ok bool) {
	return findMultiSlotsHolding(trx, c, ulIn, dlIn, 0, 0)
}

// findMultiSlotsHolding is findMultiSlots among the reservations whose
// common slots hold needCommon and whose downlink slots hold needDL.
func findMultiSlotsHolding(trx *TRX, c *msClass, ulIn, dlIn, needCommon, needDL uint8) (ul, dl uint8, ok bool) {
	return searchMultiSlots(trx, c, ulIn, dlIn, needCommon, needDL, capacity)
}

// rxCount scores a reservation by its downlink slots alone.
func rxCount(_ *TRX, rx, _ uint8) int { return bits.OnesCount8(rx) }

// searchMultiSlots is findMultiSlotsHolding keeping the first reservation
// of the highest score (> 0): multislot.Search over the TRX's PDCHs usable
// together.
func searchMultiSlots(trx *TRX, c *msClass, ulIn, dlIn, needCommon, needDL uint8, score func(trx *TRX, rx, tx uint8) int) (ul, dl uint8, ok bool) {
	usable := multislotPDCHs(trx, max(c.Rx, c.Tx) > 1)
	if ulIn == 0 {
		ulIn = 0xff
	}
	if dlIn == 0 {
		dlIn = 0xff
	}
	return multislot.Search((*multislot.Class)(c), ulIn&usable, dlIn&usable, needCommon, needDL,
		func(rx, tx uint8) int { return score(trx, rx, tx) })
}

// capacity of a reservation: per downlink slot max(32 - MSs reserving it,
// 1), plus the same for uplink per common slot with a free USF.
func capacity(trx *TRX, rx, tx uint8) int {
	n := 0
	for ts := range 8 {
		if rx&(1<<ts) == 0 {
			continue
		}
		n += max(32-int(trx.slots.dl[ts]), 1)
		if tx&(1<<ts) != 0 {
			if _, ok := freeUSF(&trx.PDCH[ts]); ok {
				n += max(32-int(trx.slots.ul[ts]), 1)
			}
		}
	}
	return n
}
