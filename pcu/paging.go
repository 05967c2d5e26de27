package pcu

import (
	"fmt"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// pageEntry is one queued CS page for PACCH (TS 44.060 §11.2.10; osmo-pcu bts.cpp bts_add_paging()).
type pageEntry struct {
	e rlcmac.PageEntry
}

// maxPagesPerPDCH bounds the pages waiting for a PDCH's PACCH: a Packet
// Paging Request carries a few, one block goes per RTS at most, and a
// page older than T3113 (7 s) is of no use to the MSC. A flood of
// PAGING-CS pushes the oldest out (counted as paging:dropped).
const maxPagesPerPDCH = 64

// pagePACCH queues a Packet Paging Request (TS 44.060 §11.2.10, page for
// RR connection) on the PACCH of the MS's TBF when the MS is known, else on
// one timeslot of every MS with a TBF.
func (e *Engine) pagePACCH(bts *BTS, ms *MS, entry rlcmac.PageEntry) {
	var marked [pcuif.NumTRX]uint8
	add := func(t *TBF) bool {
		if t == nil || !t.attached {
			return false
		}
		p := &bts.TRX[t.trx].PDCH[t.ctrlTS]
		if marked[t.trx]&(1<<t.ctrlTS) != 0 {
			return true
		}
		marked[t.trx] |= 1 << t.ctrlTS
		if len(p.pages) >= maxPagesPerPDCH {
			n := copy(p.pages, p.pages[len(p.pages)-maxPagesPerPDCH+1:])
			clear(p.pages[n:])
			p.pages = p.pages[:n]
			e.l1ctr.Inc(L1PagingDropped)
			e.opDrop(e.tbfLog, dropPACCHPage, func() string {
				return fmt.Sprintf("oldest PACCH page of TRX=%d TS=%d dropped: %d pages queued already", t.trx, t.ctrlTS, maxPagesPerPDCH)
			})
		}
		p.pages = append(p.pages, pageEntry{entry})
		return true
	}
	if ms != nil {
		if add(ms.UL) || add(ms.DL) {
			return
		}
		e.tbfLog.Info("cannot page on PACCH, no TBF", "ms", ms)
		return
	}
	any := false
	for _, m := range bts.ms.all {
		any = add(m.UL) || any
		any = add(m.DL) || any
	}
	if !any {
		e.tbfLog.Info("no PACCH paging: no TBF")
	}
}

// encodePaging sends the queued pages of a PDCH that fit one Packet Paging
// Request (TS 44.060 §11.2.10).
func (e *Engine) encodePaging(p *PDCH, usf uint8, blk []byte) int {
	var m rlcmac.PacketPagingRequest
	n := 0
	var stop error // why page n does not encode (nil: it did not fit)
	for n < len(p.pages) && n < len(m.Pages) {
		m.Pages[n] = p.pages[n].e
		m.N = uint8(n + 1)
		if bits, err := rlcmac.MessageBits(&m); err != nil || bits > 184-8 {
			m.N, stop = uint8(n), err
			break
		}
		n++
	}
	if n == 0 {
		// a page that goes in no message: a field out of range
		// (CHANNEL_NEEDED from PAG_REQ); none is too long (the longest, a
		// 15-octet Mobile Identity with eMLPP priority, takes 152 of the
		// 176 bits with the message type)
		e.l1ctr.Inc(L1PagingUnencodable)
		e.opDrop(e.tbfLog, dropPACCHPage, func() string {
			return fmt.Sprintf("PACCH page of TRX=%d TS=%d dropped: it does not encode in a Packet Paging Request: %v", p.TRX, p.TS, stop)
		})
		p.pages = p.pages[1:]
		return 0
	}
	h := rlcmac.DLCtrlHeader{USF: usf}
	l := e.encodeCtrl(blk, &h, &m)
	if l > 0 {
		p.pages = p.pages[n:]
	}
	return l
}

// pageEntryFor builds the page of a mobile identity: TMSI if given, else
// the IMSI as Mobile Identity.
func pageEntryFor(tmsi uint32, hasTMSI bool, imsiMI []byte, chanNeeded uint8) (rlcmac.PageEntry, bool) {
	pe := rlcmac.PageEntry{ForRR: true, ChanNeeded: chanNeeded}
	switch {
	case hasTMSI:
		pe.TMSI = tmsi
	case len(imsiMI) > 0 && len(imsiMI) <= len(pe.MI):
		pe.UseMI = true
		pe.MILen = uint8(copy(pe.MI[:], imsiMI))
	default:
		return pe, false
	}
	return pe, true
}

// pagingCS handles BSSGP PAGING-CS: the MS by TLLI, else by IMSI.
func (e *Engine) pagingCS(p *bssgp.PagingCS) {
	bts := e.bts[0]
	if bts == nil || !bts.Active {
		return
	}
	pe, ok := pageEntryFor(p.TMSI, p.HasTMSI, p.IMSI, p.ChannelNeeded)
	if !ok {
		return
	}
	var ms *MS
	if p.HasTLLI {
		ms = bts.ms.byTLLI[p.TLLI]
	}
	if ms == nil {
		if imsi, err := bssgp.DecodeIMSI(p.IMSI); err == nil {
			ms = bts.ms.byIMSI[imsi]
		}
	}
	e.pagePACCH(bts, ms, pe)
}

// onPagReq: CS paging from the BTS (PCUIF PAG_REQ), MS looked up by IMSI.
func (e *Engine) onPagReq(bts *BTS, m *pcuif.PagReq) {
	if len(m.Identity) == 0 {
		e.pagReqDropped(func() string { return "no Mobile Identity" })
		return
	}
	var pe rlcmac.PageEntry
	var ms *MS
	switch m.Identity[0] & 7 {
	case 4: // TMSI
		if len(m.Identity) != 5 {
			e.pagReqDropped(func() string { return fmt.Sprintf("TMSI identity of %d octets, not 5", len(m.Identity)) })
			return
		}
		pe = rlcmac.PageEntry{ForRR: true, ChanNeeded: m.ChanNeeded,
			TMSI: uint32(m.Identity[1])<<24 | uint32(m.Identity[2])<<16 | uint32(m.Identity[3])<<8 | uint32(m.Identity[4])}
	case 1: // IMSI
		// cannot fail: PAG_REQ's identity has 1 to 8 octets (pcuif), the
		// Paging Request's Mobile Identity room 15
		pe, _ = pageEntryFor(0, false, m.Identity, m.ChanNeeded)
		if imsi, err := bssgp.DecodeIMSI(m.Identity); err == nil {
			ms = bts.ms.byIMSI[imsi]
		}
	default:
		e.pagReqDropped(func() string {
			return fmt.Sprintf("Mobile Identity type %d, neither TMSI nor IMSI", m.Identity[0]&7)
		})
		return
	}
	e.pagePACCH(bts, ms, pe)
}

// pagReqDropped counts and logs a PAG_REQ whose Mobile Identity names no
// MS to page (osmo-pcu pcu_l1_if.cpp pcu_rx_pag_req() logs these at ERROR
// and ignores them).
func (e *Engine) pagReqDropped(why func() string) {
	e.l1ctr.Inc(L1PagReqDropped)
	e.opDrop(e.l1log, dropPagReq, func() string { return "PAG_REQ dropped: " + why() })
}

// onSuspReq: the MS left for a CS call (TS 44.018 §3.4.25.2): its TBFs
// end and the SGSN learns it with BSSGP SUSPEND.
func (e *Engine) onSuspReq(bts *BTS, m *pcuif.SuspReq) {
	if ms := bts.ms.byTLLI[m.TLLI]; ms != nil {
		// the MS is on a dedicated channel now: no DL TBF for it until it
		// comes back (new DL data from the SGSN, or its own access), as
		// osmo-pcu, which frees the TBFs and keeps the queue
		ms.suspended = true
		if ms.UL != nil {
			e.fireRelease(ms.UL, relSuspend)
		}
		if ms.DL != nil {
			e.fireRelease(ms.DL, relSuspend)
		}
	}
	r := m.RAID
	rai := bssgp.RAI{
		MCC: uint16(r[0]&0x0f)*100 + uint16(r[0]>>4)*10 + uint16(r[1]&0x0f),
		LAC: uint16(r[3])<<8 | uint16(r[4]), RAC: r[5],
	}
	if r[1]>>4 == 0x0f {
		rai.MNC = uint16(r[2]&0x0f)*10 + uint16(r[2]>>4)
	} else {
		rai.MNC = uint16(r[2]&0x0f)*100 + uint16(r[2]>>4)*10 + uint16(r[1]>>4)
		rai.MNC3Digits = true
	}
	err := errNoGb
	if e.gbl != nil {
		err = e.gbl.gb.SendSuspend(m.TLLI, rai, e.gbNow())
	}
	if err != nil {
		e.l1ctr.Inc(L1GbSuspendDropped)
		e.opDrop(e.gbLog, dropSuspendNotSent, func() string {
			return fmt.Sprintf("SUSPEND for TLLI=0x%08x dropped: not sent to the SGSN: %v", m.TLLI, err)
		})
	}
}

// maxPCHPages bounds the PS pagings on PCH a BTS remembers (the SGSN can
// page any number of IMSIs): beyond it a page still goes out, untracked.
const maxPCHPages = 4096

// pchPage is a PS paging on PCH waiting for its MS: T3113 (TS 44.018
// §3.3.2.1; osmo-pcu bts_pch_timer.c) runs per IMSI.
type pchPage struct {
	imsi     string
	ptmsi    uint32
	hasTMSI  bool
	deadline time.Duration
}

// pchPages are the pending pagings of a BTS in start order, which is
// deadline order (one T3113 for all); byIMSI holds the live ones' deadline.
type pchPages struct {
	q      []pchPage
	byIMSI map[string]time.Duration
}

// pchPending reports whether imsi is being paged on PCH (T3113 running).
func (b *BTS) pchPending(imsi string) bool {
	_, ok := b.pch.byIMSI[imsi]
	return ok
}

// pchStart starts T3113 for a paging of imsi sent on PCH.
func (e *Engine) pchStart(b *BTS, imsi string, ptmsi uint32, hasTMSI bool) {
	if b.pch.byIMSI == nil {
		b.pch.byIMSI = map[string]time.Duration{}
	}
	if len(b.pch.byIMSI) >= maxPCHPages {
		return
	}
	at := max(e.now+e.params.T3113, 1)
	b.pch.q = append(b.pch.q, pchPage{imsi: imsi, ptmsi: ptmsi, hasTMSI: hasTMSI, deadline: at})
	b.pch.byIMSI[imsi] = at
	if e.nextDeadline == 0 || at < e.nextDeadline {
		e.nextDeadline = at
	}
}

// pchStop stops T3113 of the paging that reached ms (it is on a PDCH):
// by its TLLI as the paging's P-TMSI, else by its IMSI (osmo-pcu
// bts_pch_timer_stop).
func (e *Engine) pchStop(b *BTS, ms *MS) {
	if len(b.pch.byIMSI) == 0 {
		return
	}
	for _, p := range b.pch.q {
		if p.hasTMSI && p.ptmsi == ms.TLLI && b.pch.byIMSI[p.imsi] == p.deadline {
			delete(b.pch.byIMSI, p.imsi)
			return
		}
	}
	delete(b.pch.byIMSI, ms.IMSI)
}

// expirePCH counts the pagings whose T3113 ran out (pch:requests:timeout)
// and returns the next deadline (0: none).
func (e *Engine) expirePCH(b *BTS) time.Duration {
	q := b.pch.q
	i := 0
	for ; i < len(q); i++ {
		p := &q[i]
		d, live := b.pch.byIMSI[p.imsi]
		if !live || d != p.deadline {
			continue // stopped, or paged again later
		}
		if p.deadline > e.now {
			break
		}
		delete(b.pch.byIMSI, p.imsi)
		b.Ctr.Inc(CtrPCHRequestsTimedout)
		e.log.Info("PCH paging timeout", "imsi", p.imsi)
	}
	n := copy(q, q[i:])
	clear(q[n:])
	b.pch.q = q[:n]
	if n > 0 {
		return q[0].deadline
	}
	return 0
}
