package pcu

import (
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Gb is what the engine sends towards the SGSN (BSSGP). Its methods are
// called inside the engine goroutine and must not block.
type Gb interface {
	ULUnitdata(bts uint8, tlli uint32, llc []byte)
	LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32)
}

// SetGb connects the engine to the Gb side. Call before Run or inside the engine.
func (e *Engine) SetGb(g Gb) { e.gb = g }

// onRACH handles a channel request on CCCH (TS 44.018 §9.1.8; osmo-pcu bts.cpp bts_rcv_rach()).
func (e *Engine) onRACH(bts *BTS, m *pcuif.RACHInd) {
	bts.Ctr.Inc(CtrRACHRequests)
	if e.tap != nil {
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
	ia := rlcmac.ImmediateAssignment{TBF: true}
	packetChannel(&ia, &bts.TRX[t.trx], t.ctrlTS)
	ia.ReqRef.RA = uint8(ra)
	ia.ReqRef.SetFN(fn)
	ia.TA = ta
	if is11 {
		ia.ReqRef.RA = 0x7f
		ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IAREGPRSPacketUpl, HasExtRA: true, ExtRA: uint8(ra & 0x1f), Dynamic: true,
			TFI: t.tfi, USF: t.usf[t.ctrlTS], ChannelCoding: t.cs.ChannelCodingCommand(), TLLIBlockCC: true,
			WindowSize: rlcmac.EGPRSWindowSizeCode(t.rw.WS()), HasAlpha: true}
	} else {
		ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IARPacketUplink, Dynamic: true, TFI: t.tfi, USF: t.usf[t.ctrlTS],
			ChannelCoding: uint8(t.cs - rlcmac.CS1), TLLIBlockCC: true}
	}
	if ms.TAI >= 0 {
		ia.Rest.HasTAI, ia.Rest.TAI = true, uint8(ms.TAI)
	}
	var mac [rlcmac.MACBlockLen]byte
	if _, err := rlcmac.EncodeImmediateAssignment(mac[:], &ia); err != nil {
		e.tbfLog.Error("cannot encode UL IMM ASS", "err", err)
		return
	}
	e.sendAGCH(bts, mac[:], msgIDNone, false)
	bts.Ctr.Inc(CtrImmAssUL)
	bts.Ctr.Inc(CtrImmAssULOnePhase)
	e.tbfLog.Info("UL TBF assigned on CCCH", "tbf", t.String(), "ra", ra, "fn", fn, "cs", t.cs)
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
		if m := bts.TRX[i].enabledMask(); m != 0 {
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

// onULBlock handles an uplink radio block (DATA_IND on PDTCH).
func (e *Engine) onULBlock(bts *BTS, d *pcuif.Data) {
	if len(d.Payload) == 0 {
		return
	}
	if fnDelta(e.lastFN, d.FN) >= 13 && e.fnValid {
		bts.Ctr.Inc(CtrRLCLateBlock)
	}
	p := &bts.TRX[d.TRX].PDCH[d.TS]
	bts.Ctr.Add(CtrRLCULBytes, uint64(len(d.Payload)))
	arfcn := bts.TRX[d.TRX].ARFCN
	snr := int8(max(min(d.LqualCb/10, 127), -128)) // C/I in the SNR field, as osmo-pcu
	if n := len(d.Payload); n != rlcmac.ControlBlockLen && rlcmac.CSFromULLen(n).IsEGPRS() {
		// EGPRS data blocks have no payload type: their length tells them
		e.tapBlock(gsmtap.CatULDataEGPRS, true, arfcn, d.TS, gsmtap.ChannelPDTCH, d.FN, d.RSSI, snr, d.Payload)
		e.ulDataEGPRS(bts, p, d)
		return
	}
	switch d.Payload[0] >> 6 {
	case rlcmac.PTData:
		e.tapBlock(gsmtap.CatULDataGPRS, true, arfcn, d.TS, gsmtap.ChannelPDTCH, d.FN, d.RSSI, snr, d.Payload)
		e.ulData(bts, p, d)
	case rlcmac.PTControl:
		bts.Ctr.Inc(CtrULControl)
		cat := gsmtap.CatULCtrl
		if len(d.Payload) > 1 && d.Payload[1]>>2 == rlcmac.MTPacketUplinkDummyControl {
			cat = gsmtap.CatULDummy
		}
		e.tapBlock(cat, true, arfcn, d.TS, gsmtap.ChannelPACCH, d.FN, d.RSSI, snr, d.Payload)
		e.ulControl(bts, p, d)
	default:
		bts.Ctr.Inc(CtrDecodeErrors)
		e.tapBlock(gsmtap.CatULUnknown, true, arfcn, d.TS, gsmtap.ChannelUnknown, d.FN, d.RSSI, snr, d.Payload)
	}
}

// ulData receives an uplink RLC data block (TS 44.060 §9.1.5, §10.2.2).
func (e *Engine) ulData(bts *BTS, p *PDCH, d *pcuif.Data) {
	var blk rlcmac.GPRSULBlock
	if err := blk.Parse(d.Payload); err != nil {
		bts.Ctr.Inc(CtrDecodeErrors)
		logx.Notice(e.tbfLog, "undecodable UL data block", "err", err, "len", len(d.Payload))
		return
	}
	t := e.ulDataTBF(p, d, blk.Header.TFI, false)
	if t == nil {
		return
	}
	bts.Ctr.Inc(CtrGPRSULCS1 + int(blk.CS-rlcmac.CS1))
	t.gprsCtr.Inc(int(blk.CS - rlcmac.CS1))
	h := &blk.Header
	if blk.Unit.HasTLLI {
		if !t.tlliKnown {
			e.ulTLLI(t, blk.Unit.TLLI)
			t = t.ms.UL // the TBF may now belong to the merged MS object
		}
		// every block with a TLLI is acknowledged (contention resolution
		// until the MS has seen it; osmo-pcu rlc_ul.cpp)
		t.ulAck.fire(ctlSched)
	}
	bsn := int(h.BSN)
	ok, dup := t.rw.Receive(bsn)
	t.sinceAck++
	if h.SI || t.sinceAck >= 20 {
		// the MS's window is stalled (SI), or it is time (TS 44.060 §9.1.8)
		t.ulAck.fire(ctlSched)
	}
	if !ok || dup {
		return
	}
	ub := t.ulb(bsn)
	ub.e, ub.ti, ub.pi, ub.last = h.E, h.TI, h.PI, h.CV == 0
	ub.n = copy(ub.data[:], blk.Data)
	e.reassembleReady(t)
	if h.CV == 0 {
		t.lastSeen = true
	}
	if t.lastSeen {
		t.ulAck.fire(ctlSched)
	}
}

// ulDataTBF finds the UL TBF an uplink data block on p is for (by TFI;
// EGPRS blocks only for EGPRS TBFs) and does what any data block does to
// it: the granted block is used, N3101 restarts, an assigned TBF is in
// FLOW, and the block's measurements feed the link adaptation, the MS's L1
// values and the TA loop. nil: no such TBF (logged).
func (e *Engine) ulDataTBF(p *PDCH, d *pcuif.Data, tfi uint8, egprs bool) *TBF {
	var t *TBF
	for _, x := range p.ul {
		if x.tfi == tfi {
			t = x
			break
		}
	}
	if t == nil || egprs && !t.egprs || t.state != TBFFlow && t.state != TBFFinished && t.state != TBFAssign {
		e.tbfLog.Debug("UL data block for no TBF", "tfi", tfi, "ts", p.TS, "egprs", egprs)
		return nil
	}
	// the granted block is used
	if i := p.reserved(d.FN); i >= 0 && p.resv[i].kind == resvUSF {
		p.resv = append(p.resv[:i], p.resv[i+1:]...)
	}
	t.n[nN3101] = 0
	if t.state == TBFAssign {
		e.fire(t, evFirstData)
	}
	e.adaptULCS(t, int(d.LqualCb)/10)
	t.ms.RSSI, t.ms.LinkQ, t.ms.BTO = d.RSSI, d.LqualCb, d.TAOffsQbits
	t.ms.meas.ul(d)
	e.taFromBurst(t.ms, d.TAOffsQbits)
	return t
}

// reassembleReady raises V(Q) over the units received in order and
// reassembles them.
func (e *Engine) reassembleReady(t *TBF) {
	from := t.rw.VQ()
	for n := t.rw.RaiseVQ(); n > 0; n-- {
		e.reassemble(t, t.ulb(from))
		from = (from + 1) % t.rw.SNS()
	}
}

// ulDataEGPRS receives an EGPRS uplink data block (header types 1-3, one or
// two units; TS 44.060 §10.3a.4, §9.1.8.2).
func (e *Engine) ulDataEGPRS(bts *BTS, p *PDCH, d *pcuif.Data) {
	var blk rlcmac.EGPRSULBlock
	if err := blk.Parse(d.Payload); err != nil {
		bts.Ctr.Inc(CtrDecodeErrors)
		logx.Notice(e.tbfLog, "undecodable EGPRS UL data block", "err", err, "len", len(d.Payload))
		return
	}
	h := &blk.Header
	t := e.ulDataTBF(p, d, h.TFI, true)
	if t == nil {
		return
	}
	bts.Ctr.Inc(CtrEGPRSULMCS1 + int(blk.CS-rlcmac.MCS1))
	t.egprsCtr.Inc(int(blk.CS - rlcmac.MCS1))
	for i := 0; i < blk.NUnits; i++ {
		if u := &blk.Unit[i]; u.HasTLLI {
			if !t.tlliKnown {
				e.ulTLLI(t, u.TLLI)
				t = t.ms.UL
			}
			t.ulAck.fire(ctlSched)
		}
	}
	t.sinceAck++
	if h.SI || t.sinceAck >= 20 {
		t.ulAck.fire(ctlSched)
	}
	dl := blk.CS.DataLen()
	splitDone := false
	if h.SPB != 0 {
		t, splitDone = e.ulSplitHalf(t, &blk)
	}
	for i := 0; i < blk.NUnits && h.SPB == 0; i++ {
		bsn := int(h.BSN1)
		if i == 1 {
			bsn = int(h.BSN2)
		}
		ok, dup := t.rw.Receive(bsn)
		if !ok || dup {
			continue
		}
		ub := t.ulb(bsn)
		// CV 0: the block holds the TBF's last BSN, which is BSN2 in a pair
		ub.e, ub.ti, ub.pi, ub.last = h.E[i], h.TI[i], h.PI, h.CV == 0 && (i == blk.NUnits-1 || h.BSN2 == h.BSN1)
		ub.n = copy(ub.data[:], blk.Data[i][:dl])
		ub.spb, ub.spbLen = 0, 0 // whole: halves of an earlier split are void
	}
	e.reassembleReady(t)
	if h.CV == 0 && (h.SPB == 0 || splitDone) {
		// (a half with CV 0 ends the TBF only with its partner)
		t.lastSeen = true
	}
	if t.lastSeen {
		t.ulAck.fire(ctlSched)
	}
}

// ulSplitHalf stores half of a unit the MS resegmented into two MCS-1..3
// blocks (SPB 2 first half, 3 second; TS 44.060 §9.3.2.1, §10.4.8b): the
// halves may come in either order, and the BSN counts as received only
// when both are there. Halves of a BSN outside the window or received
// already are dropped; other SPB values are not defined in the uplink.
// It returns the TBF (which a TLLI in the completed unit may move to a
// merged MS) and whether the unit is now complete.
func (e *Engine) ulSplitHalf(t *TBF, blk *rlcmac.EGPRSULBlock) (*TBF, bool) {
	h := &blk.Header
	bts := t.bts
	var have uint8
	switch h.SPB {
	case 2:
		have = 1
		bts.Ctr.Inc(CtrSPBULFirstSegment)
	case 3:
		have = 2
		bts.Ctr.Inc(CtrSPBULSecondSegment)
	default:
		bts.Ctr.Inc(CtrDecodeErrors)
		return t, false
	}
	bsn := int(h.BSN1)
	if !t.rw.InWindow(bsn) || t.rw.IsReceived(bsn) {
		return t, false
	}
	ub := t.ulb(bsn)
	hl := blk.CS.DataLen()
	if ub.spbLen != hl { // a new split of this BSN (or of another MCS)
		ub.spb, ub.spbLen = 0, hl
	}
	copy(ub.data[int(have-1)*hl:], blk.Data[0][:hl])
	ub.spb |= have
	if have == 1 {
		ub.e, ub.ti, ub.pi = h.E[0], h.TI[0], h.PI
	}
	if ub.spb != 3 {
		return t, false
	}
	ub.spb, ub.spbLen = 0, 0
	ub.n = 2 * hl
	ub.last = h.CV == 0
	if ub.ti && !t.tlliKnown {
		// the TLLI for contention resolution rode in a split unit
		var u rlcmac.ULUnit
		if rlcmac.ParseULUnit(ub.data[:ub.n], true, ub.e, ub.ti, ub.pi, ub.last, &u) == nil && u.HasTLLI {
			e.ulTLLI(t, u.TLLI)
			t = t.ms.UL
			t.ulAck.fire(ctlSched)
		}
	}
	t.rw.Receive(bsn)
	return t, true
}

// reassemble appends a data unit's chunks to the TBF's LLC frame and sends
// every completed frame to the SGSN (osmo-pcu tbf_ul.cpp gprs_rlcmac_ul_tbf::assemble_forward_llc()).
func (e *Engine) reassemble(t *TBF, ub *ulBlock) {
	var u rlcmac.ULUnit
	data := ub.data[:ub.n]
	if err := rlcmac.ParseULUnit(data, t.egprs, ub.e, ub.ti, ub.pi, ub.last, &u); err != nil {
		t.bts.Ctr.Inc(CtrDecodeErrors)
		return
	}
	for i := 0; i < u.N; i++ {
		c := &u.Chunks[i]
		t.llcBuf = append(t.llcBuf, data[c.Off:c.Off+c.Len]...)
		// the LLC octets (no TLLI, LI or filler), as osmo-pcu counts them
		t.bts.Ctr.Add(CtrRLCULPayloadBytes, uint64(c.Len))
		if !c.Complete {
			continue
		}
		if len(t.llcBuf) > 0 {
			frame := append([]byte(nil), t.llcBuf...)
			t.bts.Ctr.Add(CtrLLCULBytes, uint64(len(frame)))
			if e.gb != nil && t.ms.TLLI != TLLIUnset {
				e.gb.ULUnitdata(t.bts.Nr, t.ms.TLLI, frame)
			}
		}
		t.llcBuf = t.llcBuf[:0]
	}
}

// ulTLLI: the MS identified itself in an UL block (contention resolution,
// TS 44.060 §7.1.2.3). An MS object already known by that TLLI absorbs the
// one created by the RACH.
func (e *Engine) ulTLLI(t *TBF, tlli uint32) {
	t.tlliKnown = true
	defer func() {
		e.pchStop(t.bts, t.ms) // a paged MS came: T3113 stops
		t.ms.suspended = false // and is back on the PDCH
	}()
	ms := t.ms
	if ms.TLLI == tlli {
		return
	}
	bts := t.bts
	if old := bts.ms.byTLLI[tlli]; old != nil && old != ms {
		if old.UL != nil && old.UL != t {
			e.freeTBF(old.UL, true)
		}
		if dlPendingOnCCCH(old.DL) {
			// a DL TBF still assigned on CCCH will not reach an MS that
			// is on the PDCH now: it goes (its frames back to the
			// queue) and is assigned again on PACCH once contention
			// resolution is done (osmo-pcu tbf_ul_fsm.c, FIRST_UL_DATA_RECVD)
			e.tbfLog.Info("first UL data while a DL TBF is pending on CCCH: freeing it", "tbf", old.DL.String())
			e.freeTBF(old.DL, false)
		}
		// move the TBF to the known MS and drop the RACH one
		ms.UL = nil
		old.UL = t
		t.ms = old
		old.TA = ms.TA
		old.idleSince = -1
		e.moveTAI(ms, old)
		e.freeMS(ms)
		return
	}
	bts.ms.setTLLI(ms, tlli)
}

// dlPendingOnCCCH reports whether dl is a DL TBF assigned on CCCH that
// the MS never acknowledged: an MS that accesses again never got its
// assignment. (osmo-pcu frees any DL TBF of the MS there; one the MS has
// acknowledged, or that finishes, is left to its own timers here, so
// frames it delivered are not sent twice.)
func dlPendingOnCCCH(dl *TBF) bool {
	return dl != nil && dl.ccch && !dl.everAcked && (dl.state == TBFAssign || dl.state == TBFFlow)
}

// encodePUAN builds the Packet Uplink Ack/Nack (TS 44.060 §11.2.28).
func (e *Engine) encodePUAN(t *TBF, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	final := t.lastSeen && t.rw.Complete()
	m := rlcmac.PacketUplinkAckNack{UplinkTFI: t.tfi}
	if t.tlliKnown {
		m.HasContentionTLLI, m.ContentionTLLI = true, t.ms.TLLI
	}
	m.HasTA = true
	m.TA = packetTA(t.ms)
	// TBF_EST = 1, as osmo-pcu: the MS may ask for its next UL TBF in the
	// final ack's poll (TS 44.060 §9.3.3.3); GPRS carries it in the R99 part
	m.TBFEst, m.HasR99 = true, !t.egprs
	if t.egprs {
		// RESEGMENT and PRE_EMPTIVE_TRANSMISSION set, as osmo-pcu: the MS
		// may split units below the commanded MCS's family (Table 8.1.1.1)
		m.ChannelCoding, m.Resegment, m.PreemptiveTx = t.cs.ChannelCodingCommand(), true, true
		if err := m.FillEGPRSAckNack(&t.rw, final); err != nil {
			e.tbfLog.Error("cannot build the EGPRS Packet Uplink Ack/Nack", "tbf", t.String(), "err", err)
			return 0
		}
	} else {
		m.ChannelCoding = uint8(t.cs - rlcmac.CS1)
		m.AckNack = t.rw.GPRSAckNack(final)
	}
	h := rlcmac.DLCtrlHeader{USF: usf}
	if final {
		rrbp, ok := p.pollRRBP(fn, t, pollULAck)
		if !ok {
			return 0
		}
		h.SP, h.RRBP = true, rrbp
	}
	n := e.encodeCtrl(blk, &h, &m)
	if n == 0 {
		return 0
	}
	t.sinceAck = 0
	if final {
		t.ulAck.fire(ctlSentPolled)
		if t.state != TBFFinished {
			t.n[nN3103] = 0
			e.fire(t, evLastSent)
		}
	} else {
		t.ulAck.fire(ctlSent)
	}
	if t.tlliKnown && !t.contention {
		t.contention = true
		t.bts.Ctr.Inc(CtrImmAssULContentionResolutionSuccess)
		e.stopTimer(t, tmT3141)
		if t.ms.Queue.Len() > 0 && t.ms.DL == nil {
			e.establishDL(t.bts, t.ms)
		}
	}
	return n
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
		m.WindowSize = rlcmac.EGPRSWindowSizeCode(t.rw.WS())
	}
	for ts := 0; ts < 8; ts++ {
		if t.slots&(1<<ts) != 0 {
			m.Dynamic.HasUSF[ts] = true
			m.Dynamic.USF[ts] = t.usf[ts]
		}
	}
	rrbp, ok := p.pollRRBP(fn, t, pollULAss)
	if !ok {
		return 0
	}
	h := rlcmac.DLCtrlHeader{RRBP: rrbp, SP: true, USF: usf}
	n := e.encodeCtrl(blk, &h, &m)
	if n == 0 {
		p.dropReservations(t)
		return 0
	}
	t.ulAss.fire(ctlSentPolled)
	t.bts.Ctr.Inc(CtrPktULAssignment)
	return n
}

// ulControl handles an uplink control block: the answer to a poll.
func (e *Engine) ulControl(bts *BTS, p *PDCH, d *pcuif.Data) {
	_, msg, err := rlcmac.DecodeUL(d.Payload)
	if err != nil {
		bts.Ctr.Inc(CtrDecodeErrors)
		logx.Notice(e.tbfLog, "undecodable UL control block", "err", err)
		return
	}
	var r resv
	if i := p.reserved(d.FN); i >= 0 {
		r = p.resv[i]
		p.resv = append(p.resv[:i], p.resv[i+1:]...)
	}
	switch m := msg.(type) {
	case *rlcmac.PacketControlAck:
		if r.kind != resvPoll || r.tbf == nil {
			e.tbfLog.Debug("Packet Control Ack without poll", "fn", d.FN)
			return
		}
		switch r.reason {
		case pollULAck:
			t := r.tbf
			t.ulAck.fire(ctlAck)
			e.fire(t, evFinalAck)
			if t.ms.Queue.Len() > 0 {
				e.establishDL(bts, t.ms)
			}
		case pollDLAss:
			r.tbf.dlAss.fire(ctlAck)
			e.fire(r.tbf, evAssignAcked)
		case pollULAss:
			t := r.tbf
			t.ulAss.fire(ctlAck)
			t.assignOn = nil
			e.fire(t, evAssignAcked)
			if t.ms.Queue.Len() > 0 && t.ms.DL == nil {
				e.establishDL(bts, t.ms) // on the new UL TBF's PACCH
			}
		case pollCellChgContinue:
			e.naccControlAck(r.tbf, d.FN, p.TS)
		}
	case *rlcmac.PacketDownlinkAckNack:
		t := dlTBFByTFI(bts, p, m.DownlinkTFI)
		if t == nil {
			e.tbfLog.Debug("DL Ack/Nack for no TBF", "tfi", m.DownlinkTFI)
			return
		}
		e.dlAckNack(t, &m.AckNack)
		t.ms.meas.quality(&m.Quality)
		e.chanReqInAck(bts, t, m.HasChanReq)
	case *rlcmac.EGPRSPacketDownlinkAckNack:
		t := dlTBFByTFI(bts, p, m.DownlinkTFI)
		if t == nil || !t.egprs {
			e.tbfLog.Debug("EGPRS DL Ack/Nack for no EGPRS TBF", "tfi", m.DownlinkTFI)
			return
		}
		e.dlAckNackEGPRS(t, &m.AckNack)
		e.chanReqInAck(bts, t, m.HasChanReq)
	case *rlcmac.PacketResourceRequest:
		e.resourceRequest(bts, p, r, m, d.LqualCb)
	case *rlcmac.PacketCellChangeNotification:
		e.naccNotification(bts, p, m)
	default:
		e.tbfLog.Debug("UL control message ignored", "msg", msg.Name())
	}
}

// dlTBFByTFI is the DL TBF with DL TFI tfi on p's TRX (nil: none).
func dlTBFByTFI(bts *BTS, p *PDCH, tfi uint8) *TBF {
	for _, x := range bts.tbfs {
		if x.dir == DirDL && x.attached && x.trx == p.TRX && x.tfi == tfi {
			return x
		}
	}
	return nil
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
	if ms.UL != nil {
		return
	}
	t, err := e.allocUL(bts, ms)
	if err != nil {
		// no USF, TFI or slot: a Packet Access Reject on the DL TBF's
		// PACCH tells the MS to wait T3172 (TS 44.060 §7.1.3.2.1, osmo-pcu
		// tbf_ul_ass_fsm.c SEND_ASS_REJ)
		dl.ulRej.fire(ctlSched)
		return
	}
	t.tlliKnown, t.contention = true, true
	t.assignOn = dl
	e.fire(t, evAssignPACCH)
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
		t.ulRej.fire(ctlSent)
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
	p.resv = append(p.resv, resv{fn: fn, kind: resvSBA, ta: ta})
	bts.Ctr.Inc(CtrSBAAllocated)
	ia := rlcmac.ImmediateAssignment{TBF: true}
	packetChannel(&ia, trx, uint8(ts))
	ia.ReqRef.RA = uint8(ra)
	ia.ReqRef.SetFN(rachFN)
	ia.TA = ta
	ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IARPacketUplink, Dynamic: false, HasStartTime: true}
	if is11 { // EGPRS multi block assignment of one block ("LH 00")
		ia.ReqRef.RA = 0x7f
		ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IAREGPRSPacketUpl, HasExtRA: true, ExtRA: uint8(ra & 0x1f), HasStartTime: true,
			HasAlpha: true}
	}
	ia.Rest.T1, ia.Rest.T3, ia.Rest.T2 = rlcmac.StartingTimeFromFN(fn)
	var mac [rlcmac.MACBlockLen]byte
	if _, err := rlcmac.EncodeImmediateAssignment(mac[:], &ia); err != nil {
		e.tbfLog.Error("cannot encode single block IMM ASS", "err", err)
		return
	}
	e.sendAGCH(bts, mac[:], msgIDNone, false)
	bts.Ctr.Inc(CtrImmAssUL)
	bts.Ctr.Inc(CtrImmAssULTwoPhase)
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
		e.freeTBF(ms.UL, true)
	}
	if dlPendingOnCCCH(ms.DL) {
		e.freeTBF(ms.DL, false)
	}
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
	t.tlliKnown, t.contention = true, true
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
		e.tbfLog.Debug("Packet Resource Request in the final ack poll from another MS", "tbf", old.String())
		return
	}
	egprs := old.egprs
	e.freeTBF(old, false)
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
	t.tlliKnown, t.contention = true, true
	t.puaTRX, t.puaTS = p.TRX, int8(p.TS)
	e.fire(t, evAssignPACCH)
	if ms.Queue.Len() > 0 && ms.DL == nil {
		e.establishDL(bts, ms)
	}
}

// adaptULCS is the UL link adaptation (osmo-pcu gprs_ms.c ms_update_cs_ul()): when this and
// the previous block's C/I are both below the window of the current (M)CS
// it steps down, both above it (and below `cs max` / `mcs max`) it steps up;
// the next Packet Uplink Ack/Nack commands the new (M)CS. EGPRS TBFs use the
// `mcs link-quality-ranges` windows and skip MCSs the BTS does not offer.
func (e *Engine) adaptULCS(t *TBF, lq int) {
	m := t.ms
	// the previous block's C/I; 0 dB before the first block, as osmo-pcu's
	// ms_update_cs_ul (0 dB is a measurement, not "none")
	prev := int(m.LinkQ) / 10
	egprs := t.cs.IsEGPRS()
	base, n, mx, mask := rlcmac.CS1, 4, e.params.CSMaxUL, uint16(t.bts.CSMask)
	if egprs {
		base, n, mx, mask = rlcmac.MCS1, 9, e.params.MCSMaxUL, t.bts.MCSMask
	}
	if mx <= 0 || mx > n {
		mx = n
	}
	cs := int(t.cs-base) + 1
	if cs < 1 || cs > n {
		return
	}
	var w [2]int
	if egprs {
		w = e.params.MCSLQ[cs-1]
	} else {
		w = e.params.CSLQ[cs-1]
	}
	switch {
	case lq < w[0] && prev < w[0] && cs > 1:
		cs--
	case lq > w[1] && prev > w[1] && cs < mx:
		cs++
	default:
		return
	}
	for cs > 1 && mask&(1<<(cs-1)) == 0 {
		cs--
	}
	t.cs = base + rlcmac.CodingScheme(cs-1)
	if egprs {
		m.MCSUL = t.cs
	} else {
		m.CSUL = t.cs
	}
}
