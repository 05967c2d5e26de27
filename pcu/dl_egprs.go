package pcu

import "github.com/gopcu/gopcu/rlcmac"

// EGPRS downlink data blocks (TS 44.060 §10.3a.3): one or two data units
// per block, retransmission in the MCS family with resegmentation into
// split blocks (SPB, §9.3.2.1).

// dlDataBlockEGPRS writes an EGPRS DL data block: one data unit, or two
// of the same MCS for MCS-7..9 (§10.3a.3.1). Retransmissions keep the MCS
// a block was first sent with (ARQ type II, no resegmentation). When an
// MCS-7/9 unit has no partner it goes alone as MCS-5/6 (same unit size,
// osmo-pcu tbf_dl.cpp gprs_rlcmac_dl_tbf::create_dl_acked_block()); a lone MCS-8 unit is repeated as its own partner.
func (e *Engine) dlDataBlockEGPRS(t *TBF, p *PDCH, fn uint32, usf uint8, prio int, blk []byte) int {
	bts := t.bts
	cur := t.cs
	if e.usfGMSK && cur > rlcmac.MCS4 {
		// the USF is for a GPRS-only MS, which reads it only in a GMSK
		// block (TS 44.060 §5.2.4a): MCS-4 at most, as osmo-pcu's
		// ms_current_cs_dl(EGPRS_GMSK) (TC_multiplex_dl_gprs_egprs)
		cur = clampMCS(bts, 4, 4)
		if b := t.dl.sw.ResendNeeded(); b >= 0 && t.dlb(b).spbNext != 3 && e.retxMCS(t.dlb(b).cs, cur) > rlcmac.MCS4 {
			return 0 // (arq2) no GMSK resend of this unit: a dummy block carries the USF
		}
		// (a resend that nextBSN itself marks, on a stall or a preemptive
		// retransmission, is not checked here: with arq2 it may stay 8PSK)
	}
	bsn1, resend1, ok := e.nextBSN(t, prio, cur)
	if !ok {
		return 0
	}
	b1 := t.dlb(bsn1)
	cs := b1.cs
	if resend1 {
		rc := e.retxMCS(b1.cs, cur)
		if b1.spbNext == 3 || rc.DataLen()*2 == b1.cs.DataLen() {
			return e.dlSplitBlock(t, p, fn, usf, prio, bsn1, rc, blk)
		}
		cs = rc // MCS-9 -> 6, MCS-7 -> 5: the same unit alone, more robust
	}
	bsn2, resend2 := bsn1, resend1
	b2 := b1
	if cs.DataUnits() == 2 {
		found := false
		// a partner: another unit of the same MCS waiting for resend, or new data
		if r := t.dl.sw.ResendNeeded(); r >= 0 && t.dlb(r).cs == cs {
			t.dl.sw.MarkSent(r)
			bts.Ctr.Inc(CtrRLCResent)
			bsn2, resend2, found = r, true, true
		} else if !t.dl.sw.Stalled() && t.dlBacklog() && !b1.fbi {
			if n, ok := t.dl.sw.SendNew(); ok {
				e.fillDLBlock(t, n, cs)
				bsn2, resend2, found = n, false, true
			}
		}
		switch {
		case found:
			b2 = t.dlb(bsn2)
		case cs == rlcmac.MCS7:
			cs = rlcmac.MCS5
		case cs == rlcmac.MCS9:
			cs = rlcmac.MCS6
		}
	}
	h := rlcmac.EGPRSDLHeader{USF: usf, TFI: t.tfi, BSN1: uint16(bsn1), BSN2: uint16(bsn2),
		E: [2]bool{b1.e, b2.e}, FBI: [2]bool{b1.fbi, b2.fbi}}
	h.CPS, _ = rlcmac.EncodeCPS(cs, 0, 0, false)
	if rrbp, ok := e.pollDL(t, p, fn, prio, b1.fbi || b2.fbi, b1.small || b2.small, resend1 && resend2); ok {
		h.ESP, h.RRBP = 1, rrbp // EGPRS PDAN requested (§10.4.4a)
	}
	var u2 []byte
	if cs.DataUnits() == 2 {
		u2 = b2.unit[:cs.DataLen()]
	}
	n, err := rlcmac.EncodeEGPRSDL(blk, cs, &h, b1.unit[:cs.DataLen()], u2)
	if err != nil {
		e.tbfLog.Error("cannot encode EGPRS DL data block", "tbf", t, "err", err)
		return 0
	}
	countDLBlock(t, p, cs)
	if prio == prioPollAgain && (resend1 && b1.fbi || bsn2 != bsn1 && resend2 && b2.fbi) {
		bts.Ctr.Inc(CtrRLCFinalBlockResent)
	}
	if !resend1 {
		t.dl.sentBytes += uint64(b1.bytes)
		bts.Ctr.Add(CtrRLCDLPayloadBytes, uint64(b1.bytes))
	}
	if bsn2 != bsn1 && !resend2 {
		t.dl.sentBytes += uint64(b2.bytes)
		bts.Ctr.Add(CtrRLCDLPayloadBytes, uint64(b2.bytes))
	}
	return n
}

// retxMCS is the MCS a unit first sent at init is resent with when the
// link adaptation now commands cur (TS 44.060 tables 8.1.1.1 with
// resegmentation, 8.1.1.2 for `egprs dl arq-type arq2`): the same family,
// one unit per block when cur is below MCS-7, and with resegmentation split
// into two blocks of MCS-3/2/1 when cur is below the family's middle MCS.
// An MCS-8 unit is always resent as MCS-8 (as osmo-pcu).
func (e *Engine) retxMCS(init, cur rlcmac.CodingScheme) rlcmac.CodingScheme {
	split := !e.params.DLArq2
	pick := func(keep, one, lowest, low rlcmac.CodingScheme) rlcmac.CodingScheme {
		switch {
		case cur >= keep:
			return init
		case cur >= lowest || !split:
			return one
		default:
			return low
		}
	}
	switch init {
	case rlcmac.MCS9:
		return pick(rlcmac.MCS9, rlcmac.MCS6, rlcmac.MCS5, rlcmac.MCS3)
	case rlcmac.MCS7:
		return pick(rlcmac.MCS7, rlcmac.MCS5, rlcmac.MCS5, rlcmac.MCS2)
	case rlcmac.MCS6:
		return pick(rlcmac.MCS5, rlcmac.MCS6, rlcmac.MCS5, rlcmac.MCS3)
	case rlcmac.MCS5:
		return pick(rlcmac.MCS5, rlcmac.MCS5, rlcmac.MCS5, rlcmac.MCS2)
	case rlcmac.MCS4:
		return pick(rlcmac.MCS4, rlcmac.MCS4, rlcmac.MCS4, rlcmac.MCS1)
	}
	return init
}

// dlSplitBlock resends half of a unit as an MCS-1..3 block with SPB 2
// (first half) or 3 (second half) (TS 44.060 §9.3.2.1, §10.4.8b); the BSN
// stays marked for resending until its second half went.
func (e *Engine) dlSplitBlock(t *TBF, p *PDCH, fn uint32, usf uint8, prio int, bsn int, rc rlcmac.CodingScheme, blk []byte) int {
	b := t.dlb(bsn)
	half := uint8(2)
	if b.spbNext == 3 {
		half = 3
		switch b.cs {
		case rlcmac.MCS9, rlcmac.MCS6:
			rc = rlcmac.MCS3
		case rlcmac.MCS7, rlcmac.MCS5:
			rc = rlcmac.MCS2
		case rlcmac.MCS4:
			rc = rlcmac.MCS1
		}
	}
	hl := rc.DataLen()
	h := rlcmac.EGPRSDLHeader{USF: usf, TFI: t.tfi, BSN1: uint16(bsn), BSN2: uint16(bsn), SPB: half,
		E: [2]bool{b.e}, FBI: [2]bool{b.fbi}}
	h.CPS, _ = rlcmac.EncodeCPS(rc, 0, 0, false)
	if rrbp, ok := e.pollDL(t, p, fn, prio, b.fbi, b.small, true); ok {
		h.ESP, h.RRBP = 1, rrbp
	}
	off := 0
	if half == 3 {
		off = hl
	}
	n, err := rlcmac.EncodeEGPRSDL(blk, rc, &h, b.unit[off:off+hl], nil)
	if err != nil {
		e.tbfLog.Error("cannot encode an EGPRS split block", "tbf", t, "err", err)
		return 0
	}
	bts := t.bts
	countDLBlock(t, p, rc)
	if half == 2 {
		b.spbNext = 3
		t.dl.sw.MarkResend(bsn) // the second half follows
		bts.Ctr.Inc(CtrSPBDLFirstSegment)
	} else {
		b.spbNext = 0
		bts.Ctr.Inc(CtrSPBDLSecondSegment)
	}
	return n
}
