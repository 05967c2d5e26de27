package pcu

import (
	"encoding/binary"

	"github.com/gopcu/gopcu/rlcmac"
)

// Multislot classes (3GPP TS 45.002 Annex B, Table B.1): Rx, Tx, Sum, type.
// Sum 0 means "not applicable" (type 2 and classes 19-29: Rx+Tx unlimited).
var msClasses = [46]struct{ rx, tx, sum, typ uint8 }{
	{0, 0, 0, 0},
	{1, 1, 2, 1}, {2, 1, 3, 1}, {2, 2, 3, 1}, {3, 1, 4, 1}, {2, 2, 4, 1}, {3, 2, 4, 1}, {3, 3, 4, 1},
	{4, 1, 5, 1}, {3, 2, 5, 1}, {4, 2, 5, 1}, {4, 3, 5, 1}, {4, 4, 5, 1},
	{3, 3, 0, 2}, {4, 4, 0, 2}, {5, 5, 0, 2}, {6, 6, 0, 2}, {7, 7, 0, 2}, {8, 8, 0, 2},
	{6, 2, 0, 1}, {6, 3, 0, 1}, {6, 4, 0, 1}, {6, 4, 0, 1}, {6, 6, 0, 1},
	{8, 2, 0, 1}, {8, 3, 0, 1}, {8, 4, 0, 1}, {8, 4, 0, 1}, {8, 6, 0, 1}, {8, 8, 0, 1},
	{5, 1, 6, 1}, {5, 2, 6, 1}, {5, 3, 6, 1}, {5, 4, 6, 1}, {5, 5, 6, 1},
	{5, 1, 6, 1}, {5, 2, 6, 1}, {5, 3, 6, 1}, {5, 4, 6, 1}, {5, 5, 6, 1},
	{6, 1, 7, 1}, {6, 2, 7, 1}, {6, 3, 7, 1}, {6, 4, 7, 1}, {6, 5, 7, 1}, {6, 6, 7, 1},
}

// maxDLSlots is the number of downlink slots a class can use while it also
// transmits on txSlots uplink slots.
func maxDLSlots(class, txSlots int) int {
	if class < 1 || class > 45 {
		class = 12
	}
	c := msClasses[class]
	rx := int(c.rx)
	if c.sum > 0 && txSlots > 0 && rx+txSlots > int(c.sum) {
		rx = int(c.sum) - txSlots
	}
	if rx < 1 {
		rx = 1
	}
	return rx
}

// maxULSlots is the number of uplink slots a class can use while it also
// receives on rxSlots downlink slots.
func maxULSlots(class, rxSlots int) int {
	if class < 1 || class > 45 {
		class = 12
	}
	c := msClasses[class]
	tx := int(c.tx)
	if c.sum > 0 && rxSlots > 0 && tx+rxSlots > int(c.sum) {
		tx = int(c.sum) - rxSlots
	}
	return max(tx, 1)
}

// chooseULSlots picks up to n consecutive enabled PDCHs, each with a free
// USF, with the least uplink load; the control TS is the first. It falls
// back to the single slot one.
func (e *Engine) chooseULSlots(trx *TRX, n, one int) (uint8, int) {
	bestMask, bestCost, bestFirst := uint8(1)<<one, 1<<30, one
	for start := 0; start < 8; start++ {
		var mask uint8
		cost, k := 0, 0
		for ts := start; ts < 8 && k < n; ts++ {
			p := &trx.PDCH[ts]
			if !p.Enabled {
				break
			}
			if _, ok := freeUSF(p); !ok {
				break
			}
			mask |= 1 << ts
			cost += p.load(DirUL)*4 + p.load(DirDL)
			k++
		}
		if k == 0 {
			continue
		}
		// more slots first, then less load
		if score := cost - k*1000; popcount8(mask) > popcount8(bestMask) || popcount8(mask) == popcount8(bestMask) && score < bestCost {
			bestMask, bestCost, bestFirst = mask, score, start
		}
	}
	return bestMask, bestFirst
}

// allocTFI takes the lowest free TFI of a direction on a TRX.
func allocTFI(trx *TRX, dir Dir) (uint8, bool) {
	used := trx.dlTFI
	if dir == DirUL {
		used = trx.ulTFI
	}
	for i := uint8(0); i < 32; i++ {
		if used&(1<<i) == 0 {
			return i, true
		}
	}
	return 0, false
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

// pickTRX chooses the TRX for a new TBF: the one the MS already uses, else
// the one with the most free TFIs in that direction and an enabled PDCH.
func pickTRX(bts *BTS, ms *MS, dir Dir) int {
	if o := ms.UL; o != nil && o.slots != 0 {
		return int(o.trx)
	}
	if o := ms.DL; o != nil && o.slots != 0 {
		return int(o.trx)
	}
	best, bestFree := -1, -1
	for i := range bts.TRX {
		trx := &bts.TRX[i]
		if trx.enabledMask() == 0 {
			continue
		}
		used := trx.dlTFI
		if dir == DirUL {
			used = trx.ulTFI
		}
		free := 32 - popcount32(used)
		if free > bestFree {
			best, bestFree = i, free
		}
	}
	return best
}

func popcount32(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// load is how busy a PDCH is for a direction (TBFs attached).
func (p *PDCH) load(dir Dir) int {
	if dir == DirUL {
		return len(p.ul)
	}
	return len(p.dl)
}

// allocUL allocates an uplink TBF on one timeslot: the MS's DL control TS
// if it has a DL TBF (common slot), else the least busy PDCH with a free USF.
func (e *Engine) allocUL(bts *BTS, ms *MS) (*TBF, error) { return e.allocULSlots(bts, ms, false) }

// allocULSlots is allocUL; with multi (an assignment on PACCH, which can
// name several USFs) and an MS without DL TBF, the TBF gets up to the
// class's Tx slots, consecutive PDCHs each with a free USF (algorithm B;
// `alloc-algorithm a` keeps one slot).
func (e *Engine) allocULSlots(bts *BTS, ms *MS, multi bool) (*TBF, error) {
	ti := pickTRX(bts, ms, DirUL)
	if ti < 0 {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		bts.Ctr.Inc(CtrTBFAllocFailedNoSlotAvail)
		return nil, errNoResource
	}
	trx := &bts.TRX[ti]
	tfi, ok := allocTFI(trx, DirUL)
	if !ok {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		bts.Ctr.Inc(CtrTBFAllocFailedNoTFI)
		return nil, errNoResource
	}
	best, bestLoad := -1, 1<<30
	for ts := 0; ts < 8; ts++ {
		p := &trx.PDCH[ts]
		if !p.Enabled {
			continue
		}
		if _, ok := freeUSF(p); !ok {
			continue
		}
		if ms.DL != nil && ms.DL.slots != 0 {
			if uint8(ts) != ms.DL.ctrlTS {
				continue
			}
		}
		if l := p.load(DirUL)*4 + p.load(DirDL); l < bestLoad {
			best, bestLoad = ts, l
		}
	}
	if best < 0 {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		bts.Ctr.Inc(CtrTBFAllocFailedNoUSF)
		return nil, errNoResource
	}
	slots := uint8(1) << best
	if multi && e.params.AllocAlgo != "a" && (ms.DL == nil || ms.DL.slots == 0) {
		slots, best = e.chooseULSlots(trx, maxULSlots(ms.multislotClass(e.params.MultislotDefault), 0), best)
	}
	t := &TBF{dir: DirUL, ms: ms, bts: bts, trx: uint8(ti), tfi: tfi, slots: slots, ctrlTS: uint8(best), created: e.now, cs: ms.CSUL, puaTS: -1}
	for ts := 0; ts < 8; ts++ {
		if slots&(1<<ts) != 0 {
			t.usf[ts], _ = freeUSF(&trx.PDCH[ts])
		}
	}
	t.rw.Reset(false, rlcmac.GPRSWS)
	t.ub = make([]ulBlock, rlcmac.GPRSSNS)
	e.attach(t)
	e.tbfCounters(t)
	ms.UL = t
	ms.idleSince = -1
	bts.Ctr.Inc(CtrTBFULAlloc)
	bts.Ctr.Inc(e.algoCounter())
	return t, nil
}

// allocDL allocates a downlink TBF. single restricts it to one slot (CCCH
// assignment); otherwise it takes up to the MS class's Rx slots around the
// least loaded window, always containing the MS's uplink slot if any.
func (e *Engine) allocDL(bts *BTS, ms *MS, single bool) (*TBF, error) {
	ti := pickTRX(bts, ms, DirDL)
	if ti < 0 {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		bts.Ctr.Inc(CtrTBFAllocFailedNoSlotAvail)
		return nil, errNoResource
	}
	trx := &bts.TRX[ti]
	tfi, ok := allocTFI(trx, DirDL)
	if !ok {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		bts.Ctr.Inc(CtrTBFAllocFailedNoTFI)
		return nil, errNoResource
	}
	slots, ctrl, ok := e.chooseDLSlots(trx, ms, single)
	if !ok {
		bts.Ctr.Inc(CtrTBFAllocFailed)
		bts.Ctr.Inc(CtrTBFAllocFailedNoSlotCombi)
		return nil, errNoResource
	}
	t := &TBF{dir: DirDL, ms: ms, bts: bts, trx: uint8(ti), tfi: tfi, slots: slots, ctrlTS: ctrl, created: e.now,
		cs: ms.CSDL, drained: -1}
	e.setupDLWindow(t)
	e.attach(t)
	e.tbfCounters(t)
	setDrainRate(t)
	ms.DL = t
	ms.idleSince = -1
	bts.Ctr.Inc(CtrTBFDLAlloc)
	bts.Ctr.Inc(e.algoCounter())
	return t, nil
}

// algoCounter is the tbf:alloc:algo-* counter of an allocation. osmo-pcu's
// `alloc-algorithm dynamic` (the default) allocates with algorithm B unless
// multislot is disabled, so it counts algo-b as `alloc-algorithm b` does;
// only `alloc-algorithm a` counts algo-a.
func (e *Engine) algoCounter() int {
	if e.params.AllocAlgo == "a" {
		return CtrTBFAllocAlgoA
	}
	return CtrTBFAllocAlgoB
}

func popcount8(x uint8) int { return popcount32(uint32(x)) }

// chooseDLSlots picks the DL timeslot mask and control TS.
func (e *Engine) chooseDLSlots(trx *TRX, ms *MS, single bool) (uint8, uint8, bool) {
	need := -1
	if ms.UL != nil && ms.UL.attached {
		need = int(ms.UL.ctrlTS)
	}
	if single {
		return e.chooseDLSlotsSingle(trx, need)
	}
	return e.chooseDLSlotsWith(trx, ms, need, nil)
}

func (e *Engine) chooseDLSlotsSingle(trx *TRX, need int) (uint8, uint8, bool) {
	if need >= 0 {
		return 1 << need, uint8(need), true
	}
	enabled := trx.enabledMask()
	best, bc := -1, 1<<30
	for ts := 0; ts < 8; ts++ {
		if enabled&(1<<ts) != 0 && trx.PDCH[ts].load(DirDL) < bc {
			best, bc = ts, trx.PDCH[ts].load(DirDL)
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	return 1 << best, uint8(best), true
}

// chooseDLSlotsWith picks a multislot DL mask that contains timeslot need
// (if >= 0); self (a TBF being re-allocated) does not count as load.
func (e *Engine) chooseDLSlotsWith(trx *TRX, ms *MS, need int, self *TBF) (uint8, uint8, bool) {
	enabled := trx.enabledMask()
	if enabled == 0 {
		return 0, 0, false
	}
	ulTS := need
	single := e.params.AllocAlgo == "a"
	cost := func(ts int) int {
		n := trx.PDCH[ts].load(DirDL)
		if self != nil && self.slots&(1<<ts) != 0 {
			n--
		}
		return n
	}
	if single {
		return e.chooseDLSlotsSingle(trx, ulTS)
	}
	tx := 0
	if ms.UL != nil && ms.UL.attached {
		tx = 1
	}
	n := maxDLSlots(ms.multislotClass(e.params.MultislotDefault), tx)
	// Best window of up to n consecutive enabled slots (TS 45.002 Annex B:
	// the Rx slots of a type-1 MS are consecutive) by total free capacity.
	bestMask, bestCap := uint8(0), -1
	for start := 0; start < 8; start++ {
		var mask uint8
		capa := 0
		for ts := start; ts < 8 && ts < start+n; ts++ {
			if enabled&(1<<ts) == 0 {
				break
			}
			mask |= 1 << ts
			capa += 64 / (1 + cost(ts))
		}
		if mask == 0 || ulTS >= 0 && mask&(1<<ulTS) == 0 {
			continue
		}
		if capa > bestCap {
			bestMask, bestCap = mask, capa
		}
	}
	if bestMask == 0 {
		return 0, 0, false
	}
	ctrl := uint8(0)
	if ulTS >= 0 {
		ctrl = uint8(ulTS)
	} else {
		// control TS: the least loaded slot of the window
		bc := 1 << 30
		for ts := 0; ts < 8; ts++ {
			if bestMask&(1<<ts) != 0 && cost(ts) < bc {
				ctrl, bc = uint8(ts), cost(ts)
			}
		}
	}
	return bestMask, ctrl, true
}

// egprsWS is the EGPRS window size for n slots (osmo-pcu-facts §3.4):
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
	t.sw.Reset(t.egprs, ws)
	n := 128
	for n < t.sw.WS() {
		n *= 2
	}
	if len(t.blk) != n {
		t.blk = make([]dlBlock, n)
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
	t.rw.Reset(true, ws)
	n := 128
	for n < ws {
		n *= 2
	}
	t.ub = make([]ulBlock, n)
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
