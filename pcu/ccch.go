package pcu

import (
	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// msgIDNone is the msg_id of CCCH messages that need no confirmation
// (GSM_RESERVED_TMSI, as osmo-pcu's bts.cpp passes to pcu_l1if_tx_agch2()).
const msgIDNone = 0xffffffff

// sendAGCH sends a 23-octet MAC block (IMM ASS / IMM ASS REJ) on AGCH in
// the negotiated version's form: v10 SAPI AGCH, v11+ AGCH_2.
func (e *Engine) sendAGCH(bts *BTS, mac []byte, msgID uint32, confirm bool) {
	d := &pcuif.Data{Kind: pcuif.TypeDataReq}
	d.BTSNr = bts.Nr
	var buf [pcuif.AGCH2Len]byte
	if e.ver >= pcuif.V11 {
		a := pcuif.AGCH2{MsgID: msgID, Confirm: confirm}
		copy(a.MAC[:], mac)
		a.MarshalTo(buf[:])
		d.SAPI, d.Payload = pcuif.SAPIAGCH2, buf[:]
	} else {
		d.SAPI, d.Payload = pcuif.SAPIAGCH, mac
	}
	e.send(d, e.ver)
	e.tapBlock(gsmtap.CatDLAGCH, false, 0, 0, gsmtap.ChannelAGCH, 0, 0, 0, mac)
}

// sendPCH sends a MAC block on PCH: v10 SAPI PCH with the 3 paging-group
// digits (last three IMSI digits, "000" if unknown), v11+ PCH_2 with the
// IMSI.
func (e *Engine) sendPCH(bts *BTS, imsi string, mac []byte, msgID uint32, confirm bool) {
	d := &pcuif.Data{Kind: pcuif.TypeDataReq}
	d.BTSNr = bts.Nr
	if e.ver >= pcuif.V11 {
		var buf [pcuif.PCH2Len]byte
		p := pcuif.PCH2{MsgID: msgID, IMSI: imsi, Confirm: confirm}
		copy(p.MAC[:], mac)
		if _, err := p.MarshalTo(buf[:]); err != nil {
			e.l1log.Error("cannot encode PCH_2", "err", err)
			return
		}
		d.SAPI, d.Payload = pcuif.SAPIPCH2, buf[:]
	} else {
		var buf [pcuif.PCHLegacyLen]byte
		grp := "000"
		if len(imsi) >= 3 {
			grp = imsi[len(imsi)-3:]
		}
		copy(buf[:3], grp)
		copy(buf[3:], mac)
		d.SAPI, d.Payload = pcuif.SAPIPCH, buf[:]
	}
	e.send(d, e.ver)
	e.tapBlock(gsmtap.CatDLPCH, false, 0, 0, gsmtap.ChannelPCH, 0, 0, 0, mac)
}

// packetChannel fills the Packet Channel Description of an Immediate
// Assignment for one PDCH (TS 44.018 §10.5.2.25a).
func packetChannel(ia *rlcmac.ImmediateAssignment, trx *TRX, ts uint8) {
	p := &trx.PDCH[ts]
	ia.ChanType = 1
	ia.TN = ts
	ia.TSC = p.TSC
	if p.Hopping {
		ia.Hopping, ia.MAIO, ia.HSN = true, p.MAIO, p.HSN
		n := (int(p.MABitLen) + 7) / 8
		ia.MALen = uint8(n)
		copy(ia.MA[:n], p.MA[8-n:])
	} else {
		ia.ARFCN = trx.ARFCN
	}
}
