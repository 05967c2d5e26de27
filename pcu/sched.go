package pcu

import (
	"errors"
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
		return
	}
	d := fnDelta(fn, e.lastFN)
	if d <= 0 {
		return
	}
	e.now += time.Duration(d) * FramePeriod
	e.lastFN = fn
	e.expireReservations(bts, fn)
	e.runTimers(bts)
}

func (e *Engine) expireReservations(bts *BTS, fn uint32) {
	for ti := range bts.TRX {
		trx := &bts.TRX[ti]
		for ts := range trx.PDCH {
			p := &trx.PDCH[ts]
			if len(p.resv) == 0 {
				continue
			}
			keep := p.resv[:0]
			expired := e.expired[:0]
			for _, r := range p.resv {
				if fnDelta(fn, r.fn) > resvExpiryFrames {
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
	}
}

// runTimers fires due TBF timers and releases idle MSs.
func (e *Engine) runTimers(bts *BTS) {
	for i := 0; i < len(bts.tbfs); i++ {
		t := bts.tbfs[i]
		if t.timer != tmNone && e.now >= t.deadline {
			k := t.timer
			t.timer = tmNone
			e.timerExpired(t, k)
			if i < len(bts.tbfs) && bts.tbfs[i] != t {
				i--
			}
		}
	}
	e.msTimers(bts) // pcu/ms.go
}

func (e *Engine) timerExpired(t *TBF, k timerKind) {
	e.tbfLog.Debug("TBF timer expired", "tbf", t.String(), "timer", timerNames[k])
	switch k {
	case tmX2002:
		if t.dir == DirUL {
			e.setState(t, TBFFlow)
			return
		}
		e.dlAssignSettled(t)
	case tmX2001:
		t.bts.Ctr.Inc(CtrDLAssTimeout)
		e.freeTBF(t, false)
	case tmT3141:
		e.freeTBF(t, true)
	case tmCCCHCnf:
		// The BTS never confirmed the IMM ASS: send it again.
		e.sendDLImmAss(t)
	case tmT3169, tmT3191, tmT3195:
		if k == tmT3191 {
			t.bts.Ctr.Inc(CtrRLCRelTimedout)
		}
		e.freeTBF(t, t.state == TBFFlow)
	case tmT3193:
		e.freeTBF(t, false)
	}
}

// usfTimeout: a granted uplink block stayed empty (N3101, TS 44.060 §13.3).
func (e *Engine) usfTimeout(t *TBF) {
	if t.state != TBFFlow || t.freed {
		return
	}
	t.n3101++
	if t.n3101 >= e.params.N3101 && e.params.N3101 > 0 {
		e.tbfLog.Info("N3101 reached, releasing UL TBF", "tbf", t.String())
		e.setState(t, TBFReleasing)
		e.setTimer(t, tmT3169, e.params.T3169)
	}
}

// pollTimeout: the MS did not answer a poll (osmo-pcu-facts §4.5).
func (e *Engine) pollTimeout(t *TBF, why pollReason) {
	if t.freed {
		return
	}
	bts := t.bts
	switch why {
	case pollULAck:
		bts.Ctr.Inc(CtrRLCAckTimedout)
		bts.Ctr.Inc(CtrPktULAckNackTimeout)
		t.finalAckOut = false
		t.n3103++
		if t.n3103 >= e.params.N3103 {
			bts.Ctr.Inc(CtrPktULAckNackFailed)
			e.setState(t, TBFReleasing)
			e.setTimer(t, tmT3169, e.params.T3169)
			return
		}
		t.pendPUAN = true
	case pollULAss:
		bts.Ctr.Inc(CtrRLCAssTimedout)
		bts.Ctr.Inc(CtrULAssPollTimeout)
		t.sendPUA = true // repeat the assignment
	case pollDLAss:
		bts.Ctr.Inc(CtrRLCAssTimedout)
		bts.Ctr.Inc(CtrDLAssTimeout)
		t.sendPDA = true // repeat the assignment
		t.pdaPolled = false
	case pollDLAck:
		t.pollOut = false
		if t.state == TBFReleasing {
			bts.Ctr.Inc(CtrRLCRelTimedout)
		} else {
			bts.Ctr.Inc(CtrRLCAckTimedout)
			bts.Ctr.Inc(CtrPktDLAckNackTimeout)
		}
		t.n3105++
		e.tbfLog.Debug("DL Ack/Nack poll timed out", "tbf", t.String(), "n3105", t.n3105)
		if t.n3105 >= e.params.N3105 {
			bts.Ctr.Inc(CtrPktDLAckNackFailed)
			bts.Ctr.Inc(CtrRLCAckFailed)
			e.setState(t, TBFReleasing)
			e.setTimer(t, tmT3195, e.params.T3195)
			return
		}
		if t.ccch && !t.everAcked && t.state == TBFFlow {
			// the MS probably never got the IMM ASS: assign again (TS 44.060 §7.2.1.1)
			e.setState(t, TBFAssign)
			e.sendDLImmAss(t)
		}
	}
}

// pickUSF decides the USF of the DL block at fn: who may send in the next
// uplink block. A poll or nobody: USF 7.
func (e *Engine) pickUSF(p *PDCH, fn uint32) uint8 {
	ulfn := ulBlockFN(fn)
	if p.reserved(ulfn) >= 0 {
		return usfUnused
	}
	n := len(p.ul)
	for i := 0; i < n; i++ {
		t := p.ul[(p.nextUL+i)%n]
		if !(t.state == TBFFlow || t.state == TBFAssign && !t.sendPUA) || t.finalAckOut || t.lastSeen && t.rw.Complete() {
			continue
		}
		p.nextUL = (p.nextUL + i + 1) % n
		u := t.usf[p.TS]
		p.resv = append(p.resv, resv{fn: ulfn, kind: resvUSF, tbf: t})
		return u
	}
	return usfUnused
}

// pollRRBP finds a free RRBP for a block sent at fn and reserves it.
func (p *PDCH) pollRRBP(fn uint32, t *TBF, why pollReason) (uint8, bool) {
	for rrbp := uint8(0); rrbp < 4; rrbp++ {
		f := rrbpFN(fn, rrbp)
		if p.reserved(f) < 0 {
			p.resv = append(p.resv, resv{fn: f, kind: resvPoll, tbf: t, reason: why})
			return rrbp, true
		}
	}
	return 0, false
}

// schedule picks the downlink block for an RTS on a PDTCH: control before
// data before a dummy block (osmo-pcu-facts §9.1). nil means idle.
func (e *Engine) schedule(bts *BTS, p *PDCH, r *pcuif.RTSReq) []byte {
	e.clockFN(bts, r.FN)
	bts.fc.rtsBlocks++
	trx := &bts.TRX[r.TRX]
	usf := usfUnused
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

// buildControl emits a pending control message whose control TS is this PDCH.
func (e *Engine) buildControl(bts *BTS, trx *TRX, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	for _, t := range bts.tbfs {
		if t.freed {
			continue
		}
		// an assignment goes on its carrier's PDCH (or, two-phase, on
		// the single block's), which may be on another TRX than the TBF
		switch {
		case t.dir == DirDL && t.sendPDA && t.assignOn != nil && t.assignOn.ctrlTS == p.TS && t.assignOn.trx == trx.Nr:
			if n := e.encodePDA(t, p, fn, usf, blk); n > 0 {
				t.ms.Ctr.Inc(MSCtrDLCtrlMsgSched)
				return n
			}
		case t.dir == DirUL && t.sendPUA && (t.assignOn != nil && t.assignOn.ctrlTS == p.TS && t.assignOn.trx == trx.Nr ||
			t.assignOn == nil && t.puaTS == int8(p.TS) && t.puaTRX == trx.Nr):
			if n := e.encodePUA(t, p, fn, usf, blk); n > 0 {
				t.ms.Ctr.Inc(MSCtrDLCtrlMsgSched)
				return n
			}
		case t.dir == DirUL && t.pendPUAN && t.trx == trx.Nr && t.ctrlTS == p.TS:
			if n := e.encodePUAN(t, p, fn, usf, blk); n > 0 {
				t.ms.Ctr.Inc(MSCtrDLCtrlMsgSched)
				return n
			}
		}
	}
	for len(p.pages) > 0 { // paging last among control messages (osmo-pcu-facts §9.1)
		if n := e.encodePaging(p, usf, blk); n > 0 {
			return n
		}
	}
	return 0
}

func (e *Engine) encodeCtrl(blk []byte, h *rlcmac.DLCtrlHeader, m rlcmac.Message) int {
	n, err := rlcmac.EncodeDL(blk, h, m)
	if err != nil {
		e.tbfLog.Error("cannot encode control message", "msg", m.Name(), "err", err)
		return 0
	}
	return n
}
