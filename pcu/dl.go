package pcu

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// DLUnitdata is a BSSGP DL-UNITDATA for this BTS (TS 48.018 §10.2.1; osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_pcu_rx_dl_ud()): the
// frame enters the MS's LLC queue and a DL TBF is established if needed.
// Engine goroutine only.
type DLUnitdata struct {
	TLLI     uint32
	OldTLLI  uint32 // 0 if absent
	IMSI     string
	Lifetime uint16 // PDU lifetime, centiseconds; 0xffff infinite
	MSClass  int    // from MS Radio Access Capability, 0 unknown
	EGPRS    int
	LLC      []byte // copied into a pooled buffer of the MS queue: the caller keeps it
}

// HandleDLUnitdata processes a DL-UNITDATA. Engine goroutine only. Nothing
// of d is kept after it returns (d.LLC may alias a receive buffer).
func (e *Engine) HandleDLUnitdata(btsNr uint8, d *DLUnitdata) {
	e.timersDue() // a TBF whose timer ran out while the BTS sent nothing is gone
	e.handleDLUnitdata(btsNr, d)
}

// handleDLUnitdata is HandleDLUnitdata once the due timers have run.
func (e *Engine) handleDLUnitdata(btsNr uint8, d *DLUnitdata) {
	bts := e.bts[btsNr]
	if bts == nil || !bts.Active {
		e.l1ctr.Inc(L1GbDLUnitdataDropped)
		e.opDrop(e.log, dropDLUnitdataInactiveBTS, func() string {
			return fmt.Sprintf("DL-UNITDATA for TLLI=0x%08x dropped: BTS %d is not active", d.TLLI, btsNr)
		})
		return
	}
	m := bts.ms.byTLLI[d.TLLI]
	if m == nil && d.OldTLLI != 0 {
		if m = bts.ms.byTLLI[d.OldTLLI]; m != nil {
			bts.ms.setTLLI(m, d.TLLI)
		}
	}
	if d.IMSI != "" {
		if o := bts.ms.byIMSI[d.IMSI]; o != nil && o != m {
			if m == nil {
				m = o
				bts.ms.setTLLI(m, d.TLLI)
			} else {
				e.mergeMS(m, o)
			}
		}
	}
	if m == nil {
		m = e.newMS(bts, d.TLLI)
	}
	bts.ms.setIMSI(m, d.IMSI)
	if m.MSClass == 0 && d.MSClass > 0 {
		m.MSClass = d.MSClass
	}
	if m.EGPRSClass == 0 && d.EGPRS > 0 {
		m.EGPRSClass = d.EGPRS
	}
	m.suspended = false // the SGSN sends again: the MS is back (RESUME)
	if err := m.Queue.EnqueueCopy(e.now, d.LLC, d.Lifetime); err != nil {
		e.l1ctr.Inc(L1LLCRefused)
		e.opDrop(e.llcLog, dropDLFrameRefused, func() string {
			return fmt.Sprintf("%s DL LLC frame of %d octets dropped: the queue refused it: %v", m, len(d.LLC), err)
		})
		return
	}
	m.lastEnq = e.now
	m.idleAck = e.params.LLC.IdleAckDelay > 0
	e.llcShared.TakeOverflowed(func(q *llc.Queue, dd llc.Discard) {
		if om, ok := q.Owner.(*MS); ok {
			e.reportDiscard(om, dd)
		}
	})
	e.establishDL(bts, m)
}

// establishDL starts a DL TBF for an MS with queued data, unless one is
// running or can take the data (osmo-pcu gprs_ms.c ms_append_llc_dl_data(), ms_is_reachable_for_dl_ass()).
func (e *Engine) establishDL(bts *BTS, m *MS) {
	if t := m.DL; t != nil {
		switch t.state {
		case TBFWaitRelease:
			// The MS still listens to the old TBF's PACCH: assign there.
			// The old TBF keeps its TFI and makes the allocator choose
			// its TRX (the assignment is sent on it).
			old := t
			nt, err := e.allocDL(bts, m, false)
			if err != nil {
				return
			}
			e.fire(old, evReuse)
			e.assignPACCH(nt, old)
		case TBFFlow:
			t.dl.drained = -1
		}
		return
	}
	if m.UL != nil {
		u := m.UL
		if u.state != TBFFlow || !u.ul.contention {
			return // after contention resolution (or after the UL TBF ends)
		}
		nt, err := e.allocDL(bts, m, false)
		if err != nil {
			return
		}
		m.dlFailed = false
		e.assignPACCH(nt, u)
		return
	}
	nt, err := e.allocDL(bts, m, true)
	if err != nil {
		e.watchMS(m) // tried again on the next timer run
		return
	}
	m.dlFailed = false
	e.fire(nt, evAssignCCCH)
}

// detachKeep releases the resources of a DL TBF in WAIT_RELEASE but keeps
// it as the carrier of the new assignment (the MS listens on its PACCH
// until T3192 ends); T3193 frees it for good (evReuse).
func (e *Engine) detachKeep(t *TBF) {
	if t.attached {
		e.detach(t)
	}
	if t.ms.DL == t {
		t.ms.DL = nil
	}
}

// assignPACCH schedules a Packet Downlink Assignment for nt on the control
// TS of carrier (an UL TBF, the old DL TBF, or nt itself).
func (e *Engine) assignPACCH(nt, carrier *TBF) {
	if carrier != nt {
		nt.bts.Ctr.Inc(CtrTBFReused) // osmo-pcu establish_dl_tbf_on_pacch
	}
	nt.assignOn = carrier
	e.fire(nt, evAssignPACCH)
}

// sendDLImmAss sends the Immediate Assignment (Packet Downlink Assignment
// rest octets, TS 44.018 §10.5.2.16) on PCH, confirm requested.
func (e *Engine) sendDLImmAss(t *TBF) {
	bts := t.bts
	trx := &bts.TRX[t.trx]
	ia := rlcmac.ImmediateAssignment{TBF: true, Downlink: true}
	packetChannel(&ia, trx, t.ctrlTS)
	ia.ReqRef.RA = 125
	ia.ReqRef.SetFN(fnAdd(e.lastFN, 21216)) // clear of real RACH FNs, as osmo-pcu
	ia.TA = t.ms.TA
	ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IARPacketDownlink, TLLI: t.ms.TLLI, HasTFI: true, TFI: t.tfi, TAValid: true}
	if t.ms.TAI >= 0 {
		ia.Rest.HasTAI, ia.Rest.TAI = true, uint8(t.ms.TAI)
	}
	if t.egprs {
		ia.Rest.HasEGPRS, ia.Rest.WindowSize = true, rlcmac.EGPRSWindowSizeCode(t.dl.sw.WS())
	}
	var mac [rlcmac.MACBlockLen]byte
	if _, err := rlcmac.EncodeImmediateAssignment(mac[:], &ia); err != nil {
		e.tbfLog.Error("cannot encode DL IMM ASS", "err", err)
		return
	}
	if t.ms.IMSI == "" && e.ver >= pcuif.V11 {
		// no IMSI, no paging group: the MS is taken as non-DRX and
		// listens to AGCH (osmo-pcu bts_snd_dl_ass; PCUIF v11+ confirms
		// AGCH_2 by msg_id; v10 confirms only PCH)
		e.sendAGCH(bts, mac[:], t.ms.TLLI, true)
	} else {
		e.sendPCH(bts, t.ms.IMSI, mac[:], t.ms.TLLI, true)
	}
	bts.Ctr.Inc(CtrImmAssDL)
}

// dlImmAssConfirmed: the BTS sent the IMM ASS on PCH (DATA_CNF).
func (e *Engine) dlImmAssConfirmed(bts *BTS, tlli uint32) {
	e.releaseTFIHolds(bts, tlli)
	if m := bts.ms.byTLLI[tlli]; m != nil && m.DL != nil {
		e.fire(m.DL, evAssignCnf)
	}
}

// tfiHold keeps a DL TFI out of use for a while (holdTFI).
type tfiHold struct {
	tlli  uint32        // the MS the IMMEDIATE ASSIGNMENT names
	until time.Duration // when its confirmation would have come (CCCH-CNF)
}

// holdTFI: t, a DL TBF assigned on CCCH, goes before the BTS confirmed
// its IMMEDIATE ASSIGNMENT (freed because the MS accessed and is on the
// PDCH, ulTLLI). The BTS still holds the assignment for the MS's paging
// block and sends it later (in the lab 720 ms after the PCU did): an MS
// that reads it then (back in packet idle mode, or the emulated MS of
// docs/reliability.md, "A phone that stalled on the real network") takes
// the TFI on that PDCH as its new TBF. The TFI stays free of other TBFs
// until the BTS has sent the assignment (DATA_CNF) or CCCH-CNF has passed
// (TS 44.060 §5.2.2: a TFI identifies one TBF of a direction on its
// PDCHs). The allocator (pcu/alloc TRX.FreeTFI) takes a held TFI only
// when no other is free.
func (e *Engine) holdTFI(t *TBF) {
	if t.dir != DirDL || !t.ccch || t.state != TBFAssign || !t.running(tmCCCHCnf) {
		return
	}
	trx := &t.bts.TRX[t.trx]
	trx.dlTFIHeld |= 1 << (t.tfi & 31)
	trx.dlHold[t.tfi&31] = tfiHold{tlli: t.ms.TLLI, until: t.deadline[tmCCCHCnf]}
}

// releaseTFIHolds: the BTS sent the IMMEDIATE ASSIGNMENT for tlli.
func (e *Engine) releaseTFIHolds(bts *BTS, tlli uint32) {
	for i := range bts.TRX {
		trx := &bts.TRX[i]
		for h := trx.dlTFIHeld; h != 0; h &= h - 1 {
			if tfi := bits.TrailingZeros32(h); trx.dlHold[tfi].tlli == tlli {
				trx.dlTFIHeld &^= 1 << tfi
			}
		}
	}
}

// expireTFIHolds ends the holds whose CCCH-CNF time has passed.
func (e *Engine) expireTFIHolds(bts *BTS) {
	for i := range bts.TRX {
		trx := &bts.TRX[i]
		for h := trx.dlTFIHeld; h != 0; h &= h - 1 {
			if tfi := bits.TrailingZeros32(h); e.now >= trx.dlHold[tfi].until {
				trx.dlTFIHeld &^= 1 << tfi
			}
		}
	}
}

// dlAssignSettled: X2002 after the CCCH assignment. Upgrade to multislot
// on PACCH when the MS class and free slots allow it, else start.
func (e *Engine) dlAssignSettled(t *TBF) {
	if e.params.AllocAlgo != "a" {
		if mask, ctrl, ok := e.dlUpgrade(t); ok && popcount8(mask) > popcount8(t.slots) {
			e.detach(t)
			t.slots, t.ctrlTS = mask, ctrl
			e.attach(t)
			e.setupDLWindow(t) // nothing sent yet: the EGPRS window follows the slots
			setDrainRate(t)
			t.bts.Ctr.Inc(CtrTBFAllocAlgoB)
			e.assignPACCH(t, t)
			return
		}
	}
	e.fire(t, evAssignSettled)
}

// encodePDA builds the Packet Downlink Assignment for nt on p.
func (e *Engine) encodePDA(nt *TBF, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	carrier := nt.assignOn
	m := rlcmac.PacketDownlinkAssignment{TimeslotAlloc: reverseBits(nt.slots), HasDownlinkTFI: true, DownlinkTFI: nt.tfi}
	if carrier.dir == DirUL {
		m.ID = rlcmac.MSID{Kind: rlcmac.IDGlobalTFI, GlobalTFI: rlcmac.GlobalTFI{Downlink: false, TFI: carrier.tfi}}
	} else {
		m.ID = rlcmac.MSID{Kind: rlcmac.IDGlobalTFI, GlobalTFI: rlcmac.GlobalTFI{Downlink: true, TFI: carrier.tfi}}
		// CONTROL_ACK: the MS's T3192 runs on the old TBF (§11.2.7)
		m.ControlAck = carrier != nt
	}
	m.TA = packetTA(nt.ms)
	if nt.egprs {
		m.HasR99, m.HasEGPRS, m.WindowSize = true, true, rlcmac.EGPRSWindowSizeCode(nt.dl.sw.WS())
	}
	trx := &nt.bts.TRX[nt.trx]
	pd := &trx.PDCH[nt.ctrlTS]
	m.HasFreq = true
	m.Freq = freqParams(trx, pd)
	return e.encodePolled(p, fn, nt, pollDLAss, &nt.dlAss, CtrPktDLAssignment, usf, blk, &m)
}

func reverseBits(x uint8) uint8 {
	var r uint8
	for i := 0; i < 8; i++ {
		if x&(1<<i) != 0 {
			r |= 0x80 >> i
		}
	}
	return r
}

// dlAssignAcked: the Packet Downlink Assignment was acknowledged
// (evAssignAcked, ASSIGN -> FLOW): a kept old DL TBF that carried it goes.
func (e *Engine) dlAssignAcked(t *TBF) {
	if c := t.assignOn; c != nil && c != t && c.dir == DirDL && c.state == TBFReleasing {
		e.fireRelease(c, relCarrierDone)
	}
	t.assignOn = nil
	t.dl.lastPoll = e.now
}

// DL scheduling priorities (osmo-pcu gprs_rlcmac_sched.cpp tbf_compute_priority(), highest first).
const (
	prioNone      = iota
	prioPreempt   // unacked blocks may be resent while idle
	prioKeepOpen  // delayed release: dummy LLC block or the final block
	prioNewData   // LLC data waiting
	prioPollDue   // data or resends, and a poll is due: on the control TS only
	prioResend    // NACKed blocks
	prioPollAgain // the MS must be asked for an Ack/Nack (stalled window or old poll)
)

// highAge is how long a TBF may go without a poll before it is polled
// with priority: min(T3190/2, X2031) (osmo-pcu gprs_pcu.c T_defs_pcu,
// gprs_rlcmac_sched.cpp tbf_compute_priority()). The MS's T3190 (TS 44.060
// §13.1) ends its TBF when no data block arrived for that long; a poll at
// half of it comes in time. X2031 = 0 (no delayed release) does not bound
// it.
func (e *Engine) highAge() time.Duration {
	a := e.params.T3190 / 2
	if x := e.params.X2031; x > 0 && x < a {
		a = x
	}
	return a
}

// dlPrio is the scheduling priority of a DL TBF on a PDCH.
func (e *Engine) dlPrio(t *TBF, ts uint8) int {
	if t.state != TBFFlow && t.state != TBFFinished {
		return prioNone
	}
	stalled := t.dl.sw.Stalled()
	if ts == t.ctrlTS && !t.dl.pollOut && (stalled || e.now-t.dl.lastPoll >= e.highAge()) {
		// Also a kept-open TBF with everything acknowledged: its
		// keep-open blocks rank below other TBFs' new data, so on a busy
		// PDCH it would get none, the MS's T3190 would end the TBF and
		// the MS, in downlink transfer, could not ask for an uplink TBF
		// (no poll, no Channel Request Description; TS 44.060 §8.1.2.5).
		// osmo-pcu's DL_PRIO_HIGH_AGE has no condition on the window
		// either. The block is new data, or the LLC dummy (or final
		// block) of fillDLBlock, with a poll.
		return prioPollAgain
	}
	resend := t.dl.sw.ResendNeeded() >= 0
	newData := !stalled && t.dlBacklog()
	if ts == t.ctrlTS && !t.dl.pollOut && (resend || newData) && t.dl.sincePoll >= 20 && t.dl.sw.CountUnacked() > 0 {
		// A TBF polls only on its control TS. Airtime fairness counts
		// all its PDCHs, so a multislot TBF ahead in airtime could lose
		// its control TS to TBFs on fewer slots and fill its window
		// unpolled (stall; no Channel Request Description either).
		return prioPollDue
	}
	if resend {
		return prioResend
	}
	if newData {
		return prioNewData
	}
	if t.state == TBFFlow && !stalled && ts == t.ctrlTS && !t.dl.pollOut {
		// keep-open: a dummy LLC block (with poll) every 200 ms, or the
		// final block once X2031 has passed since the queue drained
		if t.dl.drained >= 0 && (e.now-t.dl.drained >= e.params.X2031 || e.now-t.dl.lastPoll >= 200*time.Millisecond) {
			return prioKeepOpen
		}
	}
	if (e.params.PreemptiveRetx || stalled) && t.dl.sw.CountUnacked() > 0 {
		return prioPreempt
	}
	return prioNone
}

// dlBacklog reports that t is in FLOW with LLC data to send: a frame in
// segmentation or frames queued for its MS.
func (t *TBF) dlBacklog() bool {
	return t.state == TBFFlow && (t.dl.haveCur || t.ms.Queue.Len() > 0)
}

// sparseSlack bounds how far, in DL data blocks, a TBF with a sparse frame
// to send (sparseWork) may get ahead of the TBF that airtime fairness
// would serve: an MS whose sparse flows never stop (a voice stream beside a
// download) takes at most this much from the others, then shares as before.
const sparseSlack = 50

// sparseWork: the MS has a sparse frame (a ping, a TCP handshake, DNS) to
// send behind its own download, or is sending one (llc.Frame.Sparse): its
// TBF goes before the other MSs' new data on its PDCHs (buildDLData), so the
// frame waits for the rest of its MS's current frame at the full rate of the
// PDCHs, not at a share of it. FQ-CoDel (RFC 8290 §4.1) serves new flows
// first within one queue; this does the same across the MSs of a PDCH, for
// the one frame, within sparseSlack. Nothing changes for an MS with one
// flow, or without flow queues.
func (t *TBF) sparseWork() bool {
	return t.dl.haveCur && t.dl.curFr.Sparse || t.ms.Queue.SparseBehindBulk()
}

// buildDLData picks a DL TBF on p and writes its next data block: the
// highest dlPrio, then the least airtime (blocks sent), but a TBF with
// sparseWork goes first among those with new data, within sparseSlack. It
// tells the chosen MS's queue how many MSs have data on p (SetSharers).
func (e *Engine) buildDLData(bts *BTS, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	var best, sparse *TBF
	bestPrio, withData := 0, 0
	n := len(p.dl)
	for i := 0; i < n; i++ {
		t := p.dl[(p.nextDL+i)%n]
		if t.dlBacklog() {
			withData++
		}
		pr := e.dlPrio(t, p.TS)
		if pr == 0 {
			continue
		}
		if pr > bestPrio || pr == bestPrio && t.dl.airtime < best.dl.airtime {
			best, bestPrio = t, pr
		}
		if pr == prioNewData && (sparse == nil || t.dl.airtime < sparse.dl.airtime) && t.sparseWork() {
			sparse = t
		}
	}
	if best == nil {
		return 0
	}
	if bestPrio == prioNewData && sparse != nil && sparse.dl.airtime < best.dl.airtime+sparseSlack {
		best = sparse
	}
	p.nextDL = (p.nextDL + 1) % max(n, 1)
	// the MSs with data here keep the PDCH busy together: the automatic
	// RED thresholds of best's queue are its share (llc.REDParamsShared)
	best.ms.Queue.SetSharers(withData)
	return e.dlDataBlock(best, p, fn, usf, bestPrio, blk)
}

// nextBSN picks the BSN of the next data unit of t: a NACKed one; else, on
// a stalled window, a preemptive resend or a poll with nothing new, a
// block marked for resend; else a new one filled from the LLC queue with cs.
func (e *Engine) nextBSN(t *TBF, prio int, cs rlcmac.CodingScheme) (bsn int, resend, ok bool) {
	bts := t.bts
	bsn = t.dl.sw.ResendNeeded()
	resend = bsn >= 0
	stalled := t.dl.sw.Stalled()
	if !resend && (stalled || prio == prioPreempt || prio == prioPollAgain && (t.ms.Queue.Len() == 0 && !t.dl.haveCur)) {
		if t.dl.sw.MarkForResend() > 0 {
			if stalled {
				bts.Ctr.Inc(CtrRLCStalled)
			} else {
				bts.Ctr.Inc(CtrRLCRestarted)
			}
		}
		bsn = t.dl.sw.ResendNeeded()
		resend = bsn >= 0
	}
	if resend {
		t.dl.sw.MarkSent(bsn)
		bts.Ctr.Inc(CtrRLCResent)
		return bsn, true, true
	}
	bsn, ok = t.dl.sw.SendNew()
	if !ok {
		return 0, false, false
	}
	e.fillDLBlock(t, bsn, cs)
	return bsn, false, true
}

// pollDL decides whether the block asks for a DL Ack/Nack (§9.1.8.1), and
// reserves the answer. A short frame (a ping, a TCP ack, DNS) usually makes
// the MS answer: it is polled at once so its Channel Request Description
// comes back without waiting for the next periodic poll.
func (e *Engine) pollDL(t *TBF, p *PDCH, fn uint32, prio int, fbi, small, resend bool) (uint8, bool) {
	// every 20 blocks: sincePoll counts the blocks sent before this one
	// since the last poll, that one included (osmo-pcu tbf_dl.cpp
	// m_tx_counter, POLL_ACK_AFTER_FRAMES: checked before it counts the
	// block, reset to 0 by a poll and counted for the poll block), so a
	// TBF's first periodic poll is in its 21st block, the next ones 20
	// blocks apart
	periodic := t.dl.sincePoll >= 20
	t.dl.sincePoll++
	if small && !resend {
		// a short frame ended here: poll in this block, or in the next
		// one on the control TS (polls are answered there only)
		t.dl.pollSoon = true
	}
	if m := t.ms; m.idleAck {
		// `queue idle-ack-delay` after the last DL-UNITDATA: the SGSN
		// has paused, so learn now what the MS has (osmo-pcu gprs_ms.c
		// ms_llc_timer_cb: the timer asks its DL TBF for an ack if the
		// TBF was in FLOW when it fired; the next data block carries the
		// poll)
		if due := m.lastEnq + time.Duration(e.params.LLC.IdleAckDelay)*10*time.Millisecond; e.now >= due {
			m.idleAck = false
			if t.state == TBFFlow && t.dl.flowAt <= due {
				t.dl.pollSoon = true
			}
		}
	}
	if p.TS != t.ctrlTS || t.dl.pollOut || !(periodic || prio == prioPollAgain || fbi || t.dl.drained >= 0 && !resend || t.dl.pollSoon) {
		return 0, false
	}
	rrbp, ok := p.pollRRBP(fn, t, pollDLAck)
	if !ok {
		return 0, false
	}
	t.dl.pollOut = true
	t.dl.sincePoll = 1
	t.dl.pollSoon = false
	t.dl.lastPoll = e.now
	if e.params.OsmoPollAge {
		// osmo-pcu counts a poll's age from the frame of its answer (its
		// frames since the last poll): kept-open TBFs are polled about
		// one RRBP later each time
		t.dl.lastPoll += time.Duration(fnDelta(rrbpFN(fn, rrbp), e.lastFN)) * FramePeriod
	}
	if fbi {
		e.fire(t, evLastSent)
	}
	return rrbp, true
}

// dlDataBlock writes the next DL data block of t: GPRS (TS 44.060
// §10.2.1) or EGPRS (§10.3a.3).
func (e *Engine) dlDataBlock(t *TBF, p *PDCH, fn uint32, usf uint8, prio int, blk []byte) int {
	if t.egprs {
		return e.dlDataBlockEGPRS(t, p, fn, usf, prio, blk)
	}
	bts := t.bts
	bsn, resend, ok := e.nextBSN(t, prio, t.cs)
	if !ok {
		return 0
	}
	b := t.dlb(bsn)
	h := rlcmac.GPRSDLHeader{USF: usf, TFI: t.tfi, FBI: b.fbi, BSN: uint8(bsn), E: b.e}
	if rrbp, ok := e.pollDL(t, p, fn, prio, b.fbi, b.small, resend); ok {
		h.SP, h.RRBP = true, rrbp
	}
	n, err := rlcmac.EncodeGPRSDL(blk, b.cs, &h, b.unit[:b.cs.DataLen()])
	if err != nil {
		e.tbfLog.Error("cannot encode DL data block", "tbf", t, "err", err)
		return 0
	}
	countDLBlock(t, p, b.cs)
	if resend && b.fbi && prio == prioPollAgain {
		// nothing else to send: the final block again, to poll (osmo-pcu
		// tbf_dl.cpp counts only this, not NACKed or preemptive resends)
		bts.Ctr.Inc(CtrRLCFinalBlockResent)
	}
	if !resend {
		t.dl.sentBytes += uint64(b.bytes)
		bts.Ctr.Add(CtrRLCDLPayloadBytes, uint64(b.bytes))
	}
	return n
}

// countDLBlock counts a DL data block sent at cs on p: the BTS's and the
// TBF's per-CS counters, the PDCH's blocks and the TBF's airtime.
func countDLBlock(t *TBF, p *PDCH, cs rlcmac.CodingScheme) {
	t.bts.Ctr.Inc(CtrRLCSent)
	if cs.IsEGPRS() {
		t.bts.Ctr.Inc(CtrEGPRSDLMCS1 + int(cs-rlcmac.MCS1))
		if t.egprsCtr != nil {
			t.egprsCtr.Inc(int(cs - rlcmac.MCS1))
		}
	} else {
		t.bts.Ctr.Inc(CtrGPRSDLCS1 + int(cs-rlcmac.CS1))
		if t.gprsCtr != nil {
			t.gprsCtr.Inc(int(cs - rlcmac.CS1))
		}
	}
	p.blocksOut++
	t.dl.airtime++
}

// smallFrame is the size up to which an LLC frame counts as interactive.
const smallFrame = 200

// fillDLBlock fills a new RLC data unit from the LLC queue: shallow
// buffering, a frame is taken from the queue only when the previous one
// is fully segmented, so the standing queue stays where CoDel sees it.
func (e *Engine) fillDLBlock(t *TBF, bsn int, cs rlcmac.CodingScheme) {
	b := t.dlb(bsn)
	b.cs, b.fbi, b.bytes, b.small = cs, false, 0, false
	unit := b.unit[:cs.DataLen()]
	var u rlcmac.DLUnit
	u.Reset(unit, t.egprs)
	for {
		if !t.dl.haveCur && !e.nextFrame(t) {
			break
		}
		// The last frame of a TBF without delayed release ends it (FBI).
		last := t.ms.Queue.Len() == 0 && e.params.X2031 == 0
		n, res := u.Append(t.dl.cur, last)
		t.dl.cur = t.dl.cur[n:]
		b.bytes += n
		if res == rlcmac.NeedMoreBlocks {
			break // (EGPRS: an exactly filled unit closes the frame with an empty chunk next)
		}
		if len(t.dl.curFrame) <= smallFrame {
			b.small = true
		}
		// fully segmented: kept until its last block is acknowledged
		// (the inflight entry is the frame's only holder from now on)
		t.dl.inflight = append(t.dl.inflight, inflightFrame{fr: t.dl.curFr, last: bsn})
		t.dl.haveCur = false
		t.dl.curFr = llc.Frame{}
		t.dl.curFrame, t.dl.cur = nil, nil
		if last {
			b.fbi = true
			break
		}
		if res == rlcmac.CompletedBlockFilled {
			break
		}
	}
	switch {
	case u.Len() == 0:
		// Nothing to send: an LLC UI dummy keeps the TBF open (TS 44.060
		// §9.3.1a), or closes it as the final block once X2031 is over.
		b.fbi = e.keepOpenOver(t)
		d := llc.AppendDummy(e.dummyBuf[:0], cs.DataLen()-1)
		u.Append(d, true)
		// osmo-pcu counts the dummy as a frame's octets (not as a
		// scheduled frame): llc:dl_bytes and rlc:dl_payload_bytes
		t.bts.Ctr.Add(CtrLLCDLBytes, uint64(len(d)))
		t.bts.Ctr.Add(CtrRLCDLPayloadBytes, uint64(len(d)))
		u.Pad()
	case u.Space() > 0:
		u.Pad()
	}
	b.e = u.E()
	b.n = u.Len()
	if t.ms.Queue.Len() == 0 && !t.dl.haveCur && t.dl.drained < 0 {
		t.dl.drained = e.now
	}
}

// keepOpenOver reports that the delayed release (X2031) has passed since
// the queue drained, so the next empty point ends the TBF.
func (e *Engine) keepOpenOver(t *TBF) bool {
	return t.dl.drained >= 0 && e.now-t.dl.drained >= e.params.X2031
}

// nextFrame takes the next LLC frame from the MS queue into t.dl.cur.
func (e *Engine) nextFrame(t *TBF) bool {
	m := t.ms
	if m.Queue.Len() == 0 {
		return false
	}
	m.Queue.SetTransmitStart(e.now)
	fr, ok, d := m.Queue.Dequeue(e.now)
	if d.Frames > 0 || d.Marked > 0 {
		e.reportDiscard(m, d)
	}
	if !ok {
		return false
	}
	t.bts.Ctr.Inc(CtrLLCFrameSched)
	t.bts.Ctr.Add(CtrLLCDLBytes, uint64(len(fr.Data)))
	t.bts.fc.delaySum += e.now - fr.Enqueued // the SGSN's view: dequeue - enqueue, as osmo-pcu
	t.bts.fc.delayN++
	if o := e.cfg.Observer; o != nil {
		o.Sojourn(m.TLLI, fr.Sojourn)
	}
	t.dl.curFr = fr
	t.dl.curFrame = fr.Data
	t.dl.cur = fr.Data
	t.dl.haveCur = true
	t.dl.drained = -1
	return true
}

// setDrainRate tells the MS's queue what its DL TBF can carry, from which
// plain `queue codel` derives the CoDel target and interval.
func setDrainRate(t *TBF) {
	t.ms.Queue.SetDrainRate(llc.DrainRate(t.cs.DataLen(), popcount8(t.slots)))
}

// reportDiscard counts and reports dropped LLC frames (LLC-DISCARDED) and
// counts ECN marks.
func (e *Engine) reportDiscard(m *MS, d llc.Discard) {
	bts := m.bts
	bts.Ctr.Add(CtrLLCFrameDropped, uint64(d.Frames))
	bts.Ctr.Add(CtrLLCFrameTimedout, uint64(d.Lifetime))
	e.l1ctr.Add(L1LLCCoDelDropped, uint64(d.CoDel))
	e.l1ctr.Add(L1LLCOverflowDropped, uint64(d.Overflow))
	// per MS: `show llc-queue` (the MS's "pcu:ms" group stays osmo-pcu's,
	// as `show ms all` shows it)
	e.l1ctr.Add(L1LLCECNMarked, uint64(d.Marked))
	for i, n := range d.NoMark {
		e.l1ctr.Add(L1LLCNoMarkNotECT+i, uint64(n))
	}
	e.opDiscard(m, d)                        // oplog.go
	if m.TLLI != TLLIUnset && d.Frames > 0 { // (a DL queue has a TLLI: DL-UNITDATA brings it)
		f, o := d.LLCDiscarded()
		e.gbLLCDiscarded(m, f, o)
	}
}

// dlAckNackEGPRS applies an EGPRS Packet Downlink Ack/Nack (§11.2.6a).
func (e *Engine) dlAckNackEGPRS(t *TBF, a *rlcmac.EGPRSAckNack) {
	va := t.dl.sw.VA()
	acked, nacked, _, err := t.dl.sw.ApplyEGPRSAckNack(a)
	if err != nil {
		t.bts.Ctr.Inc(CtrDecodeErrors)
	}
	e.countDelivered(t, va)
	e.dlAcked(t, a.FinalAck, acked, nacked)
}

// dlAckNack applies a Packet Downlink Ack/Nack (TS 44.060 §11.2.6).
func (e *Engine) dlAckNack(t *TBF, a *rlcmac.AckNackDescription) {
	va := t.dl.sw.VA()
	acked, nacked, _ := t.dl.sw.ApplyGPRSAckNack(a)
	t.ms.meas.dlAck(acked, nacked) // (osmo-pcu 1.1.0 shows none of EGPRS Ack/Nacks)
	e.countDelivered(t, va)
	e.dlAcked(t, a.FinalAck, acked, nacked)
}

// countDelivered adds an Ack/Nack to the BTS's flow-control measurement
// (osmo-pcu gprs_bssgp_pcu.c get_and_reset_measured_leak_rate(), fed by
// tbf_dl.cpp analyse_errors()): the blocks V(A) moved past since va with
// their data unit length, whatever the unit carried (LLC data, the LLC
// dummy of a kept-open TBF, padding; osmo-pcu's rlc_data->len), and the
// blocks newly reported missing, without octets. The measured rate is
// thus the radio's rate less its losses. Counting only the LLC octets, as
// gopcu did before, made it fall whenever the MSs' queues ran short (half
// filled last blocks, keep-open dummies): FLOW-CONTROL-BVC then offered
// the SGSN less than the cell could carry, the SGSN held the frames back
// (libosmogb's BVC bucket), the queues ran shorter still, and on the real
// network two phones' downloads and pings stalled for seconds behind the
// SGSN's flow control, out of the AQM's sight.
func (e *Engine) countDelivered(t *TBF, va int) {
	fc := &t.bts.fc
	for bsn := va; bsn != t.dl.sw.VA(); bsn = (bsn + 1) & (t.dl.sw.SNS() - 1) {
		fc.recvBlocks++
		fc.recvBytes += uint64(t.dlb(bsn).cs.DataLen())
	}
	fc.recvBlocks += uint64(t.dl.sw.TakeLost())
}

func (e *Engine) dlAcked(t *TBF, final bool, acked, nacked int) {
	// frames whose blocks V(A) has passed are delivered: their life ends
	// (the window's blocks hold copies of their octets, so a
	// retransmission needs no frame), their buffers go back to the pool
	k := 0
	for k < len(t.dl.inflight) && !t.dl.sw.InWindow(t.dl.inflight[k].last) {
		e.llcShared.Release(&t.dl.inflight[k].fr)
		k++
	}
	if k > 0 {
		n := copy(t.dl.inflight, t.dl.inflight[k:])
		clear(t.dl.inflight[n:])
		t.dl.inflight = t.dl.inflight[:n]
	}
	t.dl.pollOut = false
	t.dl.everAcked = true
	if nacked > 0 {
		t.bts.Ctr.Add(CtrRLCNacked, uint64(nacked))
		if t.ctr != nil {
			t.ctr.Add(TBFCtrRLCNacked, uint64(nacked))
		}
	}
	e.adaptDLCS(t, acked, nacked)
	e.fire(t, evData) // N3105 restarts; ASSIGN -> FLOW
	if final && t.state == TBFFinished {
		e.fire(t, evFinalAck)
	}
}

// adaptDLCS is the DL link adaptation (osmo-pcu gprs_ms.c ms_update_error_rate()): the error
// rate of the blocks an Ack/Nack reported moves the coding scheme one step
// down above `cs threshold` upper, one step up below the lower threshold
// (at most once a second), within `cs max` and the CSs the BTS allows.
// Retransmissions keep the CS their block was first sent with.
func (e *Engine) adaptDLCS(t *TBF, acked, nacked int) {
	p := &e.params
	if !p.CSAdjust || acked+nacked < 2 {
		return
	}
	rate := nacked * 100 / (acked + nacked)
	base, mx, mask := rlcmac.CS1, p.CSMaxDL, uint16(t.bts.CSMask)
	if t.egprs {
		base, mx, mask = rlcmac.MCS1, p.MCSMaxDL, t.bts.MCSMask
	}
	top := 4
	if t.egprs {
		top = 9
	}
	if mx <= 0 || mx > top {
		mx = top
	}
	cs := int(t.cs - base + 1)
	switch {
	case rate > p.CSAdjUpper && cs > 1:
		cs--
		t.dl.laUp = e.now
	case rate < p.CSAdjLower && cs < mx && e.now-max(t.dl.laUp, t.ms.created) >= time.Second:
		// (the first step up waits a second from the MS's creation, as
		// osmo-pcu's last_cs_not_low starts at ms_alloc)
		cs++
		t.dl.laUp = e.now
	case rate <= p.CSAdjUpper && rate >= p.CSAdjLower:
		// a medium error rate restarts the hold before the next step up
		// (osmo-pcu ms_update_error_rate: last_cs_not_low)
		t.dl.laUp = e.now
		return
	default:
		return
	}
	for cs > 1 && mask&(1<<(cs-1)) == 0 {
		cs--
	}
	ncs := base + rlcmac.CodingScheme(cs-1)
	if ncs == t.cs {
		return
	}
	e.tbfLog.Debug("DL coding scheme changed", "tbf", t, "from", t.cs, "to", ncs, "error_rate", rate)
	t.cs = ncs
	if t.egprs {
		t.ms.MCSDL = ncs
	} else {
		t.ms.CSDL = ncs
	}
	setDrainRate(t)
}
