package pcu

import (
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Uplink TBF establishment (TS 44.060 §7.1, TS 44.018 §3.5.2): one-phase
// and two-phase access on CCCH (RACH, Immediate Assignment, single block
// allocation, Packet Resource Request), UL TBFs requested on PACCH (in a DL
// Ack/Nack or the final Packet Uplink Ack/Nack's poll), and their Packet
// Uplink Assignment or Packet Access Reject.

// onRACH handles a channel request on CCCH (TS 44.018 §9.1.8; osmo-pcu bts.cpp bts_rcv_rach()).
func (e *Engine) onRACH(bts *BTS, m *pcuif.RACHInd) {
	bts.Ctr.Inc(CtrRACHRequests)
	if e.tap.sink != nil {
		e.tapBlock(gsmtap.CatULRACH, true, bts.TRX[m.TRX].ARFCN, m.TS, gsmtap.ChannelRACH, m.FN, 0, 0, gsmtap.RACHPayload(m.RA, m.Is11Bit))
	}
	fn := m.FN
	if e.fnValid {
		fn = rfnToFN(m.FN, e.lastFN)
	}
	ta := int(m.QTA)
	if ta < 0 {
		ta = 0
	}
	if ta > 252 {
		ta = 252
	}
	ta /= 4
	if m.Is11Bit {
		bts.Ctr.Inc(CtrRACHRequests11Bit)
		e.egprsRACH(bts, m, fn, uint8(ta))
		return
	}
	ra := uint8(m.RA)
	if ra&0xf8 == 0x70 || e.params.TwoPhaseAccess {
		// single block request (TS 44.018 §9.1.8), or `two-phase-access`
		bts.Ctr.Inc(CtrRACHRequestsTwoPhase)
		e.singleBlock(bts, uint16(ra), false, fn, uint8(ta))
		return
	}
	bts.Ctr.Inc(CtrRACHRequestsOnePhase)
	e.onePhase(bts, uint16(ra), false, fn, uint8(ta), 0)
}

// onePhase answers a one-phase access: a new MS with an UL TBF assigned on
// AGCH ("HH 00" for an 8-bit RACH, "LH 00" EGPRS for an 11-bit one with
// the EGPRS multislot class egprsClass), or an IMM ASS REJ.
func (e *Engine) onePhase(bts *BTS, ra uint16, is11 bool, fn uint32, ta uint8, egprsClass int) {
	ms := e.newMS(bts, TLLIUnset)
	ms.TA = ta
	ms.EGPRSClass = egprsClass
	t, err := e.allocUL(bts, ms)
	if err != nil {
		e.freeMS(ms)
		e.sendReject(bts, rlcmac.IAReject(ra, is11, fn, e.waitInd(bts)))
		return
	}
	if is11 {
		e.makeEGPRSUL(t)
	}
	e.fire(t, evAssignCCCH)
	ia := ulImmAss(&bts.TRX[t.trx], t.ctrlTS, ra, is11, fn, ta)
	if is11 {
		ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IAREGPRSPacketUpl, HasExtRA: true, ExtRA: uint8(ra & 0x1f), Dynamic: true,
			TFI: t.tfi, USF: t.ul.usf[t.ctrlTS], ChannelCoding: t.cs.ChannelCodingCommand(), TLLIBlockCC: true,
			WindowSize: rlcmac.EGPRSWindowSizeCode(t.ul.rw.WS()), HasAlpha: true}
	} else {
		ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IARPacketUplink, Dynamic: true, TFI: t.tfi, USF: t.ul.usf[t.ctrlTS],
			ChannelCoding: uint8(t.cs - rlcmac.CS1), TLLIBlockCC: true}
	}
	if ms.TAI >= 0 {
		ia.Rest.HasTAI, ia.Rest.TAI = true, uint8(ms.TAI)
	}
	if e.sendULImmAss(bts, &ia, CtrImmAssULOnePhase, "UL IMM ASS") {
		e.tbfLog.Info("UL TBF assigned on CCCH", "tbf", t, "ra", ra, "fn", fn, "cs", t.cs)
	}
}

// ulImmAss is the start of an IMMEDIATE ASSIGNMENT of uplink resources on
// PDCH ts of trx (TS 44.018 §9.1.18) that answers the access burst ra of
// frame fn (11-bit: Request Reference RA 0x7F, the Extended RA goes in the
// rest octets), with timing advance ta.
func ulImmAss(trx *TRX, ts uint8, ra uint16, is11 bool, fn uint32, ta uint8) rlcmac.ImmediateAssignment {
	ia := rlcmac.ImmediateAssignment{TBF: true}
	packetChannel(&ia, trx, ts)
	ia.ReqRef.RA = uint8(ra)
	if is11 {
		ia.ReqRef.RA = 0x7f
	}
	ia.ReqRef.SetFN(fn)
	ia.TA = ta
	return ia
}

// sendULImmAss sends an uplink IMMEDIATE ASSIGNMENT on AGCH and counts
// it (immediate:assignment_UL and ctr, its kind of access); what names
// it in the log if it cannot be encoded.
func (e *Engine) sendULImmAss(bts *BTS, ia *rlcmac.ImmediateAssignment, ctr int, what string) bool {
	var mac [rlcmac.MACBlockLen]byte
	if _, err := rlcmac.EncodeImmediateAssignment(mac[:], ia); err != nil {
		e.tbfLog.Error("cannot encode "+what, "err", err)
		return false
	}
	e.sendAGCH(bts, mac[:], msgIDNone, false)
	bts.Ctr.Inc(CtrImmAssUL)
	bts.Ctr.Inc(ctr)
	return true
}

// egprsRACH handles an 11-bit access burst (osmo-pcu bts.cpp parse_egprs_pkt_ch_req()): on
// ACCESS_1/ACCESS_2 bursts an EGPRS Packet Channel Request (TS 44.060
// §11.2.5a); one-phase requests get an EGPRS UL TBF, two-phase, short and
// signalling requests a single block, the rest an IMM ASS REJ.
func (e *Engine) egprsRACH(bts *BTS, m *pcuif.RACHInd, fn uint32, ta uint8) {
	ra := m.RA & 0x7ff
	reject := func() {
		bts.Ctr.Inc(CtrRACHRequestsUnexpected)
		e.sendImmAssRejectExt(bts, ra, fn)
	}
	if m.BurstType != 2 && m.BurstType != 3 || bts.MCSMask == 0 {
		reject() // ACCESS_0: PBCCH Packet Channel Request, not supported
		return
	}
	var class int
	switch {
	case ra>>10 == 0: // One Phase Access Request: 0 <class:5> <prio:2> <rnd:3>
		class = int(ra>>5&0x1f) + 1
	case ra>>8 == 0b101: // One Phase Access by Reduced Latency MS
		class = int(ra>>3&0x1f) + 1
	case ra>>8 == 0b100, ra>>5 == 0b110000, ra>>5 == 0b110011, ra>>5 == 0b110001, ra>>5 == 0b110010:
		// short access, two-phase, signalling (and their IPA forms)
		bts.Ctr.Inc(CtrRACHRequestsTwoPhase)
		e.singleBlock(bts, ra, true, fn, ta)
		return
	default: // one phase unack, dedicated channel, emergency call, unknown
		reject()
		return
	}
	bts.Ctr.Inc(CtrRACHRequestsOnePhase)
	e.onePhase(bts, ra, true, fn, ta, class)
}

// firstPDCH is the PDCH single blocks go on: the highest enabled TS of
// the first TRX with PDCHs.
func firstPDCH(bts *BTS) (*TRX, int) {
	for i := range bts.TRX {
		if m := bts.TRX[i].enabled; m != 0 {
			for s := 7; s >= 0; s-- {
				if m&(1<<s) != 0 {
					return &bts.TRX[i], s
				}
			}
		}
	}
	return nil, -1
}

// sendImmAssRejectExt rejects an 11-bit access (Request Reference RA 0x7F,
// Extended RA in the rest octets).
func (e *Engine) sendImmAssRejectExt(bts *BTS, ra uint16, fn uint32) {
	e.sendReject(bts, rlcmac.IAReject(ra, true, fn, e.waitInd(bts)))
}

// waitInd is the Wait Indication of rejects: T3142 from INFO_IND (20 s if 0).
func (e *Engine) waitInd(bts *BTS) uint8 {
	if w := bts.Info.T3142; w != 0 {
		return w
	}
	return 20
}

func (e *Engine) sendReject(bts *BTS, rej rlcmac.ImmediateAssignmentReject) {
	var mac [rlcmac.MACBlockLen]byte
	if _, err := rlcmac.EncodeImmediateAssignmentReject(mac[:], &rej); err != nil {
		e.tbfLog.Error("cannot encode IMM ASS REJ", "err", err)
		return
	}
	e.sendAGCH(bts, mac[:], msgIDNone, false)
	bts.Ctr.Inc(CtrImmAssRej)
}

// dlPendingOnCCCH reports whether dl is a DL TBF assigned on CCCH that
// the MS never acknowledged: an MS that accesses again never got its
// assignment.
func dlPendingOnCCCH(dl *TBF) bool {
	return dl != nil && dl.ccch && !dl.dl.everAcked && (dl.state == TBFAssign || dl.state == TBFFlow)
}

// dlGoneOnAccess: ms accessed the cell on CCCH (one-phase access: its
// first UL block with its TLLI; two-phase: its Packet Resource Request in
// the single block). An MS does that in packet idle mode only (TS 44.018
// §3.5.2.1.2; in downlink transfer it asks in a DL Ack/Nack, TS 44.060
// §8.1.2.5), so no DL TBF of it runs at the MS: one still assigned on
// CCCH never reached it, and one it had (its T3190 ended it, §13.1, or
// T3192 after the final Ack/Nack) it has left. Any DL TBF the network
// still has for it goes now, as osmo-pcu's tbf_ul_fsm.c frees the MS's DL
// TBF at TBF_EV_FIRST_UL_DATA_RECVD, and the data is assigned again on the
// new UL TBF's PACCH once contention resolution is done. Kept to its own
// timers it would take N3105 polls and T3195 (12 s in the two-phone lab,
// docs/reliability.md) before the MS got any data, while every UL frame
// of the MS cost it another access. The frames it did not acknowledge go
// back to the queue (freeTBF) for the next TBF: the MS is there to take
// them, and its LLC discards a UI frame it already had (TS 44.064 §8.4.2:
// N(U) among the last 32 received).
func (e *Engine) dlGoneOnAccess(ms *MS) {
	dl := ms.DL
	if dl == nil || dl.released() {
		return
	}
	if dlPendingOnCCCH(dl) {
		e.tbfLog.Info("first UL data while a DL TBF is pending on CCCH: freeing it", "tbf", dl)
		e.fireRelease(dl, relCCCHPending)
		return
	}
	e.tbfLog.Info("the MS accessed on CCCH: its DL TBF is gone at the MS, freeing it", "tbf", dl)
	if dl.state == TBFFlow {
		// osmo-pcu tbf.cpp tbf_free(): a DL TBF freed in FLOW is aborted
		dl.bts.Ctr.Inc(CtrTBFDLAborted)
	}
	e.fireRelease(dl, relCCCHAccess)
}

// encodePUA builds a Packet Uplink Assignment (TS 44.060 §11.2.29) for an
// UL TBF requested on PACCH, sent on the carrier's control TS.
func (e *Engine) encodePUA(t *TBF, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	carrier := t.assignOn
	trx := &t.bts.TRX[t.trx]
	pd := &trx.PDCH[t.ctrlTS]
	m := rlcmac.PacketUplinkAssignment{ChannelCoding: uint8(t.cs - rlcmac.CS1), TLLIBlockChannelCoding: true,
		Alloc: rlcmac.AllocDynamic}
	// the MS by its TLLI when known (a Channel Request Description in a DL
	// Ack/Nack, a re-establishment, two-phase access), else by the Global
	// TFI of the TBF whose PACCH carries the assignment (TS 44.060
	// §11.2.29; osmo-pcu create_packet_ul_assign)
	if t.ms.TLLI != TLLIUnset || carrier == nil {
		m.ID = rlcmac.MSID{Kind: rlcmac.IDTLLI, TLLI: t.ms.TLLI}
	} else {
		m.ID = rlcmac.MSID{Kind: rlcmac.IDGlobalTFI, GlobalTFI: rlcmac.GlobalTFI{Downlink: carrier.dir == DirDL, TFI: carrier.tfi}}
	}
	m.TA = packetTA(t.ms)
	m.HasFreq = true
	m.Freq = freqParams(trx, pd)
	m.Dynamic.HasUplinkTFI, m.Dynamic.UplinkTFI = true, t.tfi
	if t.egprs {
		m.EGPRS, m.ChannelCoding, m.Resegment = true, t.cs.ChannelCodingCommand(), true
		m.WindowSize = rlcmac.EGPRSWindowSizeCode(t.ul.rw.WS())
	}
	for ts := 0; ts < 8; ts++ {
		if t.slots&(1<<ts) != 0 {
			m.Dynamic.HasUSF[ts] = true
			m.Dynamic.USF[ts] = t.ul.usf[ts]
		}
	}
	return e.encodePolled(p, fn, t, pollULAss, &t.ulAss, CtrPktULAssignment, usf, blk, &m)
}

// chanReqInAck handles a Channel Request Description in a DL Ack/Nack of
// dl: the MS asks for an UL TBF.
func (e *Engine) chanReqInAck(bts *BTS, dl *TBF, has bool) {
	if has {
		bts.Ctr.Inc(CtrChannelRequestDescription)
		e.ulOnPACCH(bts, dl)
	}
}

// ulOnPACCH assigns an UL TBF requested in a DL Ack/Nack, on the DL TBF's PACCH.
func (e *Engine) ulOnPACCH(bts *BTS, dl *TBF) {
	ms := dl.ms
	if u := ms.UL; u != nil {
		// An MS asks in its DL Ack/Nack only without an UL TBF (TS 44.060
		// §8.1.2.5): an old one whose data all came (FINISHED, or
		// RELEASING after N3103 or N3101) is over for it, its final
		// Ack/Nack's Control Ack lost, and goes, as on a Packet Resource
		// Request (osmo-pcu sched_ul_ass_or_rej assigns the new TBF
		// whatever the old one's state). Waiting for it held the MS's UL
		// data up to T3169 + T3168 (TestChanReqInAckAfterLostFinalAck).
		// One still being assigned or sending stays (the request is
		// ignored, as before).
		if u.state != TBFFinished && u.state != TBFReleasing {
			return
		}
		e.fireRelease(u, relNewUL)
	}
	t, err := e.allocUL(bts, ms)
	if err != nil {
		// no USF, TFI or slot: a Packet Access Reject on the DL TBF's
		// PACCH tells the MS to wait T3172 (TS 44.060 §7.1.3.2.1, osmo-pcu
		// tbf_ul_ass_fsm.c SEND_ASS_REJ)
		dl.ctl(&dl.ulRej, ctlSched)
		return
	}
	t.ul.tlliKnown, t.ul.contention = true, true
	t.assignOn = dl
	e.fire(t, evAssignPACCH)
}

// ulAssignConfirmed: an UL TBF assigned on PACCH got data blocks, but the
// Packet Control Ack of its Packet Uplink Assignment was lost (its poll
// timed out, or a repetition waits to go): the MS has the assignment,
// which ends as acknowledged (gopcu grants USFs once the assignment is
// sent, osmo-pcu only after the Control Ack). Sent again, it could reach
// the MS after its final Packet Uplink Ack/Nack, and the MS would take it
// for a new UL TBF (TestPUANotRepeatedAfterData).
func (e *Engine) ulAssignConfirmed(t *TBF) {
	if t.ulAss == ctlNone {
		return
	}
	t.ctl(&t.ulAss, ctlAbort)
	t.assignOn = nil
	if t.ms.Queue.Len() > 0 && t.ms.DL == nil {
		e.establishDL(t.bts, t.ms) // on its PACCH, as after the Control Ack
	}
}

// encodeAccessReject builds the Packet Access Reject (TS 44.060 §11.2.1)
// for the MS of t, by TLLI, with WAIT_INDICATION from T3172: in units of
// 20 ms when it fits 255 of them, else in seconds (osmo-pcu
// write_packet_access_reject).
func (e *Engine) encodeAccessReject(t *TBF, usf uint8, blk []byte) int {
	r := rlcmac.RejectEntry{IDKind: rlcmac.RejectTLLI, TLLI: t.ms.TLLI, HasWait: true}
	if w := e.params.T3172; w <= 255*20*time.Millisecond {
		r.Wait, r.WaitSize = uint8(w/(20*time.Millisecond)), true
	} else {
		r.Wait = uint8(min(w/time.Second, 255))
	}
	m := rlcmac.PacketAccessReject{N: 1, Reject: [4]rlcmac.RejectEntry{r}}
	h := rlcmac.DLCtrlHeader{USF: usf}
	n := e.encodeCtrl(blk, &h, &m)
	if n > 0 {
		t.ctl(&t.ulRej, ctlSent)
		t.bts.Ctr.Inc(CtrPktAccessReject)
	}
	return n
}

// singleBlock answers a two-phase access RACH with a single block
// allocation (TS 44.018 §3.5.2.1.3.1, osmo-pcu bts.cpp bts_alloc_sba()): one uplink
// block on the highest enabled PDCH of the first TRX, at least 52 frames
// ahead (AGCH latency), announced by an Immediate Assignment with a TBF
// starting time.
func (e *Engine) singleBlock(bts *BTS, ra uint16, is11 bool, rachFN uint32, ta uint8) {
	trx, ts := firstPDCH(bts)
	if ts < 0 {
		e.sendReject(bts, rlcmac.IAReject(ra, is11, rachFN, e.waitInd(bts)))
		return
	}
	p := &trx.PDCH[ts]
	fn := nextBlockFN(fnAdd(e.lastFN, 52))
	for p.reserved(fn) >= 0 {
		fn = nextBlockFN(fn)
	}
	bts.addResv(p, resv{fn: fn, kind: resvSBA, ta: ta})
	bts.Ctr.Inc(CtrSBAAllocated)
	ia := ulImmAss(trx, uint8(ts), ra, is11, rachFN, ta)
	ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IARPacketUplink, Dynamic: false, HasStartTime: true}
	if is11 { // EGPRS multi block assignment of one block ("LH 00")
		ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IAREGPRSPacketUpl, HasExtRA: true, ExtRA: uint8(ra & 0x1f), HasStartTime: true,
			HasAlpha: true}
	}
	ia.Rest.T1, ia.Rest.T3, ia.Rest.T2 = rlcmac.StartingTimeFromFN(fn)
	e.sendULImmAss(bts, &ia, CtrImmAssULTwoPhase, "single block IMM ASS")
}

// resourceRequest handles a Packet Resource Request (TS 44.060 §11.2.16)
// in a single block allocation: the MS named by its TLLI gets an UL TBF,
// assigned with a Packet Uplink Assignment on the PDCH of the request.
func (e *Engine) resourceRequest(bts *BTS, p *PDCH, r resv, m *rlcmac.PacketResourceRequest, lq int16) {
	if r.kind == resvPoll && r.reason == pollULAck && r.tbf != nil {
		e.reuseULTBF(bts, p, r.tbf, m)
		return
	}
	if r.kind != resvSBA || !m.ID.IsTLLI {
		e.tbfLog.Debug("Packet Resource Request outside a single block allocation", "fn", r.fn)
		return
	}
	bts.Ctr.Inc(CtrSBAFreed)
	ms := bts.ms.byTLLI[m.ID.TLLI]
	if ms == nil {
		ms = e.newMS(bts, m.ID.TLLI)
	}
	ms.suspended = false // its own access: it is back
	ms.TA = r.ta
	if m.HasRAC {
		if g, eg, _ := m.RAC.MultislotClasses(); g > 0 {
			ms.MSClass, ms.EGPRSClass = int(g), int(eg)
		}
	}
	// any old TBF of the MS goes: it is on the PDCH for a new one (a DL
	// TBF is assigned again on PACCH once this one is acknowledged;
	// osmo-pcu bts_rcv_resource_request)
	if ms.UL != nil {
		e.fireRelease(ms.UL, relNewUL)
	}
	e.dlGoneOnAccess(ms)
	t, err := e.allocULSlots(bts, ms, true)
	if err != nil {
		return
	}
	if ms.EGPRSClass > 0 && bts.MCSMask != 0 {
		// an EGPRS MS (11-bit EGPRS Packet Channel Request, or an 8-bit
		// RACH whose Packet Resource Request announces EGPRS in its MS
		// Radio Access Capability) gets an EGPRS TBF, as osmo-pcu
		e.makeEGPRSUL(t)
	}
	// the request's C/I is the MS's first UL measurement (osmo-pcu
	// ms_update_l1_meas on the Packet Resource Request)
	e.adaptULCS(t, int(lq)/10)
	ms.LinkQ = lq
	t.ul.tlliKnown, t.ul.contention = true, true
	t.puaTRX, t.puaTS = p.TRX, int8(p.TS)
	e.fire(t, evAssignPACCH)
	bts.Ctr.Inc(CtrImmAssULContentionResolutionSuccess)
}

// reuseULTBF handles a Packet Resource Request sent in the poll of the
// final Packet Uplink Ack/Nack (TBF_EST = 1; TS 44.060 §9.3.3.3): the MS
// got new data during its countdown. It confirms the final ack (the old TBF
// goes, as on a Packet Control Ack) and asks for the next UL TBF, which is
// assigned at once with a Packet Uplink Assignment on this PDCH, as
// osmo-pcu does; the MS need not wait for a DL poll or access again.
func (e *Engine) reuseULTBF(bts *BTS, p *PDCH, old *TBF, m *rlcmac.PacketResourceRequest) {
	ms := old.ms
	id := &m.ID
	ours := id.IsTLLI && id.TLLI == ms.TLLI ||
		!id.IsTLLI && !id.GlobalTFI.Downlink && id.GlobalTFI.TFI == old.tfi ||
		!id.IsTLLI && id.GlobalTFI.Downlink && ms.DL != nil && ms.DL.tfi == id.GlobalTFI.TFI
	if !ours {
		e.tbfLog.Debug("Packet Resource Request in the final ack poll from another MS", "tbf", old)
		return
	}
	egprs := old.egprs
	e.fireRelease(old, relFinalAck) // (the old TBF is in FINISHED: a Control Ack would end it so too)
	if m.HasRAC {
		if g, eg, _ := m.RAC.MultislotClasses(); g > 0 {
			ms.MSClass, ms.EGPRSClass = int(g), int(eg)
		}
	}
	if ms.UL != nil {
		return // already asked for in a DL Ack/Nack
	}
	t, err := e.allocULSlots(bts, ms, true)
	if err != nil {
		return
	}
	if egprs && bts.MCSMask != 0 {
		e.makeEGPRSUL(t)
	}
	t.ul.tlliKnown, t.ul.contention = true, true
	t.puaTRX, t.puaTS = p.TRX, int8(p.TS)
	e.fire(t, evAssignPACCH)
	if ms.Queue.Len() > 0 && ms.DL == nil {
		e.establishDL(bts, ms)
	}
}
