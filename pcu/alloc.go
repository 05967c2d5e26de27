package pcu

import (
	"encoding/binary"
	"math/bits"
	"time"

	"github.com/gopcu/gopcu/rlcmac"
)

// Timeslot allocation (TS 45.002 Annex B; osmo-pcu alloc_algo.cpp), with osmo-pcu's observable
// behaviour:
//
//   - An MS holds a slot reservation while it has TBFs: a TRX, a set of
//     downlink and of uplink timeslots chosen for its multislot class, and
//     its first common timeslot (the lowest TS in both sets: the control
//     TS, PACCH, of its TBFs). Its TBFs take their slots out of the
//     reservation, which ends when its last TBF is freed. Each PDCH counts
//     the MSs that reserve it per direction.
//   - Algorithm A gives every TBF one timeslot, the least busy PDCH (TBFs
//     of both directions plus reservations) within what the MS already
//     uses. Counter tbf:alloc:algo-a.
//   - Algorithm B reserves, for an MS without reservation, the uplink and
//     downlink window that TS 45.002 Annex B allows its class and that has
//     the most free capacity, then gives a downlink TBF the whole downlink
//     reservation and an uplink TBF the reserved uplink slots that are
//     also downlink slots (where it can read its USF) and have a free USF;
//     a single-slot request (CCCH) gets one common TS (the MS's first
//     common TS, else the least busy). An MS of unknown class reserves
//     one slot, placed as osmo-pcu places it (placementClass); when its
//     class becomes known the reservation is made again for the class,
//     holding the slots of its running TBFs (not of a DL TBF that has
//     ended). Counter tbf:alloc:algo-b.
//   - dynamic (the default) uses B until B fails, then A until some PDCH
//     carries at most one downlink TBF again.
//
// Failures count tbf:alloc:failed; B also counts the cause (no_tfi,
// no_slot_combi, no_slot_avail, no_usf), also when dynamic then succeeds
// with A.

// msClass is a row of 3GPP TS 45.002 Annex B Table B.1: the maximum
// number of Rx, Tx and Rx+Tx slots (sum 0: no limit), the minimum numbers
// of slots Tta, Ttb, Tra, Trb, and the type (1: no simultaneous Tx and
// Rx; 2: full duplex).
type msClass struct{ rx, tx, sum, tta, ttb, tra, trb, typ uint8 }

// msClasses is Table B.1 for classes 1-45. The table's letters are taken
// as for a cell without frequency hopping and an MS without TA offset (as
// osmo-pcu does): Ttb a = 0, b = 1; Tra t0 = 1; Trb a = 0, c = 1, t0 = 0.
// Tta is not applicable to type 2 (0 here).
var msClasses = [46]msClass{
	{}, // 0: unknown, `multislot-class default` is used
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

func classRow(class int) *msClass {
	if class < 1 || class > 45 {
		class = 12
	}
	return &msClasses[class]
}

// maxDLSlots is the number of downlink slots a class can use while it also
// transmits on txSlots uplink slots.
func maxDLSlots(class, txSlots int) int {
	c := classRow(class)
	rx := int(c.rx)
	if c.sum > 0 && txSlots > 0 && rx+txSlots > int(c.sum) {
		rx = int(c.sum) - txSlots
	}
	return max(rx, 1)
}

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
// reservation; so does gopcu (widestCommon), with a reservation of that TS
// alone.
// When the class becomes known (the SGSN's MS Radio Access Capability, or
// the MS object of the subscriber's previous TLLI), the new reservation
// must hold that TS (the UL TBF's, where the MS reads its USF): placed
// there, a usual class receives on 4 slots around it; placed anywhere
// (TS 4 of TS 4-7, say) class 10 receives on 2 at most (TS 45.002 Annex B,
// its Ttb and Tra around the uplink slot).
const placementClass = 12

// widestCommon is the TS in mask around which placementClass receives on
// the most downlink slots (its best reservation holding that TS as a
// common slot), of those the least busy in direction dir, the lowest on a
// tie; -1 for an empty mask. osmo-pcu takes the least busy TS of the mask
// (get_single_ts): in tests/labnet a phone whose previous MS object still
// reserved TS 4-7 around an uplink TS 6 got its new slot on TS 5, where
// class 10 receives on TS 4-6 only, three slots instead of four.
func widestCommon(trx *TRX, dir Dir, mask uint8) int {
	best, bestRx, bestN := -1, -1, 0
	for ts := range 8 {
		if mask&(1<<ts) == 0 {
			continue
		}
		rx := 0
		if _, dl, ok := searchMultiSlots(trx, classRow(placementClass), 0, 0, 1<<ts, 0, rxCount); ok {
			rx = bits.OnesCount8(dl)
		}
		n := trx.PDCH[ts].load(dir)
		if rx > bestRx || rx == bestRx && n < bestN {
			best, bestRx, bestN = ts, rx, n
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

// allocReq is an allocation request: one TBF of an MS.
type allocReq struct {
	bts    *BTS
	ms     *MS
	dir    Dir
	single bool // one TS (an assignment on CCCH)
	useTRX int  // the TRX asked for, -1: any
}

// allocRes is the outcome of a successful allocation.
type allocRes struct {
	trx          int
	tfi          uint8
	slots        uint8 // the TBF's timeslots
	resUL, resDL uint8 // the MS's reservation
	first        int   // first common TS, the control TS
	usf          [8]uint8
	upgrade      bool // single slot given, the reservation has more (DL)
	algoA        bool
	class        uint8 // algorithm B: the class reserved for
}

// allocate runs the configured algorithm (`alloc-algorithm`, the first
// letter decides).
func (e *Engine) allocate(q *allocReq, r *allocRes) bool {
	e.adoptSlots(q.ms)
	algo := byte('d')
	if a := e.params.AllocAlgo; a != "" {
		algo = a[0]
	}
	switch algo {
	case 'a':
		return e.allocA(q, r)
	case 'b':
		return e.allocB(q, r)
	}
	bts := q.bts
	if bts.multislotOff && idlePDCH(bts) {
		bts.multislotOff = false
	}
	if !bts.multislotOff {
		if e.allocB(q, r) {
			return true
		}
		bts.multislotOff = true
	}
	return e.allocA(q, r)
}

// multislotEnabled reports whether the next allocation may be multislot:
// algorithm B, or dynamic while it uses B.
func (e *Engine) multislotEnabled(bts *BTS) bool {
	a := e.params.AllocAlgo
	switch {
	case a != "" && a[0] == 'a':
		return false
	case a != "" && a[0] == 'b':
		return true
	}
	return !bts.multislotOff || idlePDCH(bts)
}

// idlePDCH reports whether an enabled PDCH carries at most one DL TBF.
func idlePDCH(bts *BTS) bool {
	for t := range bts.TRX {
		for s := range bts.TRX[t].PDCH {
			if p := &bts.TRX[t].PDCH[s]; p.Enabled && len(p.dl) <= 1 {
				return true
			}
		}
	}
	return false
}

// allocA: one timeslot. TRX: the MS's, else the one asked for, else the
// first with an enabled PDCH and free TFIs in both directions. TS: the
// MS's first common TS, else one of its reserved common TSs, else any
// enabled; the least busy one (TBFs of both directions and reservations,
// +32 without a free TFI in the other direction) with a free USF for an
// uplink TBF. TFIs are unique per TRX and direction (osmo-pcu makes them
// unique per PDCH under algorithm A).
func (e *Engine) allocA(q *allocReq, r *allocRes) bool {
	*r = allocRes{first: -1}
	bts, ms := q.bts, q.ms
	ti := q.useTRX
	if ms.slots.on {
		ti = int(ms.slots.trx)
	}
	if ti < 0 || ti >= len(bts.TRX) {
		ti = -1
		for i := range bts.TRX {
			trx := &bts.TRX[i]
			if trx.enabledMask() != 0 && trx.ulTFI != 0xffffffff && trx.dlTFI != 0xffffffff {
				ti = i
				break
			}
		}
		if ti < 0 {
			return false
		}
	}
	trx := &bts.TRX[ti]
	mask := uint8(0xff)
	if fc := ms.slots.firstTS(); fc >= 0 {
		mask = 1 << fc
	} else if ms.slots.on && ms.slots.ul|ms.slots.dl != 0 {
		mask = ms.slots.ul & ms.slots.dl
	}
	mask &= trx.enabledMask()
	if mask == 0 {
		return false
	}
	tfi, ok := allocTFI(trx, q.dir)
	if !ok {
		return false
	}
	other := trx.ulTFI
	if q.dir == DirUL {
		other = trx.dlTFI
	}
	best, bestUse := -1, 1<<30
	var bestUSF uint8
	for ts := range 8 {
		if mask&(1<<ts) == 0 {
			continue
		}
		p := &trx.PDCH[ts]
		use := len(p.ul) + len(p.dl) + int(trx.slots.ul[ts]) + int(trx.slots.dl[ts])
		if other == 0xffffffff {
			use += 32
		}
		if use >= bestUse {
			continue
		}
		var usf uint8
		if q.dir == DirUL {
			if usf, ok = freeUSF(p); !ok {
				continue
			}
		}
		best, bestUse, bestUSF = ts, use, usf
	}
	if best < 0 {
		return false
	}
	r.trx, r.tfi, r.slots, r.first, r.algoA = ti, tfi, 1<<best, best, true
	r.resUL, r.resDL = 1<<best, 1<<best
	r.usf[best] = bestUSF
	return true
}

// tfiTRXForB picks the TRX and TFI for algorithm B: the MS's TRX (a
// different one asked for fails), else the one asked for, else the TRX
// with the most free TFIs in the direction (the first on a tie); the
// lowest free TFI.
func tfiTRXForB(q *allocReq) (int, uint8, bool) {
	bts, ms := q.bts, q.ms
	use := q.useTRX
	if ms.slots.on {
		if use >= 0 && use != int(ms.slots.trx) {
			return -1, 0, false
		}
		use = int(ms.slots.trx)
	}
	from, to := 0, len(bts.TRX)-1
	if use >= 0 && use < len(bts.TRX) {
		from, to = use, use
	}
	best, bestFree := -1, 0
	for i := from; i <= to; i++ {
		trx := &bts.TRX[i]
		if trx.enabledMask() == 0 {
			continue
		}
		used := trx.dlTFI
		if q.dir == DirUL {
			used = trx.ulTFI
		}
		if free := 32 - bits.OnesCount32(used); free > bestFree {
			best, bestFree = i, free
		}
	}
	if best < 0 {
		bts.Ctr.Inc(CtrTBFAllocFailedNoTFI)
		return -1, 0, false
	}
	tfi, _ := allocTFI(&bts.TRX[best], q.dir)
	return best, tfi, true
}

// allocB is algorithm B (multislot).
func (e *Engine) allocB(q *allocReq, r *allocRes) bool {
	*r = allocRes{first: -1}
	bts, ms := q.bts, q.ms
	ti, tfi, ok := tfiTRXForB(q)
	if !ok {
		return false
	}
	trx := &bts.TRX[ti]
	var resUL, resDL uint8
	if ms.slots.on {
		// PDCHs disabled since drop out of the reservation
		en := trx.enabledMask()
		resUL, resDL = ms.slots.ul&en, ms.slots.dl&en
	}
	class := e.allocClass(ms)
	if ms.slots.on && ms.slots.class != 0 && int(ms.slots.class) != class && resUL != 0 && resDL != 0 {
		// The class became known (MS Radio Access Capability in a
		// DL-UNITDATA or a Packet Resource Request) after the reservation
		// was made for another: reserve for it, if the new reservation
		// still holds the MS's TBFs (osmo-pcu keeps the old one; TTCN-3
		// TC_dl_multislot_tbf_ms_class_from_sgsn expects 8 slots for class
		// 18 after a one-phase access).
		if needC, needDL, ok := tbfSlots(ms, ti); ok {
			if ul, dl, ok := findMultiSlotsHolding(trx, classRow(class), 0, 0, needC, needDL); ok {
				resUL, resDL = ul, dl
			}
		}
	}
	if resUL == 0 || resDL == 0 {
		ul, dl, ok := findMultiSlots(trx, classRow(class), resUL, resDL)
		if !ok {
			bts.Ctr.Inc(CtrTBFAllocFailedNoSlotCombi)
			return false
		}
		if !e.classKnown(ms) && !ms.slots.on {
			// class 1's one slot, placed where a multislot class can
			// widen the reservation (placementClass)
			if pu, pd, ok := findMultiSlots(trx, classRow(placementClass), 0, 0); ok {
				if ts := widestCommon(trx, q.dir, pu&pd); ts >= 0 {
					ul, dl = 1<<ts, 1<<ts
				}
			}
		}
		resUL, resDL = ul, dl
	}
	sl := resDL
	if q.dir == DirUL {
		sl = resUL
	}
	if q.single {
		common := resDL & resUL
		ts := ms.slots.firstTS()
		if ts < 0 {
			ts = leastBusy(trx, q.dir, common)
		}
		sl = 0
		if ts >= 0 {
			sl = common & (1 << ts)
		}
	}
	if sl == 0 {
		bts.Ctr.Inc(CtrTBFAllocFailedNoSlotAvail)
		return false
	}
	ul, dl := resUL, resDL
	if q.dir == DirDL {
		dl = sl
		r.upgrade = q.single && bits.OnesCount8(resDL) > bits.OnesCount8(sl)
	} else {
		// an uplink TBF gets the slots where the MS also receives (its
		// USFs), each with a free USF
		ul = sl & resDL
		for ts := range 8 {
			if ul&(1<<ts) == 0 {
				continue
			}
			u, ok := freeUSF(&trx.PDCH[ts])
			if !ok {
				ul &^= 1 << ts
				continue
			}
			r.usf[ts] = u
		}
		if ul == 0 {
			bts.Ctr.Inc(CtrTBFAllocFailedNoUSF)
			return false
		}
		resUL = ul
	}
	if dl&ul == 0 {
		return false
	}
	r.trx, r.tfi, r.first = ti, tfi, bits.TrailingZeros8(dl&ul)
	if fc := ms.slots.firstTS(); fc >= 0 && dl&ul&(1<<fc) != 0 {
		// the MS's TBFs keep their control TS while it stays common
		// (a reservation made again for a class that became known can
		// add lower common slots)
		r.first = fc
	}
	r.slots = dl
	if q.dir == DirUL {
		r.slots = ul
	}
	r.resUL, r.resDL = resUL, resDL
	r.class = uint8(class)
	return true
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

func rotl8(x uint8, n int) uint8 { return bits.RotateLeft8(x, n&7) }

// window is n consecutive timeslots from TS start, wrapping after TS 7.
func window(start, n int) uint8 {
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
// of the highest score (> 0).
func searchMultiSlots(trx *TRX, c *msClass, ulIn, dlIn, needCommon, needDL uint8, score func(trx *TRX, rx, tx uint8) int) (ul, dl uint8, ok bool) {
	usable := multislotPDCHs(trx, max(c.rx, c.tx) > 1)
	if ulIn == 0 {
		ulIn = 0xff
	}
	if dlIn == 0 {
		dlIn = 0xff
	}
	ulAvail, dlAvail := ulIn&usable, dlIn&usable
	type1 := c.typ == 1
	bestCap := 0
	for ntx := 1; ntx <= int(c.tx); ntx++ {
		nrx := int(c.rx)
		if c.sum > 0 && int(c.sum)-ntx < nrx {
			nrx = int(c.sum) - ntx
		}
		// receive positions relative to the uplink start: [0] with the
		// distances Tta, Trb; [1] with Ttb, Tra
		rel := [2]uint8{0xff, 0xff}
		if type1 {
			rel[0] = rxRange(ntx, int(c.trb), int(max(c.tta, c.ttb)))
			rel[1] = rxRange(ntx, int(max(c.trb, c.tra)), int(c.ttb))
		}
		for u0 := range 8 {
			txWin := window(u0, ntx)
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
				rxWin := window(d0, nrx)
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
					if capa := score(trx, rx, tx); capa > bestCap {
						bestCap, ul, dl = capa, tx, rx
					}
				}
			}
		}
	}
	return ul, dl, bestCap > 0
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

// commitAlloc records an allocation in the MS (reservation, first common
// TS) and counts the algorithm.
func (e *Engine) commitAlloc(q *allocReq, r *allocRes) {
	ms := q.ms
	if !ms.slots.on || int(ms.slots.trx) != r.trx || ms.slots.ul != r.resUL || ms.slots.dl != r.resDL {
		e.setSlots(ms, r.trx, r.resUL, r.resDL)
	}
	ms.slots.first = uint8(r.first + 1)
	ms.slots.class = r.class
	if r.algoA {
		q.bts.Ctr.Inc(CtrTBFAllocAlgoA)
	} else {
		q.bts.Ctr.Inc(CtrTBFAllocAlgoB)
	}
}

// allocTFI takes the lowest free TFI of a direction on a TRX.
func allocTFI(trx *TRX, dir Dir) (uint8, bool) {
	used := trx.dlTFI
	if dir == DirUL {
		used = trx.ulTFI
	}
	if used == 0xffffffff {
		return 0, false
	}
	return uint8(bits.TrailingZeros32(^used)), true
}

// freeUSF finds the lowest free USF (0..6) on a PDCH.
func freeUSF(p *PDCH) (uint8, bool) {
	for u := uint8(0); u < 7; u++ {
		if p.usfOwner[u] == nil {
			return u, true
		}
	}
	return 0, false
}

func popcount8(x uint8) int { return bits.OnesCount8(x) }

// load is how busy a PDCH is for a direction (TBFs attached).
func (p *PDCH) load(dir Dir) int {
	if dir == DirUL {
		return len(p.ul)
	}
	return len(p.dl)
}

// allocUL allocates an uplink TBF: for a one-phase access (a new MS, the
// assignment goes on CCCH) on one timeslot; for an MS with a DL TBF (the
// request came in its DL Ack/Nack, the assignment goes on PACCH) like
// allocULSlots with multi.
func (e *Engine) allocUL(bts *BTS, ms *MS) (*TBF, error) {
	return e.allocULSlots(bts, ms, ms.DL != nil)
}

// allocULSlots allocates an uplink TBF; multi: assigned on PACCH, which
// can name several timeslots (osmo-pcu alloc_algo.cpp alloc_algorithm_b()).
func (e *Engine) allocULSlots(bts *BTS, ms *MS, multi bool) (*TBF, error) {
	q := allocReq{bts: bts, ms: ms, dir: DirUL, single: !multi, useTRX: -1}
	var r allocRes
	if !e.allocate(&q, &r) {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		return nil, errNoResource
	}
	e.commitAlloc(&q, &r)
	t := &TBF{dir: DirUL, ms: ms, bts: bts, trx: uint8(r.trx), tfi: r.tfi, slots: r.slots, ctrlTS: uint8(r.first),
		created: e.now, cs: ms.CSUL, puaTS: -1, ul: &ulTBF{usf: r.usf}}
	t.ul.rw.Reset(false, rlcmac.GPRSWS)
	t.ul.ub = make([]ulBlock, rlcmac.GPRSSNS)
	e.attach(t)
	e.tbfCounters(t)
	ms.UL = t
	ms.idleSince = -1
	bts.Ctr.Inc(CtrTBFULAlloc)
	return t, nil
}

// allocDL allocates a downlink TBF. single: one slot (a CCCH assignment;
// dlAssignSettled may then upgrade it to the MS's reservation); otherwise
// the MS's downlink reservation (algorithm B) or one slot (A).
func (e *Engine) allocDL(bts *BTS, ms *MS, single bool) (*TBF, error) {
	q := allocReq{bts: bts, ms: ms, dir: DirDL, single: single, useTRX: -1}
	var r allocRes
	if !e.allocate(&q, &r) {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		return nil, errNoResource
	}
	e.commitAlloc(&q, &r)
	t := &TBF{dir: DirDL, ms: ms, bts: bts, trx: uint8(r.trx), tfi: r.tfi, slots: r.slots, ctrlTS: uint8(r.first), created: e.now,
		cs: ms.CSDL, dl: &dlTBF{drained: -1}}
	e.setupDLWindow(t)
	e.attach(t)
	e.tbfCounters(t)
	setDrainRate(t)
	ms.DL = t
	ms.idleSince = -1
	bts.Ctr.Inc(CtrTBFDLAlloc)
	return t, nil
}

// chooseDLSlotsWith is the multislot upgrade of a DL TBF assigned on one
// slot (CCCH) while multislot allocation is on: the MS's downlink
// reservation. The control TS stays need (the slot the MS listens to,
// where the assignment goes) if it is a common slot, else it is the first
// common one. trx is the TBF's TRX; self is not used.
func (e *Engine) chooseDLSlotsWith(trx *TRX, ms *MS, need int, self *TBF) (uint8, uint8, bool) {
	_ = self
	if !e.multislotEnabled(ms.bts) || !ms.slots.on || int(ms.slots.trx) != int(trx.Nr) {
		return 0, 0, false
	}
	dl := ms.slots.dl & trx.enabledMask()
	c := dl & ms.slots.ul
	if c == 0 {
		return 0, 0, false
	}
	if need >= 0 && need < 8 && c&(1<<need) != 0 {
		return dl, uint8(need), true
	}
	return dl, uint8(bits.TrailingZeros8(c)), true
}

// egprsWS is the EGPRS window size for n slots (TS 44.060 §9.1.9; osmo-pcu tbf.cpp egprs_window_size()):
// min(n != 1 ? 128·n : 192, max(64, ⌊(base + n·pdch)/32⌋·32)).
func (e *Engine) egprsWS(n int) int {
	ws := max(64, (e.params.WSBase+n*e.params.WSPDCH)/32*32)
	lim := 192
	if n != 1 {
		lim = 128 * n
	}
	return min(ws, lim, 1024)
}

// setupDLWindow chooses GPRS or EGPRS for a DL TBF and sizes its window
// and retransmission store.
func (e *Engine) setupDLWindow(t *TBF) {
	t.egprs = t.ms.egprs(t.bts)
	ws := rlcmac.GPRSWS
	if t.egprs {
		ws = e.egprsWS(popcount8(t.slots))
		t.cs = t.ms.MCSDL
	}
	t.dl.sw.Reset(t.egprs, ws)
	n := 128
	for n < t.dl.sw.WS() {
		n *= 2
	}
	if len(t.dl.blk) != n {
		t.dl.blk = make([]dlBlock, n)
	}
}

// makeEGPRSUL turns a new UL TBF into an EGPRS one (11-bit EGPRS access):
// the MS's UL MCS from its last TBF's link adaptation (as osmo-pcu keeps it
// in the MS), else `mcs` UL or the INFO_IND, within `mcs max` UL; EGPRS
// window from `window-size`.
func (e *Engine) makeEGPRSUL(t *TBF) {
	t.egprs = true
	mcs := int(t.bts.Info.InitialMCS)
	if e.params.ForceMCSUL > 0 {
		mcs = e.params.ForceMCSUL
	}
	if t.ms.MCSUL.IsEGPRS() {
		mcs = int(t.ms.MCSUL-rlcmac.MCS1) + 1
	}
	t.cs = clampMCS(t.bts, mcs, e.params.MCSMaxUL)
	t.ms.MCSUL = t.cs
	ws := e.egprsWS(popcount8(t.slots))
	t.ul.rw.Reset(true, ws)
	n := 128
	for n < ws {
		n *= 2
	}
	t.ul.ub = make([]ulBlock, n)
}

// freqParams is the Frequency Parameters IE of Packet Uplink/Downlink
// Assignments for PDCH p: the ARFCN, or for a hopping PDCH direct encoding
// 1 with MAIO, HSN and the GPRS Mobile Allocation bitmap (the INFO_IND's
// right-aligned MA moved to the left, TS 44.060 §12.8, §12.10a).
func freqParams(trx *TRX, p *PDCH) rlcmac.FrequencyParameters {
	if !p.Hopping || p.MABitLen == 0 || p.MABitLen > 64 {
		return rlcmac.FrequencyParameters{TSC: p.TSC, Kind: 0, ARFCN: trx.ARFCN}
	}
	f := rlcmac.FrequencyParameters{TSC: p.TSC, Kind: 2, MAIO: p.MAIO, HSN: p.HSN, MALen: p.MABitLen}
	v := binary.BigEndian.Uint64(p.MA[:]) << (64 - uint(p.MABitLen))
	binary.BigEndian.PutUint64(f.MA[:], v)
	return f
}

// timeCC counts the time a condition holds in whole granules, as
// libosmocore's osmo_time_cc (time_cc.c) does for osmo-pcu's
// pdch:all_allocated with its defaults X16 = 1 s granularity, X17 = 0
// (an increment once half a granule has accumulated, ahead of time) and
// X18 = 60 s (remainders forgotten after that long without the condition).
type timeCC struct {
	started       bool
	flag          bool
	last          time.Duration // time counted up to
	sum, reported time.Duration
}

const (
	ccGranule = time.Second
	ccRound   = ccGranule / 2
	ccForget  = 60 * time.Second
)

// sample records the condition at now and returns the counter increment.
func (c *timeCC) sample(flag bool, now time.Duration) uint64 {
	if !c.started {
		c.started, c.last = true, now
	}
	if c.flag {
		c.sum += now - c.last
	} else if c.sum > 0 && now >= c.last+ccForget {
		c.sum, c.reported = 0, 0
	}
	c.last = now
	var n uint64
	if c.reported <= c.sum {
		d := c.sum - c.reported
		n = uint64(d / ccGranule)
		if d%ccGranule >= ccRound {
			n++
		}
		c.reported += time.Duration(n) * ccGranule
	}
	c.flag = flag
	return n
}

// allPDCHAllocated reports whether no enabled PDCH of the BTS can take
// another TBF: each has no free UL or DL TFI or no free USF (osmo-pcu
// bts_all_pdch_allocated, pdch_is_full; true without enabled PDCHs, as
// there).
func allPDCHAllocated(bts *BTS) bool {
	for t := range bts.TRX {
		trx := &bts.TRX[t]
		for ts := range trx.PDCH {
			p := &trx.PDCH[ts]
			if !p.Enabled {
				continue
			}
			if _, free := freeUSF(p); free && trx.ulTFI != 0xffffffff && trx.dlTFI != 0xffffffff {
				return false
			}
		}
	}
	return true
}

// sampleAllAllocated counts pdch:all_allocated, the seconds during which
// every enabled PDCH of a BTS was allocated; sampled every second, as
// osmo-pcu's update_stats_timer does (gprs_pcu.c).
func (e *Engine) sampleAllAllocated(now time.Duration) {
	for _, bts := range e.bts {
		if bts == nil || !bts.Active {
			continue
		}
		if n := bts.allAlloc.sample(allPDCHAllocated(bts), now); n > 0 {
			bts.Ctr.Add(CtrPDCHAllAllocated, n)
		}
	}
}
