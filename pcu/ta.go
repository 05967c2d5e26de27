package pcu

import (
	"time"

	"github.com/gopcu/gopcu/rlcmac"
)

// Timing advance (TS 45.010 §5.4-5.6, TS 44.060 §7.1.2.5): gopcu closes
// the loop osmo-pcu leaves open (its pdch.cpp defines
// gprs_rlcmac_pdch::reserve_tai() but never calls it). Every MS with a TBF
// gets a Timing Advance Index on the control PDCH of its TBFs; the PTCCH/D
// of that PDCH carries its TA; uplink bursts that arrive early or late
// (the BTS's burst timing offset in DATA_IND) move its TA, and PTCCH/U
// access bursts measure it afresh.

// taHoldoff is how long a TA change is given to reach the MS (the PTCCH/D
// repeats every 480 ms) before offsets measured on its bursts count again.
const taHoldoff = time.Second

// ptcchSubslots are the FN mod 416 of the PTCCH/U access bursts of TAI
// 0..15 (TS 45.002 §6.3.2.2.2).
var ptcchSubslots = [16]uint32{12, 38, 64, 90, 116, 142, 168, 194, 220, 246, 272, 298, 324, 350, 376, 402}

// assignTAI gives m a TAI on t's control PDCH (kept while the MS has TBFs
// there; moved when a new TBF lives on another PDCH).
func (e *Engine) assignTAI(t *TBF) {
	m := t.ms
	if m.TAI >= 0 {
		if m.taiTRX == t.trx && m.taiTS == t.ctrlTS {
			return
		}
		if o := m.otherTBF(t); o != nil && o.attached {
			return // the other TBF's PDCH keeps it
		}
		e.releaseTAI(m)
	}
	p := &t.bts.TRX[t.trx].PDCH[t.ctrlTS]
	for i, o := range p.taiOwner {
		if o == nil {
			p.taiOwner[i] = m
			m.TAI, m.taiTRX, m.taiTS = int8(i), t.trx, t.ctrlTS
			return
		}
	}
	// 16 MSs on one PDCH already have one: this MS goes without
}

// releaseTAI frees m's TAI.
func (e *Engine) releaseTAI(m *MS) {
	if m.TAI < 0 {
		return
	}
	p := &m.bts.TRX[m.taiTRX].PDCH[m.taiTS]
	if p.taiOwner[m.TAI] == m {
		p.taiOwner[m.TAI] = nil
	}
	m.TAI = -1
}

// moveTAI hands from's TAI to to (the same subscriber seen as two MS
// objects), unless to has one.
func (e *Engine) moveTAI(from, to *MS) {
	if from.TAI < 0 || from == to {
		return
	}
	if to.TAI >= 0 {
		e.releaseTAI(from)
		return
	}
	p := &from.bts.TRX[from.taiTRX].PDCH[from.taiTS]
	if p.taiOwner[from.TAI] == from {
		p.taiOwner[from.TAI] = to
	}
	to.TAI, to.taiTRX, to.taiTS = from.TAI, from.taiTRX, from.taiTS
	from.TAI = -1
}

// otherTBF is m's TBF in the other direction than t, or nil.
func (m *MS) otherTBF(t *TBF) *TBF {
	if t.dir == DirUL {
		return m.DL
	}
	return m.UL
}

// packetTA is the Packet Timing Advance IE of m (TA value and, with a
// TAI, index and timeslot).
func packetTA(m *MS) rlcmac.PacketTimingAdvance {
	ta := rlcmac.PacketTimingAdvance{HasValue: true, Value: m.TA}
	if m.TAI >= 0 {
		ta.HasIndex, ta.Index, ta.TN = true, uint8(m.TAI), m.taiTS
	}
	return ta
}

// taFromBurst is the TA loop: a burst offset of at least half a symbol
// (offs in quarter bits, early negative) moves the TA by the rounded
// number of symbols, then waits taHoldoff for the MS to apply it.
func (e *Engine) taFromBurst(m *MS, offs int16) {
	if offs > -2 && offs < 2 || m.taSet && e.now-m.taChanged < taHoldoff {
		return
	}
	d := int(offs)
	steps := (d + 2) / 4
	if d < 0 {
		steps = (d - 2) / 4
	}
	if steps == 0 {
		return
	}
	ta := min(max(int(m.TA)+steps, 0), 63)
	if ta == int(m.TA) {
		return
	}
	e.tbfLog.Debug("TA loop", "ms", m, "offset_qbits", offs, "from", m.TA, "to", ta)
	m.TA = uint8(ta)
	m.taChanged, m.taSet = e.now, true
	e.l1ctr.Inc(L1TALoopUpdates)
}

// onPTCCHAccess: an access burst on PTCCH/U measures the TA of the MS
// whose TAI owns the sub-slot.
func (e *Engine) onPTCCHAccess(bts *BTS, trx, ts uint8, fn uint32, qta int16) {
	if int(trx) >= len(bts.TRX) || ts > 7 {
		return
	}
	p := &bts.TRX[trx].PDCH[ts]
	sub := fn % 416
	for i, s := range ptcchSubslots {
		if s != sub {
			continue
		}
		if m := p.taiOwner[i]; m != nil {
			m.TA = uint8(min(max(int(qta), 0), 252) / 4)
			m.taChanged, m.taSet = e.now, true
		}
		return
	}
}

// hasTAI reports whether some MS has a TAI on p.
func (p *PDCH) hasTAI() bool {
	for _, m := range p.taiOwner {
		if m != nil {
			return true
		}
	}
	return false
}

// ptcchD builds the PTCCH/D block of p into buf: the TA of each TAI's
// owner, 0x7F for a free TAI, then 0x2B fill (TS 44.004 §7.8; osmo-pcu pdch.cpp pdch_init()).
func ptcchD(p *PDCH, buf *[23]byte) {
	for i, m := range p.taiOwner {
		buf[i] = 0x7f
		if m != nil {
			buf[i] = m.TA & 0x3f
		}
	}
	for i := 16; i < len(buf); i++ {
		buf[i] = 0x2b
	}
}
