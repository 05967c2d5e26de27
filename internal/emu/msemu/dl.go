package msemu

import (
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// The downlink TBF: receiving GPRS and EGPRS data blocks, answering polls
// with Packet Downlink Ack/Nack and reassembling LLC frames (TS 44.060 §9.1,
// §9.3).

// unitHdr is what reassembly needs of a received data unit's header.
type unitHdr struct{ e, fbi bool }

// startDL starts a DL TBF; ws > 0 is an EGPRS window.
func (m *MS) startDL(trx, tfi, slots uint8, ws int) {
	m.dl = dlState{active: true, trx: trx, tfi: tfi, slots: slots, egprs: ws > 0}
	m.dlHeard = m.cell.air.FN()
	if ws > 0 {
		m.dl.rw.Reset(true, ws)
	} else {
		m.dl.rw.Reset(false, rlcmac.GPRSWS)
	}
}

// dlBlock processes one downlink block on the MS's timeslots.
func (m *MS) dlBlock(d pcuif.Data, lost bool) {
	if m.Mute {
		return
	}
	ts := d.TS
	listening := (m.dl.active || m.dl.waitRelease) && m.dl.trx == d.TRX && m.dl.slots&(1<<ts) != 0 ||
		m.ul.active && m.ul.trx == d.TRX && m.ul.slots&(1<<ts) != 0 ||
		m.waitPUA != 0 && d.TRX == m.sbaTRX && ts == m.sbaTS
	if !listening {
		return
	}
	if lost {
		return
	}
	b := d.Payload
	// USF: every block carries it in octet 0.
	if m.ul.active && m.ul.assigned && !m.ul.done && m.ul.trx == d.TRX && m.ul.slots&(1<<ts) != 0 && b[0]&7 == m.ul.usf[ts] {
		m.ulHeard = d.FN
		m.ulTransmit(ulBlockFN(d.FN), ts)
	}
	if len(b) != rlcmac.ControlBlockLen && rlcmac.CSFromDLLen(len(b)).IsEGPRS() {
		m.dlDataEGPRS(d)
		return
	}
	switch b[0] >> 6 {
	case rlcmac.PTData:
		m.cell.Blocks.Data++
		m.dlData(d)
	case rlcmac.PTControl, rlcmac.PTControlOpt:
		m.dlControl(d)
	}
}

func (m *MS) dlData(d pcuif.Data) {
	if !m.dl.active || m.dl.trx != d.TRX || m.dl.slots&(1<<d.TS) == 0 {
		return
	}
	var h rlcmac.GPRSDLHeader
	if err := h.Unmarshal(d.Payload); err != nil || h.TFI != m.dl.tfi {
		return
	}
	m.dlHeard = d.FN // T3190 restarts
	cs := rlcmac.CSFromDLLen(len(d.Payload))
	if !cs.IsGPRS() {
		return
	}
	if h.FBI && m.BeforeFinalData != nil {
		m.BeforeFinalData()
		if m.Mute {
			return
		}
	}
	m.receiveUnit(int(h.BSN), d.Payload[3:3+cs.DataLen()], unitHdr{h.E, h.FBI})
	if h.FBI {
		m.dl.finalRx = true
	}
	if h.SP && !m.dl.egprs {
		final := m.dl.finalRx && m.dl.rw.Complete()
		a := rlcmac.PacketDownlinkAckNack{DownlinkTFI: m.dl.tfi, AckNack: m.dl.rw.GPRSAckNack(final), Quality: m.DLQuality}
		a.HasChanReq, a.ChanReq = m.chanReq(d, h.RRBP)
		m.sendAck(d, h.RRBP, &a, final)
	}
}

// chanReq is the Channel Request Description of a DL Ack/Nack (sent on
// the PDCH of d in the block RRBP names): asked for when UL data waits, no
// UL TBF exists and no request is pending. It starts T3168 (TS 44.060
// §8.1.2.5): the MS asks again only once T3168 expires without a Packet
// Uplink Assignment, not in every DL Ack/Nack (after a Packet Resource
// Request in the final Packet Uplink Ack/Nack's poll, osmo-pcu 1.1.0
// assigned a second UL TBF for a second request).
func (m *MS) chanReq(d pcuif.Data, rrbp uint8) (bool, rlcmac.ChannelRequestDescription) {
	if len(m.ulQueue) == 0 || m.ul.active || m.waitPUA != 0 {
		return false, rlcmac.ChannelRequestDescription{}
	}
	m.sbaTRX, m.sbaTS = d.TRX, d.TS
	m.waitPUA = (rrbpFN(d.FN, rrbp) + 4*217) % pcuif.MaxFN // T3168
	m.trace("crd", len(m.ulQueue))
	return true, rlcmac.ChannelRequestDescription{RLCOctetCount: uint16(min(len(m.ulQueue[0]), 0xffff))}
}

// sendAck answers a DL poll with the Ack/Nack a; after the final one the
// MS keeps listening on the PACCH for a new assignment (T3192).
func (m *MS) sendAck(d pcuif.Data, rrbp uint8, a rlcmac.Message, final bool) {
	fn := rrbpFN(d.FN, rrbp)
	m.sendCtrl(fn, d.TRX, d.TS, a)
	m.Polls++
	if final {
		// TS 44.060 §9.3.2.4: T3192 starts, the MS keeps listening on
		// the TBF's PDCHs for a new assignment until it ends
		m.dl.active = false
		m.dl.waitRelease = true
		m.dl.releaseFN = (fn + t3192Frames) % pcuif.MaxFN
	}
}

// receiveUnit stores a DL data unit in the receive window and delivers
// the LLC frames V(Q) passes.
func (m *MS) receiveUnit(bsn int, data []byte, h unitHdr) {
	if ok, dup := m.dl.rw.Receive(bsn); ok && !dup {
		m.dl.units[bsn] = append([]byte(nil), data...)
		m.dl.hdr[bsn] = h
		from := m.dl.rw.VQ()
		for n := m.dl.rw.RaiseVQ(); n > 0; n-- {
			m.reassembleDL(from)
			from = (from + 1) % m.dl.rw.SNS()
		}
	}
}

// dlDataEGPRS receives an EGPRS DL data block (one or two units).
func (m *MS) dlDataEGPRS(d pcuif.Data) {
	if !m.dl.active || !m.dl.egprs || m.dl.trx != d.TRX || m.dl.slots&(1<<d.TS) == 0 {
		return
	}
	var blk rlcmac.EGPRSDLBlock
	if err := blk.Parse(d.Payload); err != nil || blk.Header.TFI != m.dl.tfi {
		return
	}
	m.dlHeard = d.FN // T3190 restarts
	m.cell.Blocks.Data++
	if m.cell.DataCS == nil {
		m.cell.DataCS = map[rlcmac.CodingScheme]int{}
	}
	m.cell.DataCS[blk.CS]++
	h := &blk.Header
	dl := blk.CS.DataLen()
	if h.SPB != 0 {
		// half of a resegmented unit (SPB 2 first, 3 second, §10.4.8b)
		bsn := int(h.BSN1)
		if h.SPB == 2 {
			if m.dl.spbHalf == nil {
				m.dl.spbHalf = map[int][]byte{}
			}
			m.dl.spbHalf[bsn] = append([]byte(nil), blk.Data[0][:dl]...)
		} else if first, ok := m.dl.spbHalf[bsn]; ok && h.SPB == 3 {
			delete(m.dl.spbHalf, bsn)
			if h.FBI[0] {
				m.dl.finalRx = true
			}
			m.receiveUnit(bsn, append(first, blk.Data[0][:dl]...), unitHdr{h.E[0], h.FBI[0]})
		}
		m.SplitBlocks++
	}
	for i := 0; i < blk.NUnits && h.SPB == 0; i++ {
		bsn := int(h.BSN1)
		if i == 1 {
			bsn = int(h.BSN2)
		}
		if h.FBI[i] {
			m.dl.finalRx = true
		}
		m.receiveUnit(bsn, blk.Data[i][:dl], unitHdr{h.E[i], h.FBI[i]})
	}
	if h.ESP != 0 {
		final := m.dl.finalRx && m.dl.rw.Complete()
		a := rlcmac.EGPRSPacketDownlinkAckNack{DownlinkTFI: m.dl.tfi}
		// room for the bitmap after the other fields of the 23-octet block
		a.AckNack = m.dl.rw.EGPRSAckNack(final, 120)
		a.HasChanReq, a.ChanReq = m.chanReq(d, h.RRBP)
		m.sendAck(d, h.RRBP, &a, final)
	}
}

func (m *MS) reassembleDL(bsn int) {
	h := m.dl.hdr[bsn]
	data := m.dl.units[bsn]
	var u rlcmac.ULUnit
	if err := rlcmac.ParseULUnit(data, m.dl.egprs, h.e, false, false, h.fbi, &u); err != nil {
		return
	}
	for i := 0; i < u.N; i++ {
		c := u.Chunks[i]
		m.dl.llcBuf = append(m.dl.llcBuf, data[c.Off:c.Off+c.Len]...)
		if !c.Complete {
			continue
		}
		f := m.dl.llcBuf
		m.dl.llcBuf = nil
		if len(f) == 0 || llc.IsDummy(f) {
			continue
		}
		m.DLFrames++
		m.DLOctets += len(f)
		m.trace("dlf", len(f))
		if m.OnLLC != nil {
			m.OnLLC(f)
		}
	}
}
