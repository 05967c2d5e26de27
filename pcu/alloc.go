package pcu

import (
	"math/bits"
	"time"

	"github.com/gopcu/gopcu/pcu/alloc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// The engine's side of timeslot allocation. The decisions (which TRX,
// PDCHs, TFI and USFs a TBF gets, the MS's slot reservation, the
// pdch:all_allocated statistic) are package pcu/alloc, which reads the
// engine's view of a BTS (allocCell) and imports nothing of the engine.
// This file fills that view, asks, and applies the answer: it makes the
// TBF, records the MS's reservation (MS.slots) and counts.

// the allocator's view has the PCU interface's TRX
const _ = uint(alloc.MaxTRX-pcuif.NumTRX) + uint(pcuif.NumTRX-alloc.MaxTRX)

// allocCell fills bts.alloc, the allocator's view of the BTS (each PDCH's
// TBFs and free USF, each TRX's TFIs), and returns it. The reservation
// counts and the algorithm's state in it are the allocator's own; the
// view leaves them.
func (bts *BTS) allocCell() *alloc.Cell {
	c := &bts.alloc
	for i := range bts.TRX {
		trx, v := &bts.TRX[i], &c.TRX[i]
		v.ULTFI, v.DLTFI, v.DLTFIHeld = trx.ulTFI, trx.dlTFI, trx.dlTFIHeld
		for ts := range trx.PDCH {
			p := &trx.PDCH[ts]
			usf, ok := freeUSF(p)
			v.PDCH[ts] = alloc.PDCH{Enabled: p.Enabled, TSC: p.TSC, UL: len(p.ul), DL: len(p.dl), USF: usf, HasUSF: ok}
		}
	}
	return c
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

// allocFailCtr are the counters of algorithm B's failure causes.
var allocFailCtr = [...]int{
	alloc.NoTFI:       CtrTBFAllocFailedNoTFI,
	alloc.NoSlotCombi: CtrTBFAllocFailedNoSlotCombi,
	alloc.NoSlotAvail: CtrTBFAllocFailedNoSlotAvail,
	alloc.NoUSF:       CtrTBFAllocFailedNoUSF,
}

// allocate asks the allocator for one TBF of ms in direction dir (single:
// one TS, an assignment on CCCH) with the configured algorithm
// (`alloc-algorithm`), and counts algorithm B's failure cause.
func (e *Engine) allocate(bts *BTS, ms *MS, dir Dir, single bool, r *alloc.Result) bool {
	e.adoptSlots(ms)
	if dir == DirDL {
		e.expireTFIHolds(bts)
	}
	q := alloc.Request{Dir: dir, Single: single, TRX: -1, MS: ms.slots}
	q.Class, q.ClassKnown = alloc.Class(ms.MSClass, ms.EGPRSClass, e.params.MultislotDefault)
	if t := ms.UL; t != nil {
		q.ULTBF = alloc.Placed{On: true, TRX: t.trx, Slots: t.slots}
	}
	if t := ms.DL; t != nil && t.state != TBFWaitRelease && t.state != TBFReleasing {
		q.DLTBF = alloc.Placed{On: true, TRX: t.trx, Slots: t.slots}
	}
	ok, cause := bts.allocCell().Allocate(alloc.ParseAlgo(e.params.AllocAlgo), &q, r)
	if cause != alloc.NoCause {
		bts.Ctr.Inc(allocFailCtr[cause])
	}
	return ok
}

// commitAlloc records an allocation in the MS's reservation and counts
// the algorithm.
func (e *Engine) commitAlloc(bts *BTS, ms *MS, r *alloc.Result) {
	ms.bts.alloc.Commit(&ms.slots, r)
	if r.AlgoA {
		bts.Ctr.Inc(CtrTBFAllocAlgoA)
	} else {
		bts.Ctr.Inc(CtrTBFAllocAlgoB)
	}
}

// dlUpgrade is the multislot upgrade of a DL TBF assigned on one slot
// (CCCH): its slots and control TS on PACCH (alloc.Cell.UpgradeDL).
func (e *Engine) dlUpgrade(t *TBF) (slots, ctrl uint8, ok bool) {
	c := t.bts.allocCell()
	return c.UpgradeDL(alloc.ParseAlgo(e.params.AllocAlgo), &t.ms.slots, int(t.trx), int(t.ctrlTS))
}

// releaseSlots ends the reservation of an MS that has no TBF left (or is
// freed), with its first common TS.
func (e *Engine) releaseSlots(ms *MS) {
	if ms.slots.On {
		ms.bts.alloc.Release(&ms.slots)
	}
	ms.slots.First = 0
}

// mergeSlots: the TBFs of old move to m (same subscriber): so does the
// reservation unless m has its own.
func (e *Engine) mergeSlots(m, old *MS) {
	if !m.slots.On && old.slots.On && m.bts == old.bts {
		m.slots, old.slots = old.slots, alloc.Reservation{}
		return
	}
	e.releaseSlots(old)
}

// adoptSlots gives an MS that took over a TBF of another MS object (its
// TLLI became known) a reservation built from that TBF: its slots in its
// direction, the other direction still open; its control TS is the first
// common TS.
func (e *Engine) adoptSlots(ms *MS) {
	if ms.slots.On {
		return
	}
	for _, t := range [2]*TBF{ms.UL, ms.DL} {
		if t == nil || !t.attached || t.slots == 0 {
			continue
		}
		if t.dir == DirUL {
			ms.bts.alloc.Reserve(&ms.slots, int(t.trx), t.slots, 0)
		} else {
			ms.bts.alloc.Reserve(&ms.slots, int(t.trx), 0, t.slots)
		}
		ms.slots.First = t.ctrlTS + 1
		return
	}
}

// sampleAllAllocated counts pdch:all_allocated, the seconds during which
// every enabled PDCH of a BTS was allocated (alloc.Cell.SampleAllAllocated).
func (e *Engine) sampleAllAllocated(now time.Duration) {
	for _, bts := range e.btsList {
		if bts == nil || !bts.Active {
			continue
		}
		if n := bts.allocCell().SampleAllAllocated(now); n > 0 {
			bts.Ctr.Add(CtrPDCHAllAllocated, n)
		}
	}
}

func popcount8(x uint8) int { return bits.OnesCount8(x) }

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
	var r alloc.Result
	if !e.allocate(bts, ms, DirUL, !multi, &r) {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		return nil, errNoResource
	}
	e.commitAlloc(bts, ms, &r)
	t := &TBF{dir: DirUL, ms: ms, bts: bts, trx: uint8(r.TRX), tfi: r.TFI, slots: r.Slots, ctrlTS: uint8(r.First),
		created: e.now, cs: ms.CSUL, puaTS: -1, ul: &ulTBF{usf: r.USF}}
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
	var r alloc.Result
	if !e.allocate(bts, ms, DirDL, single, &r) {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		return nil, errNoResource
	}
	e.commitAlloc(bts, ms, &r)
	t := &TBF{dir: DirDL, ms: ms, bts: bts, trx: uint8(r.TRX), tfi: r.TFI, slots: r.Slots, ctrlTS: uint8(r.First), created: e.now,
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
