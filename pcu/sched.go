package pcu

import (
	"errors"
	"math/bits"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

var errNoResource = errors.New("pcu: no radio resource")

// usfUnused is the USF value nobody owns (TS 44.060 §10.4.1: 7 on PCCCH,
// never assigned by gopcu).
const usfUnused = 7

// reservation expiry: a reserved uplink block whose FN lies this far behind
// the newest RTS FN will not be answered any more. The BTS asks for DL
// blocks about a block ahead of air time and reports UL blocks after they
// end, so two block periods of margin suffice.
const resvExpiryFrames = 26

// advance moves radio time to fn (the newest RTS/TIME_IND FN) and runs
// everything that is due.
func (e *Engine) advance(bts *BTS, fn uint32) {
	if !e.fnValid {
		e.lastFN, e.fnValid = fn, true
		e.radio = e.now
		e.wallBase = e.cfg.Clock.Now() - e.now
		return
	}
	if d := fnDelta(fn, e.lastFN); d > 0 {
		e.radio += time.Duration(d) * FramePeriod
		e.lastFN = fn
		e.expireReservations(bts, fn)
	}
	if e.clockNow() {
		e.runTimers(bts)
	}
}

// clockNow moves the engine's time to the later of radio time (the BTS's
// frame number) and the monotonic clock, both counted from the first
// frame number: TBF timers run on the monotonic clock as osmo-pcu's do
// (a BTS whose frame clock stalls still sees its TBFs released), while a
// BTS that runs faster than real time (an emulator in virtual time) keeps
// the radio-time behaviour. It reports whether the time moved.
func (e *Engine) clockNow() bool {
	if !e.fnValid {
		return false
	}
	now := e.radio
	if w := e.cfg.Clock.Now() - e.wallBase; w > now {
		now = w
	}
	if now <= e.now {
		return false
	}
	e.now = now
	return true
}

// timersDue moves the time and fires what is due on every BTS: the
// engine loop calls it when the earliest TBF deadline passes without a
// frame from the BTS, and before it acts on input from the SGSN.
func (e *Engine) timersDue() {
	if !e.clockNow() {
		return
	}
	for _, bts := range e.btsList {
		e.runTimers(bts)
	}
}

func (e *Engine) expireReservations(bts *BTS, fn uint32) {
	// only the PDCHs that got a reservation since they last had none
	// (BTS.resvMask), not all 64 on every frame
	for ti := range bts.resvMask {
		for m := bts.resvMask[ti]; m != 0; m &= m - 1 {
			ts := bits.TrailingZeros8(m)
			p := &bts.TRX[ti].PDCH[ts]
			e.expirePDCH(bts, p, fn, resvExpiryFrames)
			if len(p.resv) == 0 {
				bts.resvMask[ti] &^= 1 << ts
			}
		}
	}
}

// expirePDCH ends the reservations of p whose FN lies more than margin
// frames before fn: their uplink block came without the answer (USF:
// N3101, poll: the poll's timeout, single block: freed).
func (e *Engine) expirePDCH(bts *BTS, p *PDCH, fn uint32, margin int) {
	if len(p.resv) == 0 {
		return
	}
	keep := p.resv[:0]
	expired := e.expired[:0]
	for _, r := range p.resv {
		if fnDelta(fn, r.fn) > margin {
			expired = append(expired, r)
		} else {
			keep = append(keep, r)
		}
	}
	p.resv = keep
	e.expired = expired[:0] // scratch kept for the next call (no allocation per block)
	for _, r := range expired {
		switch r.kind {
		case resvUSF:
			e.usfTimeout(r.tbf)
		case resvSBA:
			bts.Ctr.Inc(CtrSBATimedout)
		default:
			e.pollTimeout(r.tbf, r.reason)
		}
	}
}

// runTimers fires due TBF timers and releases idle MSs.
func (e *Engine) runTimers(bts *BTS) {
	if e.nextDeadline != 0 && e.now >= e.nextDeadline {
		e.nextDeadline = 0
		earliest := func(next time.Duration) {
			if next != 0 && (e.nextDeadline == 0 || next < e.nextDeadline) {
				e.nextDeadline = next
			}
		}
		for _, b := range e.btsList { // (the deadline is engine-wide)
			for i := 0; i < len(b.tbfs); i++ {
				t := b.tbfs[i]
				earliest(e.expireTimers(t))
				if i < len(b.tbfs) && b.tbfs[i] != t {
					i--
				}
			}
			earliest(e.expirePCH(b))
		}
	}
	e.naccTick(bts)
	e.msTimers(bts) // pcu/ms.go, msidle.go: no scan of every MS
}

// usfTimeout: a granted uplink block stayed empty (N3101, TS 44.060 §13.3).
func (e *Engine) usfTimeout(t *TBF) {
	if t.state != TBFFlow {
		return
	}
	e.count(t, nN3101)
}

// pollTimeout: the MS did not answer a poll (osmo-pcu tbf.cpp gprs_rlcmac_tbf::poll_timeout()).
func (e *Engine) pollTimeout(t *TBF, why pollReason) {
	if t.released() {
		return
	}
	bts := t.bts
	switch why {
	case pollULAck:
		bts.Ctr.Inc(CtrRLCAckTimedout)
		bts.Ctr.Inc(CtrPktULAckNackTimeout)
		t.pollLost(&t.ulAck, e.count(t, nN3103)) // send it again, up to N3103
	case pollULAss:
		if t.ulAss == ctlNone {
			// the assignment ended meanwhile (ulAssignConfirmed);
			// osmo-pcu tbf.cpp poll_timeout: "not expected", ignored
			return
		}
		if t.state == TBFFlow || t.state == TBFFinished {
			// the MS sends on the TBF: it has the assignment, only
			// its Control Ack was lost
			e.ulAssignConfirmed(t)
			return
		}
		bts.Ctr.Inc(CtrRLCAssTimedout)
		bts.Ctr.Inc(CtrULAssPollTimeout)
		t.pollLost(&t.ulAss, e.assignPollFailed(t, CtrULAssFailed)) // repeat the assignment
	case pollDLAss:
		bts.Ctr.Inc(CtrRLCAssTimedout)
		bts.Ctr.Inc(CtrDLAssTimeout)
		t.pollLost(&t.dlAss, e.assignPollFailed(t, CtrDLAssFailed)) // repeat the assignment
	case pollCellChgContinue:
		e.naccPollTimeout(t)
	case pollDLAck:
		t.dl.pollOut = false
		t.dl.pollSoon = true // the poll was lost: the next block on the control TS asks again
		if t.state == TBFReleasing {
			bts.Ctr.Inc(CtrRLCRelTimedout)
		} else {
			bts.Ctr.Inc(CtrRLCAckTimedout)
			bts.Ctr.Inc(CtrPktDLAckNackTimeout)
		}
		e.tbfLog.Debug("DL Ack/Nack poll timed out", "tbf", t, "n3105", t.n[nN3105]+1)
		if e.count(t, nN3105) {
			bts.Ctr.Inc(CtrPktDLAckNackFailed)
			bts.Ctr.Inc(CtrRLCAckFailed)
			return
		}
		e.fire(t, evAckMiss)
	}
}

// pollLost is what a control procedure s of t does when its poll went
// unanswered: its message is sent again (POLL_TIMEOUT), or, when failed
// (the counter of lost polls reached its maximum), the procedure ends
// (ABORT).
func (t *TBF) pollLost(s *ctlState, failed bool) {
	if failed {
		t.ctl(s, ctlAbort)
		return
	}
	t.ctl(s, ctlPollTimeout)
}

// assignPollFailed counts an unanswered assignment poll in N3105 of the
// TBF that sent it (its carrier, or itself), as osmo-pcu's
// tbf.cpp poll_timeout; at the maximum that TBF is released (MAX_N3105)
// and the assignment ends: rlc:ass:failed and ctr count it. N3105 is a DL
// TBF's counter: an UL TBF's PACCH repeats the assignment until the
// assigned TBF's guard (X2001, T3168) ends it, as osmo-pcu (which counts
// only when the sender is a DL TBF; TC_x2001_pacch_pkt_dl_ass_unanswered_timeout).
func (e *Engine) assignPollFailed(t *TBF, ctr int) bool {
	c := t.assignOn
	if c == nil {
		c = t
	}
	if c.dir != DirDL || !e.count(c, nN3105) {
		return false
	}
	t.bts.Ctr.Inc(CtrRLCAssFailed)
	t.bts.Ctr.Inc(ctr)
	return true
}

// pickUSF decides the USF of the DL block at fn: who may send in the next
// uplink block. A poll or nobody: USF 7.
//
// USFs go in rounds: each UL TBF on the PDCH that may send gets one grant
// per round (usfServed, by USF), in list order from where the round
// starts, and each round starts at a UL TBF drawn at random (a deterministic xorshift per PDCH). A fixed round robin
// runs in step with the DL rotation when both have the same period (two
// MSs, each with an UL and a DL TBF): a GPRS-only MS's USF then rides only
// on its own GPRS blocks, or only on downgraded EGPRS blocks, for the
// whole transfer, depending on how the two started. osmo-pcu chooses the
// USF and the DL block independently (gprs_rlcmac_sched.cpp:
// sched_select_uplink, then sched_select_dl_data_msg with EGPRS_GMSK), and
// TC_multiplex_dl_gprs_egprs expects both pairings to occur (TS 44.060
// §5.2.4a). The random start keeps every round fair while the pairing
// no longer depends on the phase.
func (e *Engine) pickUSF(p *PDCH, fn uint32) uint8 {
	ulfn := ulBlockFN(fn)
	if p.reserved(ulfn) >= 0 {
		return usfUnused
	}
	n := len(p.ul)
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			// nobody left in this round who may send: a new round
			p.usfServed = 0
			if n > 1 {
				p.nextUL = int(p.nextUSFRand() % uint32(n))
			}
		}
		for i := 0; i < n; i++ {
			t := p.ul[(p.nextUL+i)%n]
			// (a TBF whose final Ack/Nack is out has all its blocks). A TBF
			// assigned on CCCH gets USFs from X2002 on, as osmo-pcu's
			// (tbf_ul_fsm.c ASSIGN_READY_CCCH, sched_select_uplink: FLOW
			// only): they count in N3101 only then, and the MS is not
			// expected before (TC_n3101_max_t3169: at most N3101 + 1 USFs).
			// One assigned on PACCH gets them once its assignment is sent.
			if !(t.state == TBFFlow || t.state == TBFAssign && !t.ccch && t.ulAss != ctlSend) || t.ul.lastSeen && t.ul.rw.Complete() {
				continue
			}
			u := t.ul.usf[p.TS]
			if p.usfServed&(1<<u) != 0 {
				continue
			}
			p.usfServed |= 1 << u
			p.nextUL = (p.nextUL + i + 1) % n
			t.bts.addResv(p, resv{fn: ulfn, kind: resvUSF, tbf: t})
			e.usfGMSK = !t.egprs
			return u
		}
	}
	return usfUnused
}

// nextUSFRand steps the PDCH's xorshift32 (Marsaglia 2003; seeded from
// the timeslot number on first use, so a run is repeatable).
func (p *PDCH) nextUSFRand() uint32 {
	x := p.usfRand
	if x == 0 {
		x = 0x9e3779b9 ^ uint32(p.TS+1)*0x85ebca6b
	}
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	p.usfRand = x
	return x
}

// pollRRBP finds a free RRBP for a block sent at fn and reserves it.
func (p *PDCH) pollRRBP(fn uint32, t *TBF, why pollReason) (uint8, bool) {
	for rrbp := uint8(0); rrbp < 4; rrbp++ {
		f := rrbpFN(fn, rrbp)
		if p.reserved(f) < 0 {
			t.bts.addResv(p, resv{fn: f, kind: resvPoll, tbf: t, reason: why})
			return rrbp, true
		}
	}
	return 0, false
}

// schedule picks the downlink block for an RTS on a PDTCH: control before
// data before a dummy block (osmo-pcu gprs_rlcmac_sched.cpp gprs_rlcmac_rcv_rts_block()). nil means idle.
func (e *Engine) schedule(bts *BTS, p *PDCH, r *pcuif.RTSReq) []byte {
	e.clockFN(bts, r.FN)
	bts.fc.rtsBlocks++
	trx := &bts.TRX[r.TRX]
	usf := usfUnused
	e.usfGMSK = false
	if len(p.ul) > 0 {
		usf = int(e.pickUSF(p, r.FN))
	}
	blk := e.txBlock[:]
	if n := e.buildControl(bts, trx, p, r.FN, uint8(usf), blk); n > 0 {
		bts.Ctr.Inc(CtrRLCSentControl)
		bts.Ctr.Add(CtrRLCDLBytes, uint64(n))
		e.tapBlock(gsmtap.CatDLCtrl, false, trx.ARFCN, p.TS, gsmtap.ChannelPACCH, r.FN, 0, 0, blk[:n])
		return blk[:n]
	}
	if n := e.buildDLData(bts, p, r.FN, uint8(usf), blk); n > 0 {
		bts.Ctr.Add(CtrRLCDLBytes, uint64(n))
		cat := gsmtap.CatDLDataGPRS
		if n != 23 && rlcmac.CSFromDLLen(n).IsEGPRS() {
			cat = gsmtap.CatDLDataEGPRS
		}
		e.tapBlock(cat, false, trx.ARFCN, p.TS, gsmtap.ChannelPDTCH, r.FN, 0, 0, blk[:n])
		return blk[:n]
	}
	if usf != usfUnused || len(p.ul) > 0 || len(p.dl) > 0 {
		n := copy(blk, dummyCtrlBlock[:])
		blk[0] = blk[0]&^7 | byte(usf)
		bts.Ctr.Inc(CtrRLCSentDummy)
		bts.Ctr.Add(CtrRLCDLBytes, uint64(n)) // osmo-pcu counts every block sent on a PDCH in use
		e.tapBlock(gsmtap.CatDLDummy, false, trx.ARFCN, p.TS, gsmtap.ChannelPACCH, r.FN, 0, 0, blk[:n])
		return blk[:n]
	}
	return nil
}

// ctlCand is a control message candidate on a PDCH: the TBF whose control
// TS carries it (osmo-pcu's candidate) and the TBF it is for.
type ctlCand struct{ carrier, t *TBF }

// Control message kinds, in osmo-pcu's round-robin order
// (gprs_rlcmac_sched.cpp sched_select_ctrl_msg: UL-ASS, DL-ASS, UL-ACK,
// NACC). Each message sent moves the PDCH's start one kind on, so a
// running UL TBF's Ack/Nacks cannot crowd out an assignment.
const (
	ctlKindULAss = iota // Packet Uplink Assignment or Packet Access Reject
	ctlKindDLAss        // Packet Downlink Assignment
	ctlKindULAck        // Packet Uplink Ack/Nack
	ctlKindNACC         // Packet Neighbour Cell Data, Packet Cell Change Continue (nacc_engine.go)
	ctlKinds
)

// buildControl emits a pending control message whose control TS is this
// PDCH (TS 44.060 §8.1.1.1.2 PACCH), as osmo-pcu picks it: the candidates
// of each kind by their carrier (the last one found wins), tried in
// round-robin order from p.nextCtrl. A carrier with several messages sends
// the first of UL-ASS reject, UL-ASS from a DL TBF, DL-ASS from an UL
// TBF, UL-ACK. An assignment for the carrier's own direction waits for the
// fallback after the rotation. Paging goes last.
func (e *Engine) buildControl(bts *BTS, trx *TRX, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	var cand [ctlKinds]ctlCand
	on := func(c *TBF) bool { return c != nil && c.ctrlTS == p.TS && c.trx == trx.Nr }
	// the TBFs with something to send (the control index, in TBF list
	// order), dropping those that have nothing any more
	live := bts.ctl[:0]
	for _, t := range bts.ctl {
		if t.released() || !t.listed || !t.ctlPending() {
			t.inCtl = false
			continue
		}
		live = append(live, t)
		// an assignment goes on its carrier's PDCH (or, two-phase, on
		// the single block's, the TBF its own carrier), which may be on
		// another TRX than the TBF
		switch {
		case t.dir == DirUL && t.ulAss == ctlSend && on(t.assignOn):
			cand[ctlKindULAss] = ctlCand{t.assignOn, t}
		case t.dir == DirUL && t.ulAss == ctlSend && t.assignOn == nil && t.puaTS == int8(p.TS) && t.puaTRX == trx.Nr:
			cand[ctlKindULAss] = ctlCand{t, t}
		case t.dir == DirDL && t.ulRej == ctlSend && on(t):
			cand[ctlKindULAss] = ctlCand{t, t}
		case t.dir == DirDL && t.dlAss == ctlSend && on(t.assignOn):
			cand[ctlKindDLAss] = ctlCand{t.assignOn, t}
		}
		if t.dir == DirUL && t.ulAck == ctlSend && on(t) {
			cand[ctlKindULAck] = ctlCand{t, t}
		}
	}
	clear(bts.ctl[len(live):])
	bts.ctl = live
	for i := 0; i < ctlKinds; i++ {
		if (p.nextCtrl+i)%ctlKinds == ctlKindNACC {
			if n := e.naccControl(bts, trx, p, fn, usf, blk); n > 0 {
				p.nextCtrl = (p.nextCtrl + 1) % ctlKinds
				return n
			}
			continue
		}
		x := cand[(p.nextCtrl+i)%ctlKinds].carrier
		if x == nil {
			continue
		}
		n := 0
		switch ua, da := cand[ctlKindULAss], cand[ctlKindDLAss]; {
		case x == ua.carrier && ua.t.dir == DirDL && ua.t.ulRej == ctlSend:
			n = e.encodeAccessReject(ua.t, usf, blk)
		case x == ua.carrier && x.dir == DirDL:
			n = e.encodePUA(ua.t, p, fn, usf, blk)
		case x == da.carrier && x.dir == DirUL:
			n = e.encodePDA(da.t, p, fn, usf, blk)
		case x == cand[ctlKindULAck].carrier:
			n = e.encodePUAN(x, p, fn, usf, blk)
		}
		if n > 0 {
			p.nextCtrl = (p.nextCtrl + 1) % ctlKinds
			x.ms.Ctr.Inc(MSCtrDLCtrlMsgSched)
			return n
		}
	}
	// assignments sent by a TBF of their own direction
	for _, c := range []ctlCand{cand[ctlKindDLAss], cand[ctlKindULAss]} {
		if c.t == nil {
			continue
		}
		n := 0
		if c.t.dir == DirDL {
			n = e.encodePDA(c.t, p, fn, usf, blk)
		} else {
			n = e.encodePUA(c.t, p, fn, usf, blk)
		}
		if n > 0 {
			c.carrier.ms.Ctr.Inc(MSCtrDLCtrlMsgSched)
			return n
		}
	}
	for len(p.pages) > 0 { // paging last among control messages
		if n := e.encodePaging(p, usf, blk); n > 0 {
			return n
		}
	}
	return 0
}

// encodePolled writes control message m of t's control procedure s with
// a poll: it reserves the answer's uplink block on p (an RRBP for the
// block at fn) and gives the reservation back when nothing could be sent.
// A message sent makes s wait for the answer (SENT_POLLED) and counts in
// the BTS's counter ctr. 0: not sent.
func (e *Engine) encodePolled(p *PDCH, fn uint32, t *TBF, why pollReason, s *ctlState, ctr int, usf uint8, blk []byte, m rlcmac.Message) int {
	rrbp, ok := p.pollRRBP(fn, t, why)
	if !ok {
		return 0
	}
	h := rlcmac.DLCtrlHeader{RRBP: rrbp, SP: true, USF: usf}
	n := e.encodeCtrl(blk, &h, m)
	if n == 0 {
		p.dropReservations(t)
		return 0
	}
	t.ctl(s, ctlSentPolled)
	t.bts.Ctr.Inc(ctr)
	return n
}

func (e *Engine) encodeCtrl(blk []byte, h *rlcmac.DLCtrlHeader, m rlcmac.Message) int {
	n, err := rlcmac.EncodeDL(blk, h, m)
	if err != nil {
		e.tbfLog.Error("cannot encode control message", "msg", m.Name(), "err", err)
		return 0
	}
	return n
}
