// Package alloc is the engine's timeslot allocator (TS 45.002 Annex B;
// osmo-pcu alloc_algo.cpp): which TRX, timeslots (PDCHs), TFI and USFs a
// new TBF gets, the slot reservation an MS holds while it has TBFs, and
// the pdch:all_allocated statistic. It decides and counts only. It reads
// a Cell, the engine's view of one BTS, which the engine fills before
// each decision (package pcu, pcu/alloc.go), and returns a Result that
// the engine applies: it makes the TBF, records the MS's reservation
// (Cell.Commit) and counts. The package imports nothing of the engine;
// the multislot class table and the window search are pcu/multislot.
//
// The allocation has osmo-pcu's observable behaviour:
//
//   - An MS holds a slot reservation while it has TBFs: a TRX, a set of
//     downlink and of uplink timeslots chosen for its multislot class, and
//     its first common timeslot (the lowest TS in both sets: the control
//     TS, PACCH, of its TBFs). Its TBFs take their slots out of the
//     reservation, which ends when its last TBF is freed. Each PDCH counts
//     the MSs that reserve it per direction (TRX.Reserved).
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
// no_slot_combi, no_slot_avail, no_usf: Cause), also when dynamic then
// succeeds with A.
package alloc

import (
	"math/bits"

	"github.com/gopcu/gopcu/pcu/multislot"
)

// MaxTRX is the number of TRX of a BTS (as the PCU interface has them).
const MaxTRX = 8

// allTFIs is a TFI mask with all 32 TFIs of a direction in use.
const allTFIs = 0xffffffff

// Dir is a TBF's direction.
type Dir uint8

// Directions.
const (
	UL Dir = iota
	DL
)

func (d Dir) String() string {
	if d == UL {
		return "UL"
	}
	return "DL"
}

// PDCH is what the allocator reads of a PDCH.
type PDCH struct {
	Enabled bool
	TSC     uint8 // training sequence code
	UL, DL  int   // the TBFs using the PDCH, per direction
	USF     uint8 // the lowest USF (0..6) no UL TBF holds, if HasUSF
	HasUSF  bool
}

// load is how busy the PDCH is for a direction (TBFs attached).
func (p *PDCH) load(dir Dir) int {
	if dir == UL {
		return p.UL
	}
	return p.DL
}

// TRX is what the allocator reads of a TRX, and the reservations of its
// timeslots, which the allocator keeps.
type TRX struct {
	PDCH [8]PDCH
	// ULTFI and DLTFI are the TFIs in use (bit n: TFI n), unique per TRX
	// and direction.
	ULTFI, DLTFI uint32
	// DLTFIHeld are DL TFIs held for an IMMEDIATE ASSIGNMENT the BTS may
	// still send (pcu/dl.go holdTFI): taken only when no other is free.
	DLTFIHeld uint32
	// Reserved counts the MSs reserving each TS. It is the allocator's
	// state, changed by Cell.Reserve, Commit, Unreserve and Release; the
	// engine's view does not overwrite it.
	Reserved Reserved
}

// Reserved counts, per TS, the MSs reserving it for uplink and downlink.
type Reserved struct{ UL, DL [8]uint16 }

// EnabledMask is the set of enabled PDCHs (bit n: TS n).
func (t *TRX) EnabledMask() uint8 {
	var m uint8
	for i := range t.PDCH {
		if t.PDCH[i].Enabled {
			m |= 1 << i
		}
	}
	return m
}

// FreeTFI is the lowest free TFI of a direction on the TRX; a held DL
// TFI (DLTFIHeld) only when no other is free.
func (t *TRX) FreeTFI(dir Dir) (uint8, bool) {
	used := t.DLTFI
	if dir == UL {
		used = t.ULTFI
	}
	if used == allTFIs {
		return 0, false
	}
	if dir == DL && used|t.DLTFIHeld != allTFIs {
		used |= t.DLTFIHeld
	}
	return uint8(bits.TrailingZeros32(^used)), true
}

// Cell is the allocator's view of one BTS, and the state it keeps
// between decisions. The engine fills the view (each TRX's PDCH, ULTFI,
// DLTFI and DLTFIHeld) before each call; the state (each TRX's Reserved,
// MultislotOff, the pdch:all_allocated time counter) is the allocator's.
type Cell struct {
	TRX [MaxTRX]TRX
	// MultislotOff: `alloc-algorithm dynamic` fell back to A.
	MultislotOff bool

	allAlloc timeCC // pdch:all_allocated (stats.go)
}

// Algo is an allocation algorithm (`alloc-algorithm`).
type Algo uint8

// Algorithms.
const (
	Dynamic Algo = iota // B until B fails, then A until a PDCH is idle
	AlgoA               // one timeslot per TBF
	AlgoB               // multislot
)

// ParseAlgo is the algorithm `alloc-algorithm` names: its first letter
// decides ("a", "b"; anything else, "" too, is dynamic).
func ParseAlgo(s string) Algo {
	if s != "" {
		switch s[0] {
		case 'a':
			return AlgoA
		case 'b':
			return AlgoB
		}
	}
	return Dynamic
}

// Cause is why algorithm B failed (osmo-pcu's tbf:alloc:failed:*
// counters).
type Cause uint8

// Causes.
const (
	NoCause     Cause = iota // B not tried, succeeded or failed without a counted cause
	NoTFI                    // no TRX with a free TFI
	NoSlotCombi              // no reservation for the class
	NoSlotAvail              // no slot of the reservation for the TBF
	NoUSF                    // no free USF on the uplink slots
)

// Reservation is an MS's slot reservation (see the package comment).
type Reservation struct {
	On     bool
	TRX    uint8
	UL, DL uint8
	First  uint8 // first common TS + 1; 0: none
	Class  uint8 // the multislot class algorithm B reserved for; 0: not B's
}

// FirstTS is the first common TS, -1 for none.
func (r *Reservation) FirstTS() int { return int(r.First) - 1 }

// Placed is where one of the MS's TBFs is. On false: no such TBF.
type Placed struct {
	On    bool
	TRX   uint8
	Slots uint8
}

// Request asks for one TBF of an MS.
type Request struct {
	Dir    Dir
	Single bool // one TS (an assignment on CCCH)
	TRX    int  // the TRX asked for, -1: any
	// Class is the multislot class to allocate for, ClassKnown whether
	// it is the MS's (or the configured default) rather than the guess
	// of class 1 (see Class).
	Class      int
	ClassKnown bool
	// MS is the MS's reservation.
	MS Reservation
	// ULTBF and DLTBF are the MS's TBFs a reservation made again must
	// keep where they are: its UL TBF, and its DL TBF unless that has
	// ended (WAIT_RELEASE: kept only to carry the next assignment on its
	// PACCH; RELEASING): the next DL TBF replaces it.
	ULTBF, DLTBF Placed
}

// Result is the outcome of a successful allocation.
type Result struct {
	TRX          int
	TFI          uint8
	Slots        uint8    // the TBF's timeslots
	ResUL, ResDL uint8    // the MS's reservation
	First        int      // first common TS, the control TS
	USF          [8]uint8 // an UL TBF's USF per slot
	AlgoA        bool     // algorithm A allocated (else B)
	Class        uint8    // algorithm B: the class reserved for
}

// Class is the multislot class algorithm B allocates for: the MS's GPRS
// class gprs, else its EGPRS class egprs (TS 45.002 Annex B has one table
// for both), else `multislot-class default` def when it is configured,
// else class 1; known is false for that last guess. A network that does
// not know an MS's class only knows that it receives and transmits on one
// timeslot (every row of TS 45.002 Table B.1 has Rx, Tx >= 1); osmo-pcu
// assumes its default class 12 (4 slots), which an MS of a lower class
// cannot use (TTCN-3 TC_dl_multislot_tbf_ms_class_unknown expects 1 slot).
func Class(gprs, egprs, def int) (class int, known bool) {
	switch {
	case gprs >= 1 && gprs <= 45:
		return gprs, true
	case egprs >= 1 && egprs <= 45:
		return egprs, true
	case def >= 1 && def <= 45:
		return def, true
	}
	return 1, false
}

// Allocate runs algo for q and fills r. bFail is algorithm B's failure
// cause when B was tried and failed, also when dynamic then succeeded
// with A (the engine counts it either way).
func (c *Cell) Allocate(algo Algo, q *Request, r *Result) (ok bool, bFail Cause) {
	switch algo {
	case AlgoA:
		return c.allocA(q, r), NoCause
	case AlgoB:
		return c.allocB(q, r)
	}
	if c.MultislotOff && c.idlePDCH() {
		c.MultislotOff = false
	}
	if !c.MultislotOff {
		if ok, bFail = c.allocB(q, r); ok {
			return true, NoCause
		}
		c.MultislotOff = true
	}
	return c.allocA(q, r), bFail
}

// MultislotEnabled reports whether the next allocation may be multislot:
// algorithm B, or dynamic while it uses B.
func (c *Cell) MultislotEnabled(algo Algo) bool {
	switch algo {
	case AlgoA:
		return false
	case AlgoB:
		return true
	}
	return !c.MultislotOff || c.idlePDCH()
}

// idlePDCH reports whether an enabled PDCH carries at most one DL TBF.
func (c *Cell) idlePDCH() bool {
	for t := range c.TRX {
		for s := range c.TRX[t].PDCH {
			if p := &c.TRX[t].PDCH[s]; p.Enabled && p.DL <= 1 {
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
func (c *Cell) allocA(q *Request, r *Result) bool {
	*r = Result{First: -1}
	ms := &q.MS
	ti := q.TRX
	if ms.On {
		ti = int(ms.TRX)
	}
	if ti < 0 || ti >= len(c.TRX) {
		ti = -1
		for i := range c.TRX {
			trx := &c.TRX[i]
			if trx.EnabledMask() != 0 && trx.ULTFI != allTFIs && trx.DLTFI != allTFIs {
				ti = i
				break
			}
		}
		if ti < 0 {
			return false
		}
	}
	trx := &c.TRX[ti]
	mask := uint8(0xff)
	if fc := ms.FirstTS(); fc >= 0 {
		mask = 1 << fc
	} else if ms.On && ms.UL|ms.DL != 0 {
		mask = ms.UL & ms.DL
	}
	mask &= trx.EnabledMask()
	if mask == 0 {
		return false
	}
	tfi, ok := trx.FreeTFI(q.Dir)
	if !ok {
		return false
	}
	other := trx.ULTFI
	if q.Dir == UL {
		other = trx.DLTFI
	}
	best, bestUse := -1, 1<<30
	var bestUSF uint8
	for ts := range 8 {
		if mask&(1<<ts) == 0 {
			continue
		}
		p := &trx.PDCH[ts]
		use := p.UL + p.DL + int(trx.Reserved.UL[ts]) + int(trx.Reserved.DL[ts])
		if other == allTFIs {
			use += 32
		}
		if use >= bestUse {
			continue
		}
		if q.Dir == UL && !p.HasUSF {
			continue
		}
		best, bestUse, bestUSF = ts, use, p.USF
	}
	if best < 0 {
		return false
	}
	r.TRX, r.TFI, r.Slots, r.First, r.AlgoA = ti, tfi, 1<<best, best, true
	r.ResUL, r.ResDL = 1<<best, 1<<best
	if q.Dir == UL {
		r.USF[best] = bestUSF
	}
	return true
}

// tfiTRX picks the TRX and TFI for algorithm B: the MS's TRX (a
// different one asked for fails), else the one asked for, else the TRX
// with the most free TFIs in the direction (the first on a tie); the
// lowest free TFI. ti < 0: none, with the cause to count (NoCause: the
// TRX asked for is not the MS's).
func (c *Cell) tfiTRX(q *Request) (ti int, tfi uint8, fail Cause) {
	ms := &q.MS
	use := q.TRX
	if ms.On {
		if use >= 0 && use != int(ms.TRX) {
			return -1, 0, NoCause
		}
		use = int(ms.TRX)
	}
	from, to := 0, len(c.TRX)-1
	if use >= 0 && use < len(c.TRX) {
		from, to = use, use
	}
	best, bestFree := -1, 0
	for i := from; i <= to; i++ {
		trx := &c.TRX[i]
		if trx.EnabledMask() == 0 {
			continue
		}
		used := trx.DLTFI
		if q.Dir == UL {
			used = trx.ULTFI
		}
		if free := 32 - bits.OnesCount32(used); free > bestFree {
			best, bestFree = i, free
		}
	}
	if best < 0 {
		return -1, 0, NoTFI
	}
	tfi, _ = c.TRX[best].FreeTFI(q.Dir) // cannot fail: bestFree > 0
	return best, tfi, NoCause
}

// allocB is algorithm B (multislot).
func (c *Cell) allocB(q *Request, r *Result) (bool, Cause) {
	*r = Result{First: -1}
	ms := &q.MS
	ti, tfi, fail := c.tfiTRX(q)
	if ti < 0 {
		return false, fail
	}
	trx := &c.TRX[ti]
	var resUL, resDL uint8
	if ms.On {
		// PDCHs disabled since drop out of the reservation
		en := trx.EnabledMask()
		resUL, resDL = ms.UL&en, ms.DL&en
	}
	class := q.Class
	if ms.On && ms.Class != 0 && int(ms.Class) != class && resUL != 0 && resDL != 0 {
		// The class became known (MS Radio Access Capability in a
		// DL-UNITDATA or a Packet Resource Request) after the reservation
		// was made for another: reserve for it, if the new reservation
		// still holds the MS's TBFs (osmo-pcu keeps the old one; TTCN-3
		// TC_dl_multislot_tbf_ms_class_from_sgsn expects 8 slots for class
		// 18 after a one-phase access).
		if needC, needDL, ok := q.held(ti); ok {
			if ul, dl, ok := trx.findMultiSlotsHolding(multislot.Row(class), 0, 0, needC, needDL); ok {
				resUL, resDL = ul, dl
			}
		}
	}
	if resUL == 0 || resDL == 0 {
		ul, dl, ok := trx.findMultiSlots(multislot.Row(class), resUL, resDL)
		if !ok {
			return false, NoSlotCombi
		}
		if !q.ClassKnown && !ms.On {
			// class 1's one slot, placed where a multislot class can
			// widen the reservation (placementClass)
			if ts := trx.placeUnknown(q.Dir); ts >= 0 {
				ul, dl = 1<<ts, 1<<ts
			}
		}
		resUL, resDL = ul, dl
	}
	sl := resDL
	if q.Dir == UL {
		sl = resUL
	}
	if q.Single {
		common := resDL & resUL
		ts := ms.FirstTS()
		if ts < 0 {
			ts = trx.leastBusy(q.Dir, common)
		}
		sl = 0
		if ts >= 0 {
			sl = common & (1 << ts)
		}
	}
	if sl == 0 {
		return false, NoSlotAvail
	}
	ul, dl := resUL, resDL
	if q.Dir == DL {
		dl = sl
	} else {
		// an uplink TBF gets the slots where the MS also receives (its
		// USFs), each with a free USF
		ul = sl & resDL
		for ts := range 8 {
			if ul&(1<<ts) == 0 {
				continue
			}
			if p := &trx.PDCH[ts]; !p.HasUSF {
				ul &^= 1 << ts
			} else {
				r.USF[ts] = p.USF
			}
		}
		if ul == 0 {
			return false, NoUSF
		}
		resUL = ul
	}
	if dl&ul == 0 {
		return false, NoCause
	}
	r.TRX, r.TFI, r.First = ti, tfi, bits.TrailingZeros8(dl&ul)
	if fc := ms.FirstTS(); fc >= 0 && dl&ul&(1<<fc) != 0 {
		// the MS's TBFs keep their control TS while it stays common
		// (a reservation made again for a class that became known can
		// add lower common slots)
		r.First = fc
	}
	r.Slots = dl
	if q.Dir == UL {
		r.Slots = ul
	}
	r.ResUL, r.ResDL = resUL, resDL
	r.Class = uint8(class)
	return true, NoCause
}

// held is what a new reservation of the MS on TRX trx must hold to keep
// its TBFs where they are: as common slots its first common TS and its
// uplink TBF's slots (it reads its USFs on the downlink), as downlink
// slots its downlink TBF's. ok=false: a TBF is on another TRX.
func (q *Request) held(trx int) (common, dl uint8, ok bool) {
	if fc := q.MS.FirstTS(); fc >= 0 {
		common |= 1 << fc
	}
	if t := &q.ULTBF; t.On {
		if int(t.TRX) != trx {
			return 0, 0, false
		}
		common |= t.Slots
	}
	if t := &q.DLTBF; t.On {
		if int(t.TRX) != trx {
			return 0, 0, false
		}
		dl |= t.Slots
	}
	return common, dl, true
}

// UpgradeDL is the multislot upgrade of a DL TBF on TRX trx that was
// assigned on one slot (CCCH), while multislot allocation is on: the MS's
// downlink reservation ms. The control TS stays need (the slot the MS
// listens to, where the assignment goes) if it is a common slot, else it
// is the first common one.
func (c *Cell) UpgradeDL(algo Algo, ms *Reservation, trx, need int) (dl, ctrl uint8, ok bool) {
	if !c.MultislotEnabled(algo) || !ms.On || int(ms.TRX) != trx {
		return 0, 0, false
	}
	dl = ms.DL & c.TRX[trx].EnabledMask()
	common := dl & ms.UL
	if common == 0 {
		return 0, 0, false
	}
	if need >= 0 && need < 8 && common&(1<<need) != 0 {
		return dl, uint8(need), true
	}
	return dl, uint8(bits.TrailingZeros8(common)), true
}

// Reserve makes (trx, ul, dl) the reservation ms, counting it on the
// TRX's timeslots (the previous one released first).
func (c *Cell) Reserve(ms *Reservation, trx int, ul, dl uint8) {
	c.Unreserve(ms)
	ms.On, ms.TRX, ms.UL, ms.DL = true, uint8(trx), ul, dl
	n := &c.TRX[trx].Reserved
	for ts := range 8 {
		if ul&(1<<ts) != 0 {
			n.UL[ts]++
		}
		if dl&(1<<ts) != 0 {
			n.DL[ts]++
		}
	}
}

// Unreserve ends the reservation ms (it keeps its first common TS).
func (c *Cell) Unreserve(ms *Reservation) {
	if !ms.On {
		return
	}
	n := &c.TRX[ms.TRX].Reserved
	for ts := range 8 {
		if ms.UL&(1<<ts) != 0 && n.UL[ts] > 0 {
			n.UL[ts]--
		}
		if ms.DL&(1<<ts) != 0 && n.DL[ts] > 0 {
			n.DL[ts]--
		}
	}
	ms.On, ms.UL, ms.DL, ms.Class = false, 0, 0, 0
}

// Release ends the reservation of an MS that has no TBF left (or is
// freed), with its first common TS.
func (c *Cell) Release(ms *Reservation) {
	c.Unreserve(ms)
	ms.First = 0
}

// Commit records an allocation r in the MS's reservation ms: the
// reserved slots (counted again if they changed), the first common TS
// and the class.
func (c *Cell) Commit(ms *Reservation, r *Result) {
	if !ms.On || int(ms.TRX) != r.TRX || ms.UL != r.ResUL || ms.DL != r.ResDL {
		c.Reserve(ms, r.TRX, r.ResUL, r.ResDL)
	}
	ms.First = uint8(r.First + 1)
	ms.Class = r.Class
}
