package pcu

import (
	"math/bits"

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
	if q.dir == DirDL {
		e.expireTFIHolds(q.bts)
	}
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
			if ts := placeUnknown(trx, q.dir); ts >= 0 {
				ul, dl = 1<<ts, 1<<ts
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
	if dir == DirDL && used|trx.dlTFIHeld != 0xffffffff {
		// a TFI an unsent IMMEDIATE ASSIGNMENT names only when no
		// other is free (holdTFI)
		used |= trx.dlTFIHeld
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
