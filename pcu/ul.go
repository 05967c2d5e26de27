package pcu

import (
	"fmt"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Gb is what the engine sends towards the SGSN (BSSGP). Its methods are
// called inside the engine goroutine and must not block.
type Gb interface {
	// ULUnitdata sends one complete UL LLC frame. llc is the TBF's
	// reassembly buffer, valid only during the call: an implementation
	// that keeps it copies it (bssgp.Gb encodes it at once).
	ULUnitdata(bts uint8, tlli uint32, llc []byte)
	LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32)
}

// gbPort is the engine's side of the Gb: the sends return their errors,
// so that the engine counts and logs every frame or message the SGSN does
// not get (gbULUnitdata, gbLLCDiscarded). The BSSGP adapter (gbadapter.go) is one; a Gb given
// to SetGb is wrapped in gbSink.
type gbPort interface {
	ULUnitdata(bts uint8, tlli uint32, llc []byte) error
	LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) error
}

// gbSink makes a Gb (a test's or a tool's sink, whose sends cannot fail)
// a gbPort; SendSignalling reaches the Gb if it has it.
type gbSink struct{ g Gb }

func (s gbSink) ULUnitdata(bts uint8, tlli uint32, llc []byte) error {
	s.g.ULUnitdata(bts, tlli, llc)
	return nil
}

func (s gbSink) LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) error {
	s.g.LLCDiscarded(bts, tlli, frames, octets)
	return nil
}

func (s gbSink) SendSignalling(p bssgp.PDU) error {
	if ss, ok := s.g.(signallingSender); ok {
		return ss.SendSignalling(p)
	}
	return errNoGb
}

// SetGb connects the engine to the Gb side (nil: none). Call before Run
// or inside the engine.
func (e *Engine) SetGb(g Gb) {
	if g == nil {
		e.gb = nil
		return
	}
	e.gb = gbSink{g}
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
		e.opDrop(e.tbfLog, dropULBlockUndecodable, func() string {
			return fmt.Sprintf("UL block of reserved payload type %d dropped, TS=%d FN=%d", d.Payload[0]>>6, d.TS, d.FN)
		})
	}
}

// ulData receives an uplink RLC data block (TS 44.060 §9.1.5, §10.2.2).
func (e *Engine) ulData(bts *BTS, p *PDCH, d *pcuif.Data) {
	blk := &e.rxGPRS // reused: a block is ~1 kB to clear (its chunk table)
	if err := blk.Parse(d.Payload); err != nil {
		bts.Ctr.Inc(CtrDecodeErrors)
		e.opDrop(e.tbfLog, dropULBlockUndecodable, func() string {
			return fmt.Sprintf("undecodable UL data block dropped: %v, len=%d", err, len(d.Payload))
		})
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
		if !t.ul.tlliKnown {
			e.ulTLLI(t, blk.Unit.TLLI)
			t = t.ms.UL // the TBF may now belong to the merged MS object
		}
		// every block with a TLLI is acknowledged (contention resolution
		// until the MS has seen it; osmo-pcu rlc_ul.cpp)
		t.ctl(&t.ulAck, ctlSched)
	}
	bsn := int(h.BSN)
	ok, dup := t.ul.rw.Receive(bsn)
	t.ul.sinceAck++
	if h.SI || t.ul.sinceAck >= 20 {
		// the MS's window is stalled (SI), or it is time (TS 44.060 §9.1.8)
		t.ctl(&t.ulAck, ctlSched)
	}
	if !ok || dup {
		return
	}
	ub := t.ulb(bsn)
	ub.e, ub.ti, ub.pi, ub.last = h.E, h.TI, h.PI, h.CV == 0
	ub.n = copy(ub.data[:], blk.Data)
	e.reassembleReady(t)
	if h.CV == 0 {
		t.ul.lastSeen = true
	}
	if t.ul.lastSeen {
		t.ctl(&t.ulAck, ctlSched)
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
		e.l1ctr.Inc(L1ULDataNoTBF)
		e.opDrop(e.tbfLog, dropULBlockNoTBF, func() string {
			return fmt.Sprintf("UL data block for no TBF dropped: TFI=%d TS=%d egprs=%v", tfi, p.TS, egprs)
		})
		return nil
	}
	// the granted block is used
	if i := p.reserved(d.FN); i >= 0 && p.resv[i].kind == resvUSF {
		p.resv = append(p.resv[:i], p.resv[i+1:]...)
	}
	e.fire(t, evData) // N3101 restarts; ASSIGN -> FLOW
	e.adaptULCS(t, int(d.LqualCb)/10)
	t.ms.RSSI, t.ms.LinkQ, t.ms.BTO = d.RSSI, d.LqualCb, d.TAOffsQbits
	t.ms.meas.ul(d)
	e.taFromBurst(t.ms, d.TAOffsQbits)
	return t
}

// reassembleReady raises V(Q) over the units received in order and
// reassembles them.
func (e *Engine) reassembleReady(t *TBF) {
	from := t.ul.rw.VQ()
	for n := t.ul.rw.RaiseVQ(); n > 0; n-- {
		e.reassemble(t, t.ulb(from))
		from = (from + 1) % t.ul.rw.SNS()
	}
}

// ulDataEGPRS receives an EGPRS uplink data block (header types 1-3, one or
// two units; TS 44.060 §10.3a.4, §9.1.8.2).
func (e *Engine) ulDataEGPRS(bts *BTS, p *PDCH, d *pcuif.Data) {
	blk := &e.rxEGPRS // reused, as rxGPRS
	if err := blk.Parse(d.Payload); err != nil {
		bts.Ctr.Inc(CtrDecodeErrors)
		e.opDrop(e.tbfLog, dropULBlockUndecodable, func() string {
			return fmt.Sprintf("undecodable EGPRS UL data block dropped: %v, len=%d", err, len(d.Payload))
		})
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
			if !t.ul.tlliKnown {
				e.ulTLLI(t, u.TLLI)
				t = t.ms.UL
			}
			t.ctl(&t.ulAck, ctlSched)
		}
	}
	t.ul.sinceAck++
	if h.SI || t.ul.sinceAck >= 20 {
		t.ctl(&t.ulAck, ctlSched)
	}
	dl := blk.CS.DataLen()
	splitDone := false
	if h.SPB != 0 {
		t, splitDone = e.ulSplitHalf(t, blk)
	}
	for i := 0; i < blk.NUnits && h.SPB == 0; i++ {
		bsn := int(h.BSN1)
		if i == 1 {
			bsn = int(h.BSN2)
		}
		ok, dup := t.ul.rw.Receive(bsn)
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
		t.ul.lastSeen = true
	}
	if t.ul.lastSeen {
		t.ctl(&t.ulAck, ctlSched)
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
		e.opDrop(e.tbfLog, dropULBlockUndecodable, func() string {
			return fmt.Sprintf("%s EGPRS UL data block with SPB %d (not defined in the uplink) dropped", t, h.SPB)
		})
		return t, false
	}
	bsn := int(h.BSN1)
	if !t.ul.rw.InWindow(bsn) || t.ul.rw.IsReceived(bsn) {
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
	if ub.ti && !t.ul.tlliKnown {
		// the TLLI for contention resolution rode in a split unit
		var u rlcmac.ULUnit
		if rlcmac.ParseULUnit(ub.data[:ub.n], true, ub.e, ub.ti, ub.pi, ub.last, &u) == nil && u.HasTLLI {
			e.ulTLLI(t, u.TLLI)
			t = t.ms.UL
			t.ctl(&t.ulAck, ctlSched)
		}
	}
	t.ul.rw.Receive(bsn)
	return t, true
}

// reassemble appends a data unit's chunks to the TBF's LLC frame and sends
// every completed frame to the SGSN (osmo-pcu tbf_ul.cpp gprs_rlcmac_ul_tbf::assemble_forward_llc()).
func (e *Engine) reassemble(t *TBF, ub *ulBlock) {
	u := &e.rxUnit // reused, as rxGPRS
	data := ub.data[:ub.n]
	if err := rlcmac.ParseULUnit(data, t.egprs, ub.e, ub.ti, ub.pi, ub.last, u); err != nil {
		t.bts.Ctr.Inc(CtrDecodeErrors)
		e.opDrop(e.tbfLog, dropULBlockUndecodable, func() string { return fmt.Sprintf("%s undecodable UL data unit dropped: %v", t, err) })
		return
	}
	for i := 0; i < u.N; i++ {
		c := &u.Chunks[i]
		t.ul.llcBuf = append(t.ul.llcBuf, data[c.Off:c.Off+c.Len]...)
		// the LLC octets (no TLLI, LI or filler), as osmo-pcu counts them
		t.bts.Ctr.Add(CtrRLCULPayloadBytes, uint64(c.Len))
		if !c.Complete {
			continue
		}
		if len(t.ul.llcBuf) > 0 {
			frame := t.ul.llcBuf // lent for the call (Gb.ULUnitdata)
			t.bts.Ctr.Add(CtrLLCULBytes, uint64(len(frame)))
			if t.ms.TLLI == TLLIUnset {
				// no TLLI to send it with (TS 48.018 §10.2.2): the MS
				// sent data before identifying itself
				e.l1ctr.Inc(L1ULLLCNoTLLI)
				e.opDrop(e.cfg.Logs.Logger(logx.CatTBFUL), dropULFrameNoTLLI,
					func() string {
						return fmt.Sprintf("%s UL LLC frame of %d octets dropped: the MS has not sent its TLLI", t, len(frame))
					})
			} else {
				e.gbULUnitdata(t.ms, frame)
			}
		}
		t.ul.llcBuf = t.ul.llcBuf[:0]
	}
}

// ulTLLI: the MS identified itself in an UL block (contention resolution,
// TS 44.060 §7.1.2.3). An MS object already known by that TLLI absorbs the
// one created by the RACH.
func (e *Engine) ulTLLI(t *TBF, tlli uint32) {
	t.ul.tlliKnown = true
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
			e.fireRelease(old.UL, relNewUL)
		}
		// a DL TBF still assigned on CCCH will not reach an MS that is
		// on the PDCH now, and one it had it has left: it goes and is
		// assigned again on PACCH once contention resolution is done
		// (osmo-pcu tbf_ul_fsm.c, FIRST_UL_DATA_RECVD)
		e.dlGoneOnAccess(old)
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

// encodePUAN builds the Packet Uplink Ack/Nack (TS 44.060 §11.2.28).
func (e *Engine) encodePUAN(t *TBF, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	final := t.ul.lastSeen && t.ul.rw.Complete()
	m := &e.txPUAN // reused: an Ack/Nack every few UL blocks allocates nothing
	*m = rlcmac.PacketUplinkAckNack{UplinkTFI: t.tfi}
	if t.ul.tlliKnown {
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
		if err := m.FillEGPRSAckNack(&t.ul.rw, final); err != nil {
			e.tbfLog.Error("cannot build the EGPRS Packet Uplink Ack/Nack", "tbf", t, "err", err)
			return 0
		}
	} else {
		m.ChannelCoding = uint8(t.cs - rlcmac.CS1)
		m.AckNack = t.ul.rw.GPRSAckNack(final)
	}
	h := rlcmac.DLCtrlHeader{USF: usf}
	if final {
		rrbp, ok := p.pollRRBP(fn, t, pollULAck)
		if !ok {
			return 0
		}
		h.SP, h.RRBP = true, rrbp
	}
	n := e.encodeCtrl(blk, &h, m)
	if n == 0 {
		return 0
	}
	t.ul.sinceAck = 0
	if final {
		t.ctl(&t.ulAck, ctlSentPolled)
		if t.state != TBFFinished {
			e.fire(t, evLastSent) // N3103 starts
		}
	} else {
		t.ctl(&t.ulAck, ctlSent)
	}
	if t.ul.tlliKnown && !t.ul.contention {
		e.fire(t, evContention)
	}
	return n
}

// ulControl handles an uplink control block: the answer to a poll.
func (e *Engine) ulControl(bts *BTS, p *PDCH, d *pcuif.Data) {
	msg, err := e.decodeULCtrl(d.Payload)
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
			t.ctl(&t.ulAck, ctlAck)
			e.fire(t, evFinalAck)
			if t.ms.Queue.Len() > 0 {
				e.establishDL(bts, t.ms)
			}
		case pollDLAss:
			r.tbf.ctl(&r.tbf.dlAss, ctlAck)
			e.fire(r.tbf, evAssignAcked)
		case pollULAss:
			t := r.tbf
			t.ctl(&t.ulAss, ctlAck)
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

// decodeULCtrl decodes an uplink control block. The messages that come
// all the time (Packet Control Acknowledgement, (EGPRS) Packet Downlink
// Ack/Nack: one per DL poll) decode into reused targets, so they allocate
// nothing; their handlers keep nothing of them. The rest through
// rlcmac.DecodeUL.
func (e *Engine) decodeULCtrl(b []byte) (rlcmac.Message, error) {
	mt, err := rlcmac.PeekMsgType(b, 1) // after the 1-octet UL control header (TS 44.060 §10.3.1)
	if err != nil {
		return nil, err
	}
	var m rlcmac.Message
	switch mt {
	case rlcmac.MTPacketControlAck:
		e.rxPCA = rlcmac.PacketControlAck{}
		m = &e.rxPCA
	case rlcmac.MTPacketDownlinkAckNack:
		e.rxPDAN = rlcmac.PacketDownlinkAckNack{}
		m = &e.rxPDAN
	case rlcmac.MTEGPRSPacketDownlinkAckNack:
		e.rxEPDAN = rlcmac.EGPRSPacketDownlinkAckNack{}
		m = &e.rxEPDAN
	default:
		_, m, err = rlcmac.DecodeUL(b)
		return m, err
	}
	var h rlcmac.ULCtrlHeader
	return m, rlcmac.DecodeULInto(b, &h, m)
}

// dlTBFByTFI is the DL TBF with DL TFI tfi on p's TRX (nil: none): the
// TRX's TFI table (kept by attach/detach), checked, and a walk over the
// BTS's TBFs only should the table not hold it.
func dlTBFByTFI(bts *BTS, p *PDCH, tfi uint8) *TBF {
	if int(p.TRX) < len(bts.TRX) {
		if x := bts.TRX[p.TRX].dlBy[tfi&31]; x != nil && x.dir == DirDL && x.attached && x.trx == p.TRX && x.tfi == tfi {
			return x
		}
	}
	for _, x := range bts.tbfs {
		if x.dir == DirDL && x.attached && x.trx == p.TRX && x.tfi == tfi {
			return x
		}
	}
	return nil
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
